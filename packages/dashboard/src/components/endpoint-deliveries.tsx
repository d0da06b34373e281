import type { Event, Page } from '@purse/sdk';
import { keepPreviousData, useQuery } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { attemptDueSoon, type Delivery } from '../lib/deliveries.ts';
import { firstPage } from '../lib/page.ts';
import { Link } from '../lib/router.tsx';
import { api } from '../lib/session.ts';
import { AttemptOutcome } from './deliveries.tsx';
import { ErrorNotice } from './error-notice.tsx';
import { type Cursor, Pager } from './pager.tsx';
import { TableBox } from './table-box.tsx';
import { Status, Time } from './values.tsx';

/** Events read per page of the log; each costs one deliveries request. */
const EVENTS_PER_PAGE = 25;

interface LogRow {
  event: Event;
  delivery: Delivery;
}

/**
 * The API lists deliveries per event, not per endpoint: a page of the log is a page of the
 * merchant's events, newest first, and the deliveries of each that went to this endpoint.
 */
async function readLog(endpointId: string, cursor: Cursor): Promise<{ events: Page<Event>; rows: LogRow[] }> {
  const events = await firstPage(api().events.list({ limit: EVENTS_PER_PAGE, ...cursor }));
  const lists = await Promise.all(events.data.map((event) => api().events.deliveries(event.id) as Promise<Page<Delivery>>));
  const rows = lists.flatMap((list, i) =>
    list.data.filter((d) => d.webhook_endpoint_id === endpointId).map((delivery) => ({ event: events.data[i] as Event, delivery })),
  );
  return { events, rows };
}

function LogTable({ rows }: { rows: LogRow[] }) {
  const caption = 'Deliveries to this endpoint, newest first';
  return (
    <TableBox label={caption}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last status code</th>
            <th scope="col">Last attempt</th>
            <th scope="col">Next attempt</th>
            <th scope="col">Last response</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ event, delivery }) => {
            const last = delivery.attempts.at(-1);
            return (
              <tr key={delivery.id}>
                <td>
                  <Link to={`events/${event.id}`}>{event.type}</Link>
                </td>
                <td>
                  <Status status={delivery.status} />
                </td>
                <td class="num">{delivery.attempt_count}</td>
                <td class="num">{delivery.last_status_code ?? '—'}</td>
                <td>
                  <Time iso={last?.attempted_at} />
                </td>
                <td>
                  <Time iso={delivery.status === 'pending' ? delivery.next_attempt_at : null} />
                </td>
                <td>
                  <AttemptOutcome attempt={last} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableBox>
  );
}

/** An endpoint's delivery log: status, attempts, last status code and answer of each delivery to it. */
export function EndpointDeliveries({ endpointId }: { endpointId: string }) {
  const [cursor, setCursor] = useState<Cursor>({});
  const log = useQuery({
    queryKey: ['deliveries', 'endpoint', endpointId, cursor],
    queryFn: () => readLog(endpointId, cursor),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (attemptDueSoon(query.state.data?.rows.map((row) => row.delivery) ?? []) ? 2_000 : false),
  });
  return (
    <section aria-labelledby="log-heading">
      <h2 id="log-heading">Delivery log</h2>
      <p class="muted">
        Each page reads {EVENTS_PER_PAGE} of your account's events, newest first, and shows their deliveries to this endpoint.
      </p>
      <ErrorNotice error={log.error} />
      {log.data && log.data.rows.length === 0 && <p>No deliveries to this endpoint among these events.</p>}
      {log.data && log.data.rows.length > 0 && <LogTable rows={log.data.rows} />}
      <Pager cursor={cursor} page={log.data?.events} onChange={setCursor} />
    </section>
  );
}
