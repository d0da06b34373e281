import type { Event } from '@purse/sdk';
import { useQuery } from '@tanstack/preact-query';
import { firstPage } from '../lib/page.ts';
import { Link } from '../lib/router.tsx';
import { api } from '../lib/session.ts';
import { Deliveries } from './deliveries.tsx';
import { ErrorNotice } from './error-notice.tsx';
import { Time } from './values.tsx';

/** An object's events, oldest first, each with its webhook deliveries. */
export function Timeline({ objectId }: { objectId: string }) {
  const events = useQuery({
    queryKey: ['events', 'of', objectId],
    queryFn: () => firstPage(api().events.list({ object_id: objectId, limit: 100 })),
  });
  return (
    <section aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">Timeline</h2>
      <ErrorNotice error={events.error} />
      {events.data?.data.length === 0 && <p>No events.</p>}
      <ol class="timeline">
        {[...(events.data?.data ?? [])].reverse().map((event: Event) => (
          <li key={event.id}>
            <h3>
              <Link to={`events/${event.id}`}>{event.type}</Link> <Time iso={event.created_at} />
            </h3>
            <Deliveries eventId={event.id} />
          </li>
        ))}
      </ol>
    </section>
  );
}
