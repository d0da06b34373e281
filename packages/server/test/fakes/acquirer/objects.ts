// The fake's records and how each renders as the Stripe object it stands for (PaymentIntent,
// Charge, Refund). The records hold amounts in minor units, times in unix seconds, and of the card
// only its brand, last four digits and expiry.
import { randomBytes } from 'node:crypto';
import type { CardFacts } from './cards.ts';

export type IntentStatus =
  | 'requires_payment_method'
  | 'requires_confirmation'
  | 'requires_action'
  | 'processing'
  | 'requires_capture'
  | 'succeeded'
  | 'canceled';
export type CaptureMethod = 'automatic' | 'automatic_async' | 'manual';

export interface PaymentError {
  type: 'card_error' | 'invalid_request_error';
  code: string;
  decline_code?: string;
  message: string;
  param?: string;
}

export interface Intent {
  id: string;
  /** Which secret key's account owns it: another key sees 404. */
  account: string;
  clientSecret: string;
  created: number;
  /** Creation on the fake's clock in milliseconds (search lag and challenge expiry count from it). */
  createdMs: number;
  amount: number;
  currency: string;
  captureMethod: CaptureMethod;
  status: IntentStatus;
  amountCapturable: number;
  amountReceived: number;
  description: string | null;
  metadata: Record<string, string>;
  returnUrl: string | null;
  card: CardFacts;
  paymentMethodId: string;
  chargeId: string | null;
  canceledAt: number | null;
  cancellationReason: string | null;
  lastPaymentError: PaymentError | null;
  /** The challenge page's token while a challenge is open. */
  challengeToken: string | null;
  threeDSecure: 'authenticated' | 'attempt_acknowledged' | 'failed' | null;
}

export interface Charge {
  id: string;
  intentId: string;
  created: number;
  amount: number;
  amountCaptured: number;
  amountRefunded: number;
  captured: boolean;
  status: 'succeeded' | 'failed';
  failure: PaymentError | null;
  /** Set while an authorisation waits for capture: when it lapses (unix seconds). */
  captureBefore: number | null;
}

export type RefundStatus = 'pending' | 'succeeded' | 'failed' | 'canceled';

export interface Refund {
  id: string;
  account: string;
  intentId: string;
  chargeId: string;
  created: number;
  amount: number;
  currency: string;
  status: RefundStatus;
  reason: string | null;
  failureReason: string | null;
  metadata: Record<string, string>;
}

export const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;

function paymentMethodDetails(intent: Intent, charge: Charge) {
  return {
    type: 'card',
    card: {
      brand: intent.card.brand,
      last4: intent.card.last4,
      exp_month: intent.card.expMonth,
      exp_year: intent.card.expYear,
      funding: intent.card.funding,
      country: 'US',
      capture_before: charge.captureBefore,
      three_d_secure: intent.threeDSecure === null ? null : { result: intent.threeDSecure, version: '2.2.0' },
    },
  };
}

export function chargeJson(charge: Charge, intent: Intent) {
  return {
    id: charge.id,
    object: 'charge',
    amount: charge.amount,
    amount_captured: charge.amountCaptured,
    amount_refunded: charge.amountRefunded,
    captured: charge.captured,
    created: charge.created,
    currency: intent.currency,
    failure_code: charge.failure?.code ?? null,
    failure_message: charge.failure?.message ?? null,
    livemode: false,
    metadata: intent.metadata,
    outcome:
      charge.status === 'succeeded'
        ? {
            network_status: 'approved_by_network',
            reason: null,
            risk_level: 'normal',
            seller_message: 'Payment complete.',
            type: 'authorized',
          }
        : {
            network_status: 'declined_by_network',
            reason: charge.failure?.decline_code ?? charge.failure?.code ?? null,
            risk_level: 'normal',
            seller_message: 'The bank did not return any further details with this decline.',
            type: 'issuer_declined',
          },
    paid: charge.status === 'succeeded',
    payment_intent: intent.id,
    payment_method: intent.paymentMethodId,
    payment_method_details: paymentMethodDetails(intent, charge),
    refunded: charge.amountRefunded >= charge.amount && charge.status === 'succeeded',
    status: charge.status,
  };
}

/** The `next_action` of an intent that waits for its challenge. */
function nextAction(intent: Intent, ctx: RenderContext) {
  if (intent.status !== 'requires_action' || intent.challengeToken === null) return null;
  if (intent.returnUrl === null) return { type: 'use_stripe_sdk', use_stripe_sdk: { type: 'three_d_secure_redirect' } };
  return { type: 'redirect_to_url', redirect_to_url: { url: ctx.challengeUrl(intent.challengeToken), return_url: intent.returnUrl } };
}

export interface RenderContext {
  charges: ReadonlyMap<string, Charge>;
  challengeUrl(token: string): string;
}

export function intentJson(intent: Intent, ctx: RenderContext, expand: ReadonlySet<string> = new Set()) {
  const charge = intent.chargeId === null ? undefined : ctx.charges.get(intent.chargeId);
  return {
    id: intent.id,
    object: 'payment_intent',
    amount: intent.amount,
    amount_capturable: intent.amountCapturable,
    amount_received: intent.amountReceived,
    canceled_at: intent.canceledAt,
    cancellation_reason: intent.cancellationReason,
    capture_method: intent.captureMethod,
    client_secret: intent.clientSecret,
    confirmation_method: 'automatic',
    created: intent.created,
    currency: intent.currency,
    description: intent.description,
    last_payment_error: intent.lastPaymentError,
    latest_charge: charge === undefined ? null : expand.has('latest_charge') ? chargeJson(charge, intent) : charge.id,
    livemode: false,
    metadata: intent.metadata,
    next_action: nextAction(intent, ctx),
    payment_method: intent.paymentMethodId,
    payment_method_types: ['card'],
    status: intent.status,
  };
}

export function refundJson(refund: Refund) {
  return {
    id: refund.id,
    object: 'refund',
    amount: refund.amount,
    charge: refund.chargeId,
    created: refund.created,
    currency: refund.currency,
    failure_reason: refund.failureReason,
    metadata: refund.metadata,
    payment_intent: refund.intentId,
    reason: refund.reason,
    status: refund.status,
  };
}

/** The PaymentMethod an error carries: card facts only. */
export function paymentMethodJson(intent: Intent) {
  const { brand, last4, expMonth, expYear, funding } = intent.card;
  return {
    id: intent.paymentMethodId,
    object: 'payment_method',
    type: 'card',
    card: { brand, last4, exp_month: expMonth, exp_year: expYear, funding },
  };
}
