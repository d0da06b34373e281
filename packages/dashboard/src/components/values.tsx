import { formatMoney } from '../lib/money.ts';
import { formatLocal, formatUtc } from '../lib/time.ts';

export function Money({ amount, currency }: { amount: string; currency: string }) {
  return <span class="money">{formatMoney(amount, currency)}</span>;
}

/** The browser's zone on screen; UTC on hover. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">—</span>;
  return (
    <time dateTime={iso} title={formatUtc(iso)}>
      {formatLocal(iso)}
    </time>
  );
}

export function Status({ status }: { status: string }) {
  return <span class={`status status-${status}`}>{status}</span>;
}
