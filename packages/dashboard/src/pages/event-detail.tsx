import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { Deliveries } from '../components/deliveries.tsx';
import { ErrorNotice } from '../components/error-notice.tsx';
import { Fields, RawJson } from '../components/fields.tsx';
import { Time } from '../components/values.tsx';
import { objectName } from '../lib/labels.ts';
import { can } from '../lib/rights.ts';
import { Link } from '../lib/router.tsx';
import { api } from '../lib/session.ts';

/** Where each kind of object an event carries has its own page. */
const PAGES: Record<string, string> = {
  payment: 'payments',
  topup: 'topups',
  refund: 'refunds',
  payout: 'payouts',
  transfer: 'transfers',
  wallet: 'wallets',
  webhook_endpoint: 'webhooks',
};

/** The object an event carried, labelled like its own page, with a link to that page. */
function EventObject({ object }: { object: Record<string, unknown> }) {
  const kind = typeof object.object === 'string' ? object.object : 'object';
  const page = PAGES[kind];
  const name = objectName(kind).toLowerCase();
  return (
    <section aria-labelledby="data-heading">
      <h2 id="data-heading">The {name} as the event carried it</h2>
      {page && typeof object.id === 'string' && (
        <p>
          <Link to={`${page}/${object.id}`}>Open the {name} as it is now</Link>
        </p>
      )}
      <Fields object={object} />
    </section>
  );
}

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
          {can('webhooks') && (
            <div class="actions">
              <button type="button" disabled={redeliver.isPending} onClick={() => redeliver.mutate()}>
                Redeliver
              </button>
            </div>
          )}
          <ErrorNotice error={redeliver.error} />
          {redeliver.isSuccess && <p role="status">Sent again to every endpoint of the event.</p>}
          <section aria-labelledby="deliveries-heading">
            <h2 id="deliveries-heading">Webhook deliveries</h2>
            <Deliveries eventId={id} />
          </section>
          <EventObject object={event.data.data.object} />
          <RawJson object={event.data} />
        </>
      )}
    </>
  );
}
