import { useMutation, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { Link } from '../lib/router.tsx';
import { api } from '../lib/session.ts';
import { ErrorNotice } from './error-notice.tsx';

/** A new payout from the collected balance, to a phone (mobile money) or one of the merchant's wallets. */
export function PayoutForm() {
  const queryClient = useQueryClient();
  const [destination, setDestination] = useState<'mobile_money' | 'wallet'>('mobile_money');
  // One reference per form: a double click or a retried request replays instead of paying twice.
  const [reference, setReference] = useState(() => `payout-${crypto.randomUUID()}`);
  const create = useMutation({
    mutationFn: (data: FormData) => {
      const to = String(data.get('to')).trim();
      return api().payouts.create({
        reference: String(data.get('reference')).trim(),
        amount: String(data.get('amount')).trim(),
        currency: String(data.get('currency')).trim().toUpperCase(),
        destination:
          destination === 'wallet'
            ? { type: 'wallet', wallet: { wallet_id: to } }
            : { type: 'mobile_money', mobile_money: { phone_number: to } },
      });
    },
    onSuccess: () => {
      setReference(`payout-${crypto.randomUUID()}`);
      void queryClient.invalidateQueries({ queryKey: ['payouts'] });
      void queryClient.invalidateQueries({ queryKey: ['balance'] });
    },
  });
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    create.mutate(new FormData(event.currentTarget as HTMLFormElement));
  };
  return (
    <details class="panel">
      <summary>Create a payout</summary>
      <form class="stacked" onSubmit={submit}>
        <label for="po-reference">Reference</label>
        <input id="po-reference" name="reference" required value={reference} onInput={(e) => setReference(e.currentTarget.value)} />
        <label for="po-amount">Amount</label>
        <input id="po-amount" name="amount" required inputMode="decimal" pattern="[0-9]+(\.[0-9]+)?" />
        <label for="po-currency">Currency</label>
        <input id="po-currency" name="currency" required maxLength={3} />
        <label for="po-destination">Destination</label>
        <select id="po-destination" value={destination} onChange={(e) => setDestination(e.currentTarget.value as typeof destination)}>
          <option value="mobile_money">mobile money</option>
          <option value="wallet">wallet</option>
        </select>
        <label for="po-to">{destination === 'wallet' ? 'Wallet id' : 'Phone number (E.164)'}</label>
        <input id="po-to" name="to" required />
        <button type="submit" class="danger" disabled={create.isPending}>
          Create payout
        </button>
      </form>
      <ErrorNotice error={create.error} />
      {create.data && (
        <p role="status">
          Payout <Link to={`payouts/${create.data.id}`}>{create.data.reference}</Link>: {create.data.status}
          {create.data.failure ? ` (${create.data.failure.code})` : ''}.
        </p>
      )}
    </details>
  );
}
