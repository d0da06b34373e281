import type { WebhookEndpoint } from '@purse/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { EndpointDeliveries } from '../components/endpoint-deliveries.tsx';
import { ErrorNotice } from '../components/error-notice.tsx';
import { Fields, RawJson } from '../components/fields.tsx';
import { SecretOnce } from '../components/secret-once.tsx';
import { Status } from '../components/values.tsx';
import { parseEvents } from '../lib/endpoint-form.ts';
import { api } from '../lib/session.ts';

type UpdateParams = Parameters<ReturnType<typeof api>['webhookEndpoints']['update']>[1];

function EditEndpoint({ endpoint }: { endpoint: WebhookEndpoint }) {
  const queryClient = useQueryClient();
  const update = useMutation({
    mutationFn: (data: FormData) => {
      const description = String(data.get('description')).trim();
      const params = {
        url: String(data.get('url')).trim(),
        events: parseEvents(String(data.get('events'))) ?? ['*'],
        description: description || null,
      } as UpdateParams;
      return api().webhookEndpoints.update(endpoint.id, params);
    },
    onSuccess: (updated) => {
      queryClient.setQueryData(['webhook-endpoints', 'one', endpoint.id], updated);
      void queryClient.invalidateQueries({ queryKey: ['webhook-endpoints', 'list'] });
    },
  });
  return (
    <section aria-labelledby="edit-heading" class="panel">
      <h2 id="edit-heading">Edit</h2>
      <form
        class="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          update.mutate(new FormData(event.currentTarget));
        }}
      >
        <label for="ed-url">Endpoint URL</label>
        <input id="ed-url" name="url" type="url" required defaultValue={endpoint.url} />
        <label for="ed-events">Events (comma-separated; empty for all)</label>
        <input id="ed-events" name="events" defaultValue={endpoint.events.join(', ')} />
        <label for="ed-description">Description</label>
        <input id="ed-description" name="description" maxLength={255} defaultValue={endpoint.description ?? ''} />
        <button type="submit" disabled={update.isPending}>
          Save changes
        </button>
      </form>
      <ErrorNotice error={update.error} />
      {update.isSuccess && <p role="status">Saved.</p>}
    </section>
  );
}

export function WebhookDetail({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const key = ['webhook-endpoints', 'one', id];
  const endpoint = useQuery({ queryKey: key, queryFn: () => api().webhookEndpoints.retrieve(id) });
  const refresh = (updated: WebhookEndpoint) => {
    queryClient.setQueryData(key, updated);
    void queryClient.invalidateQueries({ queryKey: ['webhook-endpoints', 'list'] });
  };
  const rotate = useMutation({ mutationFn: () => api().webhookEndpoints.rotateSecret(id), onSuccess: refresh });
  const setStatus = useMutation({
    mutationFn: (status: 'enabled' | 'disabled') => api().webhookEndpoints.update(id, { status } as UpdateParams),
    onSuccess: refresh,
  });
  const test = useMutation({
    mutationFn: () => api().webhookEndpoints.sendTestEvent(id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['deliveries', 'endpoint', id] }),
  });
  const object = endpoint.data;
  return (
    <>
      <h1 tabIndex={-1}>Webhook endpoint</h1>
      <ErrorNotice error={endpoint.error} />
      {object && (
        <>
          <p class="headline">
            <code>{object.url}</code> <Status status={object.status} />
          </p>
          <div class="actions">
            <button type="button" disabled={test.isPending || object.status !== 'enabled'} onClick={() => test.mutate()}>
              Send test event
            </button>
            <button type="button" disabled={rotate.isPending} onClick={() => rotate.mutate()}>
              Rotate secret
            </button>
            {object.status === 'enabled' ? (
              <button type="button" disabled={setStatus.isPending} onClick={() => setStatus.mutate('disabled')}>
                Disable
              </button>
            ) : (
              <button type="button" disabled={setStatus.isPending} onClick={() => setStatus.mutate('enabled')}>
                Enable
              </button>
            )}
          </div>
          <ErrorNotice error={test.error ?? rotate.error ?? setStatus.error} />
          {test.isSuccess && <p role="status">Test event sent.</p>}
          {rotate.data && (
            <>
              <SecretOnce secret={rotate.data.secret} />
              <p class="muted">The old secret keeps signing alongside the new one for 24 hours.</p>
            </>
          )}
          <EndpointDeliveries endpointId={id} />
          <section aria-labelledby="fields-heading">
            <h2 id="fields-heading">Fields</h2>
            <Fields object={object as unknown as Record<string, unknown>} />
          </section>
          <EditEndpoint endpoint={object} />
          <RawJson object={object} />
        </>
      )}
    </>
  );
}
