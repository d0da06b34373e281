import type { WebhookEndpoint } from '@purse/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { ErrorNotice } from '../components/error-notice.tsx';
import { SecretOnce } from '../components/secret-once.tsx';
import { TableBox } from '../components/table-box.tsx';
import { Status, Time } from '../components/values.tsx';
import { parseEvents } from '../lib/endpoint-form.ts';
import { firstPage } from '../lib/page.ts';
import { can } from '../lib/rights.ts';
import { Link } from '../lib/router.tsx';
import { api } from '../lib/session.ts';

type CreateParams = Parameters<ReturnType<typeof api>['webhookEndpoints']['create']>[0];

function CreateEndpoint() {
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (data: FormData) => {
      const events = parseEvents(String(data.get('events')));
      const description = String(data.get('description')).trim();
      const params = {
        url: String(data.get('url')).trim(),
        ...(events ? { events } : {}),
        ...(description ? { description } : {}),
      } as CreateParams;
      return api().webhookEndpoints.create(params);
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhook-endpoints'] }),
  });
  return (
    <section aria-labelledby="create-endpoint-heading" class="panel">
      <h2 id="create-endpoint-heading">Add an endpoint</h2>
      <form
        class="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate(new FormData(event.currentTarget));
        }}
      >
        <label for="we-url">Endpoint URL</label>
        <input id="we-url" name="url" type="url" required placeholder="https://shop.example/hooks" />
        <label for="we-events">Events (comma-separated; empty for all)</label>
        <input id="we-events" name="events" placeholder="payment.succeeded, refund.succeeded" />
        <label for="we-description">Description (optional)</label>
        <input id="we-description" name="description" maxLength={255} />
        <button type="submit" disabled={create.isPending}>
          Add endpoint
        </button>
      </form>
      <ErrorNotice error={create.error} />
      {create.data && (
        <>
          <p role="status">
            Endpoint <Link to={`webhooks/${create.data.id}`}>{create.data.url}</Link> added.
          </p>
          <SecretOnce secret={create.data.secret} />
        </>
      )}
    </section>
  );
}

export function WebhookList() {
  const endpoints = useQuery({
    queryKey: ['webhook-endpoints', 'list'],
    queryFn: () => firstPage(api().webhookEndpoints.list({ limit: 100 })),
  });
  return (
    <>
      <h1 tabIndex={-1}>Webhooks</h1>
      {can('webhooks') && <CreateEndpoint />}
      <ErrorNotice error={endpoints.error} />
      {endpoints.data && endpoints.data.data.length === 0 && <p>No endpoints yet.</p>}
      {endpoints.data && endpoints.data.data.length > 0 && (
        <TableBox label="Webhook endpoints">
          <table>
            <caption>Webhook endpoints</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">ID</th>
                <th scope="col">Events</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {endpoints.data.data.map((endpoint: WebhookEndpoint) => (
                <tr key={endpoint.id}>
                  <td>
                    <Link to={`webhooks/${endpoint.id}`}>{endpoint.url}</Link>
                  </td>
                  <td>
                    <code>{endpoint.id}</code>
                  </td>
                  <td>{endpoint.events.includes('*') ? 'Every event' : endpoint.events.join(', ')}</td>
                  <td>
                    <Status status={endpoint.status} />
                  </td>
                  <td>
                    <Time iso={endpoint.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
      )}
    </>
  );
}
