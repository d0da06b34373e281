import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { Deliveries } from '../components/deliveries.tsx';
import { ErrorNotice } from '../components/error-notice.tsx';
import { Time } from '../components/values.tsx';
import { api } from '../lib/session.ts';

export function EventDetail({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const event = useQuery({ queryKey: ['events', 'one', id], queryFn: () => api().events.retrieve(id) });
  const redeliver = useMutation({
    mutationFn: () => api().events.redeliver(id),
    onSuccess: (deliveries) => queryClient.setQueryData(['deliveries', id], deliveries),
  });
  return (
    <>
      <h1 tabIndex={-1}>Event {event.data?.type ?? id}</h1>
      <ErrorNotice error={event.error} />
      {event.data && (
        <>
          <p>
            <code>{event.data.id}</code>, <Time iso={event.data.created_at} />
          </p>
          <div class="actions">
            <button type="button" disabled={redeliver.isPending} onClick={() => redeliver.mutate()}>
              Redeliver
            </button>
          </div>
          <ErrorNotice error={redeliver.error} />
          {redeliver.isSuccess && <p role="status">Sent again to every endpoint of the event.</p>}
          <section aria-labelledby="deliveries-heading">
            <h2 id="deliveries-heading">Webhook deliveries</h2>
            <Deliveries eventId={id} />
          </section>
          <section aria-labelledby="data-heading">
            <h2 id="data-heading">Data</h2>
            <pre>{JSON.stringify(event.data.data, null, 2)}</pre>
          </section>
        </>
      )}
    </>
  );
}
