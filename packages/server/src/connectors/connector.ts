import type { TSchema } from 'typebox';
import type { FailureCode } from '../shared/failures.ts';

/**
 * What the service needs from a payment provider, with outcomes normalised. A connector is
 * stateless towards us: every call carries our idempotency key (the charge id), stored before
 * the call, so a crash or timeout can always be resolved by asking for the status.
 */

export type ProviderOutcome =
  /** `amountMinor`: what the provider says moved, when its answer says (reconciliation compares it). */
  | { status: 'succeeded'; providerReference: string | null; amountMinor?: bigint; threeDSecure?: ThreeDSecureResult }
  | { status: 'failed'; providerReference: string | null; failureCode: FailureCode; threeDSecure?: ThreeDSecureResult }
  /**
   * Accepted, not settled yet: ask again after `checkAfterMs` (or wait for a callback). The
   * reference is null only when the provider's is not known yet (an M-Pesa push whose answer was lost).
   */
  | {
      status: 'pending';
      providerReference: string | null;
      checkAfterMs: number;
      /**
       * false: the provider could not be asked (it has no status call for this, or Purse has no
       * reference to ask by), so "pending" says only that nothing is known: reconciliation
       * compares nothing against it.
       */
      known?: false;
    };

/** What 3-D Secure decided for a card, when the acquirer says. */
export type ThreeDSecureResult = 'authenticated' | 'failed' | 'not_required';

/**
 * Card states before money moves (an acquirer's or the sandbox's): the payer must confirm in a
 * browser (`redirectUrl`: the acquirer's challenge page, which returns the payer to the request's
 * `returnUrl`), an authorisation waits for capture (a hold, not money), or the authorisation was
 * cancelled (by the merchant, or because the hold expired).
 */
export type CardOutcome =
  | { status: 'requires_action'; providerReference: string; redirectUrl: string }
  | {
      status: 'requires_capture';
      providerReference: string;
      amountCapturableMinor: bigint;
      captureBefore: Date | null;
      threeDSecure?: ThreeDSecureResult;
    }
  | { status: 'canceled'; providerReference: string | null; reason: CancellationReason };

export type CancellationReason = 'requested_by_customer' | 'duplicate' | 'fraudulent' | 'abandoned' | 'expired';

/** Everything an authorisation can answer: a provider outcome, or, for cards, a state on the way. */
export type AuthorisationOutcome = ProviderOutcome | CardOutcome;

/** The provider has no record of this idempotency key: it was never reached. */
export type NotFound = { status: 'not_found' };
/** A status as a provider of money movements (mobile money, money out) answers it. */
export type ProviderStatusOutcome = ProviderOutcome | NotFound;
export type StatusOutcome = AuthorisationOutcome | NotFound;

/**
 * A status read where only money movements are expected (refunds, payouts, reconciliation): a
 * card state on the way (a challenge, a hold) has not moved money yet, so it reads as pending.
 */
export function asMovementStatus(status: StatusOutcome): ProviderStatusOutcome {
  if (status.status === 'requires_action' || status.status === 'requires_capture' || status.status === 'canceled') {
    return { status: 'pending', providerReference: status.providerReference, checkAfterMs: 60_000 };
  }
  return status;
}

/** The means a connector can serve: wallet payments never leave Purse, so they have none. */
export type Means = 'mobile_money' | 'card';

export type ProviderMethod =
  | { type: 'mobile_money'; phoneNumber: string; provider: string | null }
  | { type: 'card'; number: string; expMonth: number; expYear: number; cvc: string };

/**
 * One line of the routing table. `network` narrows the means (a mobile-money operator such as
 * 'mtn'); null serves every network of the means that no connector claims by name.
 */
export interface Route {
  means: Means;
  network: string | null;
  livemode: boolean;
}

export interface InitiateRequest {
  idempotencyKey: string;
  kind: 'payment' | 'topup';
  amountMinor: bigint;
  currency: string;
  method: ProviderMethod;
  expiresAt: Date | null;
  /** Cards: authorise and capture at once, or authorise only (the merchant captures later). */
  captureMethod?: 'automatic' | 'manual';
  /** Cards: where the acquirer sends the payer's browser after a 3-D Secure challenge (a Purse URL). */
  returnUrl?: string | null;
}

/** Capture of an authorised card payment: `amountMinor` ≤ what is capturable; the rest is released. */
export interface CaptureRequest {
  /** Stored before the call, derived from the payment and the operation: every retry reuses it. */
  idempotencyKey: string;
  /** The payment's own key (its id): what the authorisation was sent with. */
  paymentKey: string;
  providerReference: string | null;
  amountMinor: bigint;
  currency: string;
}

