import type { Selectable } from 'kysely';
import type { ChargeStatus, CheckoutSessionsTable } from '../db/schema.ts';
import { formatAmount } from '../shared/money.ts';

export type SessionRow = Selectable<CheckoutSessionsTable>;

/** What the payer has paid, read off the payment that completed the session. */
export function paymentStatusOf(paymentState: ChargeStatus | null): 'unpaid' | 'authorized' | 'paid' {
  if (paymentState === 'succeeded') return 'paid';
  if (paymentState === 'requires_capture') return 'authorized';
  return 'unpaid';
}

/** The public session. `paymentState`: the status of the payment in payment_id (null when none). */
export function sessionView(row: SessionRow, url: string, paymentState: ChargeStatus | null) {
  return {
    id: row.id,
    object: 'checkout_session' as const,
    reference: row.reference,
    status: row.status,
    payment_status: paymentStatusOf(paymentState),
    url,
    amount: formatAmount(BigInt(row.amount), row.currency),
    currency: row.currency,
    payment_method_types: row.payment_method_types,
    capture_method: row.capture_method,
    success_url: row.success_url,
    cancel_url: row.cancel_url,
    payment_id: row.payment_id,
    payment_link: row.payment_link_id,
    customer: row.customer as Record<string, string> | null,
    description: row.description,
    metadata: row.metadata as Record<string, string>,
    livemode: row.livemode,
    expires_at: row.expires_at.toISOString(),
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at?.toISOString() ?? null,
  };
}

export type SessionView = ReturnType<typeof sessionView>;

/** The reference of attempt `n` of a session: a payment of the merchant like any other. */
export const attemptReference = (sessionReference: string, n: number) => `${sessionReference}/attempt-${n}`;
