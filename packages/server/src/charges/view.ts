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

/** What was received: the captured amount, the whole amount of an automatic success, else nothing. */
export function receivedMinor(row: ChargeRow): bigint {
  if (row.status !== 'succeeded') return 0n;
  return BigInt(row.amount_received ?? row.amount);
}

/** A card's stored description, with what 3-D Secure decided once it is known. */
function paymentMethodView(row: ChargeRow): unknown {
  if (row.method_type !== 'card') return row.method;
  const method = row.method as { type: 'card'; card: Record<string, unknown> };
  const result = row.three_d_secure;
  return { ...method, card: { ...method.card, three_d_secure: result ? { result } : null } };
}

/** A payment's card fields (§ cards): capture, the next action, cancellation. */
function cardFields(row: ChargeRow) {
  const capturable = row.status === 'requires_capture' ? BigInt(row.amount_capturable ?? row.amount) : 0n;
  return {
    capture_method: row.capture_method,
    amount_capturable: formatAmount(capturable, row.currency),
    amount_received: formatAmount(receivedMinor(row), row.currency),
    capture_before: row.status === 'requires_capture' ? iso(row.capture_before) : null,
    next_action: row.status === 'requires_action' ? (row.next_action ?? null) : null,
    cancellation_reason: row.cancellation_reason,
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
      ...cardFields(row),
      payment_method: paymentMethodView(row),
      customer: row.customer ?? null,
    };
  }
  return {
    id: row.id,
    object: 'topup' as const,
    ...common(row),
    wallet_id: present(row.wallet_id, 'top-up wallet_id'),
    source: paymentMethodView(row),
    next_action: row.status === 'requires_action' ? (row.next_action ?? null) : null,
  };
}

export type ChargeView = ReturnType<typeof chargeView>;
