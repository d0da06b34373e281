/**
 * What the service needs from a payment provider, with outcomes normalised. A connector is
 * stateless towards us: every call carries our idempotency key (the charge id), stored before
 * the call, so a crash or timeout can always be resolved by asking for the status.
 */

export const FAILURE_CODES = [
  'insufficient_funds',
  'payer_declined',
  'expired',
  'payer_not_found',
  'limit_exceeded',
  'card_declined',
  'expired_card',
  'incorrect_cvc',
  'processing_error',
  'wallet_inactive',
  'provider_error',
] as const;

export type FailureCode = (typeof FAILURE_CODES)[number];

export const FAILURE_MESSAGES: Record<FailureCode, string> = {
  insufficient_funds: 'The payer does not have enough funds.',
  payer_declined: 'The payer declined the request.',
  expired: 'The payer did not complete the request in time.',
  payer_not_found: 'No account was found for this phone number.',
  limit_exceeded: "The amount exceeds the payer's limit.",
  card_declined: 'The card was declined.',
  expired_card: 'The card has expired.',
  incorrect_cvc: "The card's security code is incorrect.",
  processing_error: 'An error occurred while processing the card.',
  wallet_inactive: 'The wallet is frozen.',
  provider_error: 'The provider could not process the request.',
};

export type ProviderOutcome =
  | { status: 'succeeded'; providerReference: string | null }
  | { status: 'failed'; providerReference: string | null; failureCode: FailureCode }
  /** Accepted, not settled yet: ask again after `checkAfterMs` (or wait for a callback). */
  | { status: 'pending'; providerReference: string; checkAfterMs: number };

/** The provider has no record of this idempotency key: it was never reached. */
export type StatusOutcome = ProviderOutcome | { status: 'not_found' };

export type ProviderMethod =
  | { type: 'mobile_money'; phoneNumber: string; provider: string | null }
  | { type: 'card'; number: string; expMonth: number; expYear: number; cvc: string };

export interface InitiateRequest {
  idempotencyKey: string;
  kind: 'payment' | 'topup';
  amountMinor: bigint;
  currency: string;
  method: ProviderMethod;
  expiresAt: Date | null;
}

export interface StatusRequest {
  idempotencyKey: string;
  providerReference: string | null;
}

/** Request headers as Node gives them: lower-case names. */
export type CallbackHeaders = Record<string, string | string[] | undefined>;

export interface Connector {
  readonly name: string;
  initiate(request: InitiateRequest): Promise<ProviderOutcome>;
  getStatus(request: StatusRequest): Promise<StatusOutcome>;
  /**
   * Whether a notification really comes from this provider, judged on the exact bytes received
   * (before any parsing). Nothing of an unverified callback may be acted on.
   */
  verifyCallback(headers: CallbackHeaders, rawBody: string): boolean;
  /** A provider's asynchronous notification → whose outcome it is; null when not recognised. */
  parseCallback(body: unknown): { idempotencyKey: string; outcome: ProviderOutcome } | null;
}

/** Unknown provider states must never be read as failures (reliability rule 4). */
export function normaliseStatus(raw: string | null | undefined): 'succeeded' | 'failed' | 'pending' {
  if (raw === 'succeeded' || raw === 'failed') return raw;
  return 'pending';
}