export interface CancelRequest {
  idempotencyKey: string;
  paymentKey: string;
  providerReference: string | null;
  reason: CancellationReason;
}

/** Where money out goes: a phone number, or back to the card a payment charged. */
export type OutboundDestination =
  | { type: 'mobile_money'; phoneNumber: string; provider: string | null }
  | { type: 'card'; paymentKey: string; paymentProviderReference: string | null };

/** A refund or payout: sent once per idempotency key (the refund's or payout's id). */
export interface OutboundRequest {
  idempotencyKey: string;
  kind: 'refund' | 'payout';
  amountMinor: bigint;
  currency: string;
  destination: OutboundDestination;
}

export interface StatusRequest {
  idempotencyKey: string;
  providerReference: string | null;
}

/** Request headers as Node gives them: lower-case names. */
export type CallbackHeaders = Record<string, string | string[] | undefined>;

/** The callback URL's query parameters, as Fastify parses them. */
export type CallbackQuery = Record<string, unknown>;

/**
 * What a verified callback names. Only a hint that something changed at the provider: the
 * outcome Purse applies is the one the provider's status call confirms, never the body's claim,
 * so a callback can neither settle what the provider has not settled nor contradict its books.
 */
export interface CallbackHint {
  idempotencyKey: string;
  providerReference: string | null;
  /** What the body says happened, kept for logs; unknown states read as pending. */
  claimed: 'succeeded' | 'failed' | 'pending';
  /**
   * Only for a provider whose asynchronous API answers on the callback channel and has no status
   * call to ask (M-Pesa B2C's Result): the provider's own answer to the request Purse sent,
   * authenticated per object and matched to what was sent. Applied as a status answer would be.
   */
  answer?: Extract<ProviderOutcome, { status: 'succeeded' | 'failed' }>;
}

/** How one provider notifies Purse: its body and headers (for the route and its documentation), checked and read. */
export interface ConnectorCallbacks {
  readonly body: TSchema;
  /** The headers the provider sends, by lower-case name (all optional to the schema: verify decides). */
  readonly headers: Record<string, TSchema>;
  /** Query parameters of the callback URL the provider was given (all optional to the schema: verify decides). */
  readonly query?: Record<string, TSchema>;
  /** How this provider signs, for the route's description. */
  readonly description: string;
  /**
   * Whether a notification really comes from this provider, judged on the exact bytes received
   * (before any parsing). Nothing of an unverified callback may be acted on.
   */
  verify(headers: CallbackHeaders, rawBody: string, query?: CallbackQuery): boolean;
  /** A verified body that passed `body`'s schema (and the callback URL's query) → the charge it names; null when not recognised. */
  parse(body: unknown, query?: CallbackQuery): CallbackHint | null;
}

/**
 * A payment provider. Every call takes an AbortSignal: when it fires the connector stops
 * waiting and rejects (the outcome is then unknown and resolved later by getStatus), so an
 * abandoned call never keeps sockets or timers behind the caller's back.
 */
export interface Connector {
  /** Stored in charges.provider: names the connector that owns the charge for its whole life. */
  readonly name: string;
  /** The routes this connector serves; the registry refuses two connectors on one route. */
  readonly serves: readonly Route[];
  initiate(request: InitiateRequest, signal: AbortSignal): Promise<AuthorisationOutcome>;
  /**
   * Cards only (a connector without them cannot hold an authorisation): the payment's state at
   * the provider after the capture or cancel, which a wrong state answers with the state as it is.
   */
  capture?(request: CaptureRequest, signal: AbortSignal): Promise<AuthorisationOutcome>;
  cancel?(request: CancelRequest, signal: AbortSignal): Promise<AuthorisationOutcome>;
  /**
   * Money out (a refund or a payout). Idempotent on the key, like initiate: a request repeated
   * after a lost answer is the same request to the provider, never a second payment.
   */
  sendOut(request: OutboundRequest, signal: AbortSignal): Promise<ProviderOutcome>;
  /** The status of a charge or an outbound request, by its idempotency key. */
  getStatus(request: StatusRequest, signal: AbortSignal): Promise<StatusOutcome>;
  readonly callbacks: ConnectorCallbacks;
}

export type NormalisedState = 'succeeded' | 'failed' | 'pending';

/**
 * A provider's raw state → Purse's, through the connector's own table of the states it knows.
 * Anything else is pending: reading an unknown state as a failure would release a payment the
 * provider may still complete, while pending only waits for the next status or the expiry.
 */
export function normaliseState(known: Readonly<Record<string, NormalisedState>>, raw: string | null | undefined): NormalisedState {
  return raw != null && Object.hasOwn(known, raw) ? (known[raw] as NormalisedState) : 'pending';
}

/** A promise that rejects with the signal's reason once it aborts: what "never answers" becomes under a deadline. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
