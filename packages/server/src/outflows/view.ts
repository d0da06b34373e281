import type { Selectable } from 'kysely';
import type { OutflowsTable } from '../db/schema.ts';
import { lateOutcomeView } from '../events/late-outcome.ts';
import { formatAmount } from '../shared/money.ts';

export type OutflowRow = Selectable<OutflowsTable>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function common(row: OutflowRow) {
  return {
    reference: row.reference,
    status: row.status,
    amount: formatAmount(BigInt(row.amount), row.currency),
    currency: row.currency,
    destination: row.destination as Record<string, unknown>,
    failure: row.failure_code ? { code: row.failure_code, message: row.failure_message ?? '' } : null,
    provider_reference: row.provider_reference,
    description: row.description,
    metadata: row.metadata as Record<string, string>,
    callback_url: row.callback_url,
    late_outcome: lateOutcomeView(row.late_outcome),
    livemode: row.livemode,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    completed_at: iso(row.completed_at),
  };
}

/** The public object: a refund (with its payment and reason) or a payout, always with the same keys. */
export function outflowView(row: OutflowRow) {
  if (row.kind === 'refund') {
    return { id: row.id, object: 'refund' as const, payment_id: row.payment_id, reason: row.reason, ...common(row) };
  }
  return { id: row.id, object: 'payout' as const, ...common(row) };
}

export type OutflowView = ReturnType<typeof outflowView>;
