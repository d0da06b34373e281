// What happens to a PaymentIntent (docs.stripe.com/api/payment_intents, /payments/place-a-hold-
// on-a-payment-method): created and confirmed at once with card data, authorised or declined (a
// decline is a 402 card_error carrying the intent, now requires_payment_method), or sent to a
// 3-D Secure challenge (requires_action); captured in full or in part from requires_capture (the
// rest is released), canceled from the states Stripe allows, and canceled `automatic` when a hold
// is not captured before `capture_before` (7 days).
import { randomBytes } from 'node:crypto';
import { type CardFacts, DECLINE_AFTER_CHALLENGE, type Decline } from './cards.ts';
import { type Answer, errorAnswer, unexpectedState } from './errors.ts';
import { type CaptureMethod, type Charge, chargeJson, type Intent, newId, paymentMethodJson } from './objects.ts';
import type { AcquirerState, Cause } from './state.ts';

export interface CreateInput {
  account: string;
  amount: number;
  currency: string;
  captureMethod: CaptureMethod;
  returnUrl: string | null;
  description: string | null;
  metadata: Record<string, string>;
  card: CardFacts;
  expand: ReadonlySet<string>;
}

const CANCELABLE = ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action', 'processing'];

function newCharge(state: AcquirerState, intent: Intent, status: Charge['status']): Charge {
  const charge: Charge = {
    id: newId('ch'),
    intentId: intent.id,
    created: state.nowS(),
    amount: intent.amount,
    amountCaptured: 0,
    amountRefunded: 0,
    captured: false,
    status,
    failure: null,
    captureBefore: null,
  };
  state.charges.set(charge.id, charge);
  intent.chargeId = charge.id;
  return charge;
}

/** The card is authorised: captured at once, or held until `capture_before` for manual capture. */
function authorise(state: AcquirerState, intent: Intent, cause: Cause): void {
  const charge = newCharge(state, intent, 'succeeded');
  intent.challengeToken = null;
  intent.lastPaymentError = null;
  if (intent.captureMethod === 'manual') {
    intent.status = 'requires_capture';
    intent.amountCapturable = intent.amount;
    charge.captureBefore = charge.created + state.options.holdDays * 86_400;
    state.emit('charge.succeeded', chargeJson(charge, intent), cause);
    state.emit('payment_intent.amount_capturable_updated', state.intentJson(intent), cause);
    return;
  }
  intent.status = 'succeeded';
  intent.amountReceived = intent.amount;
  charge.captured = true;
  charge.amountCaptured = intent.amount;
  state.emit('charge.succeeded', chargeJson(charge, intent), cause);
  state.emit('payment_intent.succeeded', state.intentJson(intent), cause);
}

/** The issuer declined: the charge failed and the intent waits for another payment method. */
function decline(state: AcquirerState, intent: Intent, reason: Decline, cause: Cause): Charge {
  const charge = newCharge(state, intent, 'failed');
  const error = { type: 'card_error' as const, code: reason.code, message: reason.message };
  charge.failure = { ...error, ...(reason.declineCode ? { decline_code: reason.declineCode } : {}) };
  intent.status = 'requires_payment_method';
  intent.challengeToken = null;
  intent.lastPaymentError = { ...charge.failure, ...(reason.param ? { param: reason.param } : {}) };
  state.emit('charge.failed', chargeJson(charge, intent), cause);
  state.emit('payment_intent.payment_failed', state.intentJson(intent), cause);
  return charge;
}

export function createIntent(state: AcquirerState, input: CreateInput, cause: Cause): Answer {
  const id = newId('pi');
  const intent: Intent = {
    id,
    account: input.account,
    clientSecret: `${id}_secret_${randomBytes(12).toString('base64url')}`,
    created: state.nowS(),
    createdMs: state.nowMs(),
    amount: input.amount,
    currency: input.currency,
    captureMethod: input.captureMethod,
    status: 'requires_confirmation',
    amountCapturable: 0,
    amountReceived: 0,
    description: input.description,
    metadata: input.metadata,
    returnUrl: input.returnUrl,
    card: input.card,
    paymentMethodId: newId('pm'),
    chargeId: null,
    canceledAt: null,
    cancellationReason: null,
    lastPaymentError: null,
    challengeToken: null,
    threeDSecure: null,
  };
  state.intents.set(id, intent);
  state.record('authorisation', intent);
  state.emit('payment_intent.created', state.intentJson(intent), cause);
  const { scenario } = input.card;
  if (scenario.kind === 'challenge') {
    intent.status = 'requires_action';
    intent.challengeToken = randomBytes(18).toString('base64url');
    state.challenges.set(intent.challengeToken, id);
    state.emit('payment_intent.requires_action', state.intentJson(intent), cause);
  } else if (scenario.kind === 'decline') {
    const charge = decline(state, intent, scenario.decline, cause);
    return errorAnswer(402, {
      type: 'card_error',
      code: scenario.decline.code,
      ...(scenario.decline.declineCode ? { decline_code: scenario.decline.declineCode } : {}),
      message: scenario.decline.message,
      ...(scenario.decline.param ? { param: scenario.decline.param } : {}),
      charge: charge.id,
      payment_intent: state.intentJson(intent, input.expand),
      payment_method: paymentMethodJson(intent),
    });
  } else {
    if (scenario.kind === 'frictionless') intent.threeDSecure = 'authenticated';
    authorise(state, intent, cause);
  }
  return { status: 200, body: state.intentJson(intent, input.expand) };
}

