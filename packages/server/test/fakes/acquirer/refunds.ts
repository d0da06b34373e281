// Refunds (docs.stripe.com/api/refunds, /refunds#failed-refunds): against a PaymentIntent (or its
// charge) that received money, up to what is left unrefunded; `pending` then `succeeded`, or
// `succeeded` then, rarely, `failed` (the money comes back to the merchant: charge.refund.updated,
// refund.updated and refund.failed). The test cards 4000000000007726 (pending, then succeeded)
// and 4000000000005126 (succeeded, then failed) do it by themselves after `refundSettleDelayMs`;
// the hooks `settleRefund` and `failRefund` do it to any refund.
import { type Answer, errorAnswer, noSuchObject } from './errors.ts';
import { chargeJson, type Intent, newId, type Refund, refundJson } from './objects.ts';
import { type AcquirerState, type Cause, NO_CAUSE } from './state.ts';

export interface RefundInput {
  account: string;
  intentId?: string;
  chargeId?: string;
  amount?: number;
  reason: string | null;
  metadata: Record<string, string>;
}

const notRefundable = (message: string, code: string, param?: string): Answer =>
  errorAnswer(400, { type: 'invalid_request_error', code, message, ...(param ? { param } : {}) });

function findIntent(state: AcquirerState, input: RefundInput): Intent | Answer {
  if (input.intentId !== undefined) {
    const intent = state.intents.get(input.intentId);
    if (!intent || intent.account !== input.account) return noSuchObject('payment_intent', input.intentId, 'payment_intent');
    if (input.chargeId !== undefined && intent.chargeId !== input.chargeId) {
      return notRefundable('The charge does not belong to this PaymentIntent.', 'parameter_invalid', 'charge');
    }
    return intent;
  }
  const charge = state.charges.get(input.chargeId as string);
  const intent = charge ? state.intents.get(charge.intentId) : undefined;
  if (!intent || intent.account !== input.account) return noSuchObject('charge', input.chargeId as string, 'charge');
  return intent;
}

function changeStatus(state: AcquirerState, refund: Refund, status: 'succeeded' | 'failed', reason: string | null, cause: Cause): void {
  const charge = state.charges.get(refund.chargeId);
  refund.status = status;
  if (status === 'failed') {
    refund.failureReason = reason ?? 'unknown';
    if (charge) charge.amountRefunded -= refund.amount;
    state.emit('refund.failed', refundJson(refund), cause);
  }
  state.emit('refund.updated', refundJson(refund), cause);
  state.emit('charge.refund.updated', refundJson(refund), cause);
}

export function createRefund(state: AcquirerState, input: RefundInput, cause: Cause): Answer {
  const found = findIntent(state, input);
  if (!('id' in found)) return found;
  const intent = found;
  const charge = state.chargeOf(intent);
  if (intent.status !== 'succeeded' || charge === undefined || !charge.captured) {
    return notRefundable(`This PaymentIntent (${intent.id}) does not have a successful charge to refund.`, 'charge_not_refundable');
  }
  const left =
    charge.amountCaptured -
    [...state.refunds.values()]
      .filter((r) => r.chargeId === charge.id && (r.status === 'pending' || r.status === 'succeeded'))
      .reduce((sum, r) => sum + r.amount, 0);
  if (left <= 0) return notRefundable(`Charge ${charge.id} has already been refunded.`, 'charge_already_refunded');
  const amount = input.amount ?? left;
  if (amount < 1) return notRefundable('Refund amount must be at least 1.', 'amount_too_small', 'amount');
  if (amount > left) {
    return notRefundable(`Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`, 'amount_too_large', 'amount');
  }
  const later = intent.card.scenario.kind === 'success' ? intent.card.scenario.refund : undefined;
  const refund: Refund = {
    id: newId('re'),
    account: input.account,
    intentId: intent.id,
    chargeId: charge.id,
    created: state.nowS(),
    amount,
    currency: intent.currency,
    status: later === 'pending' ? 'pending' : later === 'fails_later' ? 'succeeded' : state.options.refundInitialStatus,
    reason: input.reason,
    failureReason: null,
    metadata: input.metadata,
  };
  state.refunds.set(refund.id, refund);
  charge.amountRefunded += amount;
  state.record('refund', intent, refund.id);
  state.emit('refund.created', refundJson(refund), cause);
  state.emit('charge.refunded', chargeJson(charge, intent), cause);
  if (later === 'pending') state.later(state.options.refundSettleDelayMs, () => settleRefund(state, refund.id));
  if (later === 'fails_later')
    state.later(state.options.refundSettleDelayMs, () => failRefund(state, refund.id, 'expired_or_canceled_card'));
  return { status: 200, body: refundJson(refund) };
}

/** A pending refund reaches the card. */
export function settleRefund(state: AcquirerState, refundId: string): void {
  const refund = state.refunds.get(refundId);
  if (!refund) throw new Error(`fake acquirer: no refund ${refundId}`);
  if (refund.status !== 'pending') return;
  changeStatus(state, refund, 'succeeded', null, NO_CAUSE);
}

/** A refund that was pending or looked succeeded fails: its amount is refundable again. */
export function failRefund(state: AcquirerState, refundId: string, reason = 'expired_or_canceled_card'): void {
  const refund = state.refunds.get(refundId);
  if (!refund) throw new Error(`fake acquirer: no refund ${refundId}`);
  if (refund.status !== 'pending' && refund.status !== 'succeeded') return;
  changeStatus(state, refund, 'failed', reason, NO_CAUSE);
}
