import type { Selectable } from 'kysely';
import type { ChargesTable } from '../db/schema.ts';
import { lateOutcomeView } from '../events/late-outcome.ts';
import { present } from '../shared/invariant.ts';
import { formatAmount } from '../shared/money.ts';

export type ChargeRow = Selectable<ChargesTable>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function common(row: ChargeRow) {
  return {
    reference: row.reference,
    status: row.status,
    amount: formatAmount(BigInt(row.amount), row.currency),
    currency: row.currency,
    description: row.description,
    metadata: row.metadata as Record<string, string>,
    failure: row.failure_code ? { code: row.failure_code, message: row.failure_message ?? '' } : null,
    provider_reference: row.provider_reference,
    callback_url: row.callback_url,
    livemode: row.livemode,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    completed_at: iso(row.completed_at),
    expires_at: iso(row.expires_at),
    late_outcome: lateOutcomeView(row.late_outcome),
  };
}

/** The public object: a payment or a top-up, always with the same keys. */
export function chargeView(row: ChargeRow) {
  if (row.kind === 'payment') {
    return {
      id: row.id,
      object: 'payment' as const,
      ...common(row),
      amount_refunded: formatAmount(BigInt(row.amount_refunded), row.currency),
      payment_method: row.method,
      customer: row.customer ?? null,
    };
  }
  return {
    id: row.id,
    object: 'topup' as const,
    ...common(row),
    wallet_id: present(row.wallet_id, 'top-up wallet_id'),
    source: row.method,
  };
}

export type ChargeView = ReturnType<typeof chargeView>;
