import type { Payment } from '@purse/sdk';
import { useQuery } from '@tanstack/preact-query';
import { CardActions } from '../components/card-actions.tsx';
import { ErrorNotice } from '../components/error-notice.tsx';
import { Fields, RawJson } from '../components/fields.tsx';
import { MovementTable } from '../components/movement-table.tsx';
import { RefundForm } from '../components/refund-form.tsx';
import { SANDBOX_RIGHT, SandboxControls } from '../components/sandbox-controls.tsx';
import { Timeline } from '../components/timeline.tsx';
import { Money, Status } from '../components/values.tsx';
import { KINDS, type MovementKind } from '../lib/kinds.ts';
import { refundable } from '../lib/money.ts';
import { firstPage } from '../lib/page.ts';
import { can } from '../lib/rights.ts';
import { api } from '../lib/session.ts';

const WAITING = new Set(['pending', 'requires_action']);

function PaymentRefunds({ payment }: { payment: Payment }) {
  const refunds = useQuery({
    queryKey: ['refunds', 'of', payment.id],
    queryFn: () => firstPage(api().refunds.list({ payment_id: payment.id, limit: 100 })),
  });
  return (
    <section aria-labelledby="refunds-heading">
      <h2 id="refunds-heading">Refunds</h2>
      <ErrorNotice error={refunds.error} />
      {refunds.data && <MovementTable kind="refunds" rows={refunds.data.data} caption="Refunds of this payment" />}
    </section>
  );
}

export function MovementDetail({ kind, id }: { kind: MovementKind; id: string }) {
  const info = KINDS[kind];
  const movement = useQuery({
    queryKey: [kind, 'one', id],
    queryFn: () => info.resource(api()).retrieve(id),
    // A pending object settles on its own (the provider answers), and a payment waiting for 3-D Secure
    // moves when the payer finishes it: show it when it does.
    refetchInterval: (query) => (WAITING.has(query.state.data?.status ?? '') ? 2_000 : false),
  });
  const object = movement.data;
  const payment = kind === 'payments' ? (object as Payment | undefined) : undefined;
  const left = payment?.status === 'succeeded' ? refundable(payment) : null;
  return (
    <>
      <h1 tabIndex={-1}>
        {info.singular} {object?.reference ?? id}
      </h1>
      <ErrorNotice error={movement.error} />
      {object && (
        <>
          <p class="headline">
            <Money amount={object.amount} currency={object.currency} /> <Status status={object.status} />
          </p>
          <div class="actions">
            {payment && left !== null && /[1-9]/.test(left) && can('refunds') && <RefundForm payment={payment} refundable={left} />}
            {payment && can('payments') && <CardActions payment={payment} />}
            {object.status === 'pending' && !object.livemode && can(SANDBOX_RIGHT[kind]) && <SandboxControls kind={kind} id={object.id} />}
          </div>
          <section aria-labelledby="fields-heading">
            <h2 id="fields-heading">Fields</h2>
            <Fields object={object as unknown as Record<string, unknown>} />
          </section>
          {payment && <PaymentRefunds payment={payment} />}
          <Timeline objectId={object.id} />
          <RawJson object={object} />
        </>
      )}
    </>
  );
}
