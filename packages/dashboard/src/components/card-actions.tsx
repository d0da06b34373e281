import type { Payment } from '@purse/sdk';
import { type QueryClient, useMutation, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { formatMoney } from '../lib/money.ts';
import { api } from '../lib/session.ts';
import { ErrorNotice } from './error-notice.tsx';
import { Time } from './values.tsx';

const REASONS = [
  ['requested_by_customer', 'Requested by customer'],
  ['duplicate', 'Duplicate'],
  ['fraudulent', 'Fraudulent'],
] as const;
type CancelReason = (typeof REASONS)[number][0];
const AMOUNT = /^[0-9]+(\.[0-9]+)?$/;

/** The answer is the payment in its new state: show it at once, then refresh what it changed. */
function applied(queryClient: QueryClient, payment: Payment): void {
  queryClient.setQueryData(['payments', 'one', payment.id], payment);
  void queryClient.invalidateQueries({ queryKey: ['payments'] });
  void queryClient.invalidateQueries({ queryKey: ['events'] });
  void queryClient.invalidateQueries({ queryKey: ['balance'] });
}

/** Capture of a held card payment: the amount prefilled with all that can be captured. */
function CaptureForm({ payment }: { payment: Payment }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [amount, setAmount] = useState(payment.amount_capturable);
  const capture = useMutation({
    mutationFn: () => api().payments.capture(payment.id, { amount }),
    onSuccess: (answer) => {
      setOpen(false);
      applied(queryClient, answer);
    },
  });
  if (!open)
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Capture
      </button>
    );
  return (
    <form
      class="panel stacked"
      onSubmit={(event) => {
        event.preventDefault();
        capture.mutate();
      }}
    >
      <label for="capture-amount">Amount to capture ({payment.currency})</label>
      <input
        id="capture-amount"
        required
        inputMode="decimal"
        pattern="[0-9]+(\.[0-9]+)?"
        aria-describedby="capture-hint"
        value={amount}
        onInput={(e) => setAmount(e.currentTarget.value)}
      />
      <p id="capture-hint" class="hint">
        Up to {formatMoney(payment.amount_capturable, payment.currency)}. Capturing less releases the rest to the payer: it cannot be
        captured later.
        {payment.capture_before && (
          <>
            {' '}
            Capture before <Time iso={payment.capture_before} />, or the hold is canceled.
          </>
        )}
      </p>
      <div class="actions">
        <button type="submit" disabled={capture.isPending}>
          Capture {AMOUNT.test(amount) ? formatMoney(amount, payment.currency) : ''}
        </button>
        <button type="button" class="secondary" onClick={() => setOpen(false)}>
          Close
        </button>
      </div>
      <ErrorNotice error={capture.error} />
    </form>
  );
}

/** Cancel: a reason, then a second step that says what it does, as a refund's confirmation does. */
function CancelForm({ payment }: { payment: Payment }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState<CancelReason>('requested_by_customer');
  const [confirming, setConfirming] = useState(false);
  const cancel = useMutation({
    mutationFn: () => api().payments.cancel(payment.id, { reason }),
    onSuccess: (answer) => {
      setOpen(false);
      applied(queryClient, answer);
    },
  });
  if (!open)
    return (
      <button type="button" class="danger" onClick={() => setOpen(true)}>
        Cancel payment
      </button>
    );
  const close = () => {
    setOpen(false);
    setConfirming(false);
  };
  return (
    <form
      class="panel stacked"
      onSubmit={(event) => {
        event.preventDefault();
        if (confirming) cancel.mutate();
        else setConfirming(true);
      }}
    >
      <label for="cancel-reason">Cancellation reason</label>
      <select id="cancel-reason" value={reason} disabled={confirming} onChange={(e) => setReason(e.currentTarget.value as typeof reason)}>
        {REASONS.map(([value, words]) => (
          <option key={value} value={value}>
            {words}
          </option>
        ))}
      </select>
      {confirming && (
        <p role="status">
          Cancel this payment of {formatMoney(payment.amount, payment.currency)}?{' '}
          {payment.status === 'requires_capture'
            ? 'The hold on the payer’s card is released'
            : 'The payer can no longer complete 3-D Secure'}
          , and this cannot be undone.
        </p>
      )}
      <div class="actions">
        <button type="submit" class="danger" disabled={cancel.isPending}>
          {confirming ? 'Confirm cancellation' : 'Continue'}
        </button>
        <button type="button" class="secondary" onClick={close}>
          Keep the payment
        </button>
      </div>
      <ErrorNotice error={cancel.error} />
    </form>
  );
}

/**
 * What a merchant can do with a card payment on its way: capture or cancel a held one
 * (requires_capture); cancel one waiting for 3-D Secure (requires_action), or open its page.
 */
export function CardActions({ payment }: { payment: Payment }) {
  const challenge = payment.status === 'requires_action' ? payment.next_action?.redirect_to_url.url : undefined;
  if (payment.status !== 'requires_capture' && payment.status !== 'requires_action') return null;
  return (
    <>
      {payment.status === 'requires_capture' && <CaptureForm payment={payment} />}
      <CancelForm payment={payment} />
      {challenge && (
        <a class="button secondary" href={challenge} target="_blank" rel="noopener noreferrer">
          Open 3-D Secure page
        </a>
      )}
    </>
  );
}
