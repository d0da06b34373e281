// What the reference servers (bench/baseline-server.ts, bench/group-commit-server.ts,
// bench/minimal-server.ts) share: the request they accept, the amount and fingerprint helpers, and
// the payment as the API shows it.
import { createHash } from 'node:crypto';

/** POST /payments: a wallet payment, as the bench sends it. */
export interface Body {
  reference: string;
  amount: string;
  currency: string;
  payment_method: { type: 'wallet'; wallet: { wallet_id: string } };
}

export const hash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('base64url');
export const minor = (amount: string) => BigInt(amount.replace('.', '')); // "1.00" → 100 (2-digit currencies only)
export const major = (value: string | bigint) => {
  const s = value.toString().padStart(3, '0');
  return `${s.slice(0, -2)}.${s.slice(-2)}`;
};
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The payment as the API shows it, from a charges row. */
export function view(row: Record<string, any>) {
  return {
    id: row.id,
    object: 'payment',
    reference: row.reference,
    status: row.status,
    amount: major(row.amount),
    currency: row.currency,
    description: row.description,
    metadata: row.metadata,
    failure: row.failure_code ? { code: row.failure_code, message: row.failure_message ?? '' } : null,
    provider_reference: row.provider_reference,
    callback_url: row.callback_url,
    livemode: row.livemode,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    completed_at: iso(row.completed_at),
    expires_at: iso(row.expires_at),
    payment_method: row.method,
    customer: row.customer ?? null,
  };
}
