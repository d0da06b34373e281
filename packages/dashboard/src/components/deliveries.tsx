import { useQuery } from '@tanstack/preact-query';
import { attemptDueSoon, type Delivery, type DeliveryAttempt } from '../lib/deliveries.ts';
import { api } from '../lib/session.ts';
import { ErrorNotice } from './error-notice.tsx';
import { TableBox } from './table-box.tsx';
import { Status, Time } from './values.tsx';

/** What an attempt got back: the error (or "OK"), and the start of the receiver's answer when the API gives it. */
export function AttemptOutcome({ attempt }: { attempt: DeliveryAttempt | undefined }) {
  if (!attempt) return <span class="muted">—</span>;
  const excerpt = attempt.response_excerpt;
  return (
    <>
      {attempt.error ?? (attempt.status_code !== null && attempt.status_code < 300 ? 'OK' : '')}
      {excerpt && (
        <code class="excerpt" title="The start of the receiver's answer">
          {excerpt}
        </code>
      )}
    </>
  );
}

function DeliveryTable({ delivery }: { delivery: Delivery }) {
  return (
    <div class="delivery">
      {/* Above the table, not its caption: a caption is as wide as its table, which may scroll. */}
      <p>
        To <code>{delivery.url}</code> <Status status={delivery.status} />
        {delivery.next_attempt_at && (
          <>
            {' '}
            next attempt <Time iso={delivery.next_attempt_at} />
          </>
        )}
      </p>
      <TableBox label={`Attempts of delivery ${delivery.id}`}>
        <table class="attempts">
          <caption>Attempts</caption>
          <thead>
            <tr>
              <th scope="col">Attempted</th>
              <th scope="col">Status code</th>
              <th scope="col">Latency</th>
              <th scope="col">Response</th>
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
                <td>
                  <AttemptOutcome attempt={attempt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableBox>
    </div>
  );
}

/** Every delivery of one event and every attempt of each; refreshed while an attempt is due soon. */
export function Deliveries({ eventId }: { eventId: string }) {
  const deliveries = useQuery({
    queryKey: ['deliveries', eventId],
    queryFn: () => api().events.deliveries(eventId) as Promise<{ data: Delivery[] }>,
    refetchInterval: (query) => (attemptDueSoon(query.state.data?.data ?? []) ? 2_000 : false),
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
