import type { Payment } from '@purse/sdk';
import { useMutation, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { formatMoney } from '../lib/money.ts';
import { api } from '../lib/session.ts';
import { ErrorNotice } from './error-notice.tsx';

/**
 * Refund: the amount is prefilled with what is still refundable, and a second step confirms it.
 * The reference is drawn when the form opens, so a repeated click replays the same refund.
 */
export function RefundForm({ payment, refundable }: { payment: Payment; refundable: string }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [amount, setAmount] = useState(refundable);
  const [confirming, setConfirming] = useState(false);
  const [reference] = useState(() => `refund-${crypto.randomUUID()}`);
  const refund = useMutation({
    mutationFn: () => api().refunds.create({ reference, payment_id: payment.id, amount }),
    onSuccess: () => {
      setOpen(false);
      void queryClient.invalidateQueries({ queryKey: ['payments'] });
      void queryClient.invalidateQueries({ queryKey: ['refunds'] });
      void queryClient.invalidateQueries({ queryKey: ['events'] });
      void queryClient.invalidateQueries({ queryKey: ['balance'] });
    },
  });
  if (!open)
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Refund
      </button>
    );
  return (
    <form
      class="panel stacked"
      onSubmit={(event) => {
        event.preventDefault();
        if (confirming) refund.mutate();
        else setConfirming(true);
      }}
    >
      <label for="refund-amount">Amount to refund ({payment.currency})</label>
      <input
        id="refund-amount"
        required
        inputMode="decimal"
        pattern="[0-9]+(\.[0-9]+)?"
        value={amount}
        readOnly={confirming}
        onInput={(e) => setAmount(e.currentTarget.value)}
      />
      {confirming && <p role="status">Refund {formatMoney(amount, payment.currency)} to the payer? This cannot be undone.</p>}
      <div class="actions">
        <button type="submit" class={confirming ? 'danger' : undefined} disabled={refund.isPending}>
          {confirming ? 'Confirm refund' : 'Continue'}
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setOpen(false);
            setConfirming(false);
          }}
        >
          Cancel
        </button>
      </div>
      <ErrorNotice error={refund.error} />
    </form>
  );
}