/** The payer's answer on the challenge page. Only an open challenge changes anything. */
export function finishChallenge(state: AcquirerState, intent: Intent, outcome: 'complete' | 'fail' | 'expire', cause: Cause): void {
  if (intent.status !== 'requires_action' || intent.challengeToken === null) return;
  if (outcome !== 'complete') {
    intent.threeDSecure = 'failed';
    intent.status = 'requires_payment_method';
    intent.challengeToken = null;
    intent.lastPaymentError = {
      type: 'invalid_request_error',
      code: 'payment_intent_authentication_failure',
      message:
        outcome === 'fail'
          ? 'The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.'
          : 'The 3D Secure authentication was not completed in time (abandoned).',
    };
    state.emit('payment_intent.payment_failed', state.intentJson(intent), cause);
    return;
  }
  intent.threeDSecure = 'authenticated';
  const { scenario } = intent.card;
  if (scenario.kind === 'challenge' && scenario.afterChallenge === 'decline') decline(state, intent, DECLINE_AFTER_CHALLENGE, cause);
  else authorise(state, intent, cause);
}

export function captureIntent(
  state: AcquirerState,
  intent: Intent,
  input: { amountToCapture?: number; metadata: Record<string, string>; expand: ReadonlySet<string> },
  cause: Cause,
): Answer {
  const charge = state.chargeOf(intent);
  if (intent.status !== 'requires_capture' || charge === undefined) {
    return unexpectedState(
      `This PaymentIntent could not be captured because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
      state.intentJson(intent),
    );
  }
  const amount = input.amountToCapture ?? intent.amountCapturable;
  if (amount < 1 || amount > intent.amountCapturable) {
    return errorAnswer(400, {
      type: 'invalid_request_error',
      code: amount < 1 ? 'amount_too_small' : 'amount_too_large',
      param: 'amount_to_capture',
      message: `The amount to capture must be between 1 and the amount capturable (${intent.amountCapturable}).`,
    });
  }
  Object.assign(intent.metadata, input.metadata);
  charge.captured = true;
  charge.amountCaptured = amount;
  charge.amountRefunded = intent.amountCapturable - amount;
  charge.captureBefore = null;
  intent.amountReceived = amount;
  intent.amountCapturable = 0;
  intent.status = 'succeeded';
  state.record('capture', intent);
  state.emit('charge.captured', chargeJson(charge, intent), cause);
  state.emit('payment_intent.succeeded', state.intentJson(intent), cause);
  return { status: 200, body: state.intentJson(intent, input.expand) };
}

/** Ends the intent; an uncaptured authorisation is released. */
function markCanceled(state: AcquirerState, intent: Intent, reason: string | null): void {
  const charge = state.chargeOf(intent);
  if (charge && intent.status === 'requires_capture') {
    charge.amountRefunded = charge.amount;
    charge.captureBefore = null;
  }
  intent.challengeToken = null;
  intent.status = 'canceled';
  intent.amountCapturable = 0;
  intent.canceledAt = state.nowS();
  intent.cancellationReason = reason;
}

export function cancelIntent(
  state: AcquirerState,
  intent: Intent,
  input: { reason: string | null; expand: ReadonlySet<string> },
  cause: Cause,
): Answer {
  if (!CANCELABLE.includes(intent.status)) {
    return unexpectedState(
      `You cannot cancel this PaymentIntent because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELABLE.join(', ')}.`,
      state.intentJson(intent),
    );
  }
  markCanceled(state, intent, input.reason);
  state.record('cancel', intent);
  state.emit('payment_intent.canceled', state.intentJson(intent), cause);
  return { status: 200, body: state.intentJson(intent, input.expand) };
}

/** An authorisation not captured in time: released, and the intent canceled `automatic`. */
export function expireHold(state: AcquirerState, intent: Intent, cause: Cause): boolean {
  const charge = state.chargeOf(intent);
  if (intent.status !== 'requires_capture' || charge === undefined) return false;
  markCanceled(state, intent, 'automatic');
  state.record('hold_expiry', intent);
  state.emit('charge.expired', chargeJson(charge, intent), cause);
  state.emit('payment_intent.canceled', state.intentJson(intent), cause);
  return true;
}

/** Applies the clock: lapsed holds expire, and (when configured) abandoned challenges fail. */
export function sweep(state: AcquirerState, cause: Cause): void {
  const now = state.nowS();
  const ttl = state.options.challengeTtlMs;
  for (const intent of state.intents.values()) {
    const captureBefore = state.chargeOf(intent)?.captureBefore;
    if (intent.status === 'requires_capture' && captureBefore != null && captureBefore <= now) expireHold(state, intent, cause);
    if (intent.status === 'requires_action' && ttl !== null && intent.createdMs + ttl <= state.nowMs()) {
      finishChallenge(state, intent, 'expire', cause);
    }
  }
}
