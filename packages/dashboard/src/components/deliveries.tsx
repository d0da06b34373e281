import type { WebhookDelivery } from '@purse/sdk';
import { useQuery } from '@tanstack/preact-query';
import { api } from '../lib/session.ts';
import { ErrorNotice } from './error-notice.tsx';
import { Status, Time } from './values.tsx';

function DeliveryTable({ delivery }: { delivery: WebhookDelivery }) {
  return (
    <table class="attempts">
      <caption>
        To <code>{delivery.url}</code> <Status status={delivery.status} />
        {delivery.next_attempt_at && (
          <>
            {' '}
            next attempt <Time iso={delivery.next_attempt_at} />
          </>
        )}
      </caption>
      <thead>
        <tr>
          <th scope="col">Attempted</th>
          <th scope="col">Status code</th>
          <th scope="col">Latency</th>
          <th scope="col">Error</th>
        </tr>
      </thead>
      <tbody>
        {delivery.attempts.length === 0 && (
          <tr>
            <td colSpan={4}>No attempt yet.</td>
          </tr>
        )}
        {delivery.attempts.map((attempt) => (
          <tr key={attempt.attempted_at}>
            <td>
              <Time iso={attempt.attempted_at} />
            </td>
            <td>{attempt.status_code ?? '—'}</td>
            <td class="num">{attempt.latency_ms} ms</td>
            <td>{attempt.error ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Every delivery of one event and every attempt of each; refreshed while one is still pending. */
export function Deliveries({ eventId }: { eventId: string }) {
  const deliveries = useQuery({
    queryKey: ['deliveries', eventId],
    queryFn: () => api().events.deliveries(eventId) as Promise<{ data: WebhookDelivery[] }>,
    refetchInterval: (query) => (query.state.data?.data.some((d) => d.status === 'pending') ? 2_000 : false),
  });
  if (deliveries.error) return <ErrorNotice error={deliveries.error} />;
  if (!deliveries.data) return null;
  if (deliveries.data.data.length === 0) return <p class="muted">No webhook deliveries.</p>;
  return (
    <div class="deliveries">
      {deliveries.data.data.map((delivery) => (
        <DeliveryTable key={delivery.id} delivery={delivery} />
      ))}
    </div>
  );
}
