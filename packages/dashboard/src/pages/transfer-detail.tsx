import { useQuery } from '@tanstack/preact-query';
import { ErrorNotice } from '../components/error-notice.tsx';
import { Fields, RawJson } from '../components/fields.tsx';
import { Timeline } from '../components/timeline.tsx';
import { Money, Status } from '../components/values.tsx';
import { api } from '../lib/session.ts';

/** One transfer (GET /v1/transfers/{id}): its fields in words, both wallets linked, its event and deliveries. */
export function TransferDetail({ id }: { id: string }) {
  const transfer = useQuery({ queryKey: ['transfers', 'one', id], queryFn: () => api().transfers.retrieve(id) });
  const object = transfer.data;
  return (
    <>
      <h1 tabIndex={-1}>Transfer {object?.reference ?? id}</h1>
      <ErrorNotice error={transfer.error} />
      {object && (
        <>
          <p class="headline">
            <Money amount={object.amount} currency={object.currency} /> <Status status={object.status} />
          </p>
          <section aria-labelledby="fields-heading">
            <h2 id="fields-heading">Fields</h2>
            <Fields object={object as unknown as Record<string, unknown>} />
          </section>
          <Timeline objectId={object.id} />
          <RawJson object={object} />
        </>
      )}
    </>
  );
}
