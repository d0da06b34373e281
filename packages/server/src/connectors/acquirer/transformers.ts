import type { FailureCode } from '../../shared/failures.ts';
import { minorDigits } from '../../shared/money.ts';
import type { AuthorisationOutcome, CancellationReason, ProviderOutcome, ThreeDSecureResult } from '../connector.ts';

/**
 * Pure mapping between the acquirer's shapes (Stripe's PaymentIntents and Refunds API) and
 * Purse's. No I/O, no clock. Amounts: Purse's minor units follow ISO 4217; the acquirer's follow
 * its own table (UGX, for one, is zero-decimal there while ISO gives it none either; others
 * differ), so every amount crosses through `toAcquirer`/`fromAcquirer`.
 */

/** Currencies the acquirer counts in whole units (its documentation's zero-decimal list). */
const ZERO_DECIMAL = new Set([
  'bif',
  'clp',
  'djf',
  'gnf',
  'jpy',
  'kmf',
  'krw',
  'mga',
  'pyg',
  'rwf',
  'ugx',
  'vnd',
  'vuv',
  'xaf',
  'xof',
  'xpf',
]);
/** Currencies the acquirer counts in thousandths. */
const THREE_DECIMAL = new Set(['bhd', 'jod', 'kwd', 'omr', 'tnd']);

export function acquirerDigits(currency: string): number {
  const c = currency.toLowerCase();
  return ZERO_DECIMAL.has(c) ? 0 : THREE_DECIMAL.has(c) ? 3 : 2;
}

/** Purse's minor units → the acquirer's integer amount (exact: a fraction the acquirer cannot count is refused). */
export function toAcquirer(minor: bigint, currency: string): bigint {
  const shift = acquirerDigits(currency) - minorDigits(currency);
  if (shift >= 0) return minor * 10n ** BigInt(shift);
  const factor = 10n ** BigInt(-shift);
  if (minor % factor !== 0n) throw new Error(`amount not representable in the acquirer's units of ${currency}`);
  return minor / factor;
}

/** The acquirer's integer amount → Purse's minor units. */
export function fromAcquirer(amount: bigint, currency: string): bigint {
  const shift = minorDigits(currency) - acquirerDigits(currency);
  return shift >= 0 ? amount * 10n ** BigInt(shift) : amount / 10n ** BigInt(-shift);
}

/** What a decline says (`decline_code`, else `code`) → Purse's failure code. */
const DECLINES: Record<string, FailureCode> = {
  insufficient_funds: 'insufficient_funds',
  expired_card: 'expired_card',
  incorrect_cvc: 'incorrect_cvc',
  invalid_cvc: 'incorrect_cvc',
  lost_card: 'lost_or_stolen_card',
  stolen_card: 'lost_or_stolen_card',
  fraudulent: 'fraudulent',
  merchant_blacklist: 'fraudulent',
  processing_error: 'processing_error',
  authentication_required: 'authentication_failed',
  payment_intent_authentication_failure: 'authentication_failed',
};

export function failureOf(error: { code?: unknown; decline_code?: unknown } | null | undefined): FailureCode {
  const decline = typeof error?.decline_code === 'string' ? DECLINES[error.decline_code] : undefined;
  const code = typeof error?.code === 'string' ? DECLINES[error.code] : undefined;
  return decline ?? code ?? 'card_declined';
}

const CANCELLATION: Record<string, CancellationReason> = {
  requested_by_customer: 'requested_by_customer',
  duplicate: 'duplicate',
  fraudulent: 'fraudulent',
  abandoned: 'abandoned',
  automatic: 'expired',
};

/** A PaymentIntent as the API answers it (only what Purse reads). */
export interface Intent {
  id: string;
  status: string;
  currency: string;
  amount_capturable?: number;
  amount_received?: number;
  cancellation_reason?: string | null;
  next_action?: { type?: string; redirect_to_url?: { url?: string } } | null;
  last_payment_error?: { code?: string; decline_code?: string } | null;
  latest_charge?: unknown;
}

interface ChargeDetails {
  capture_before?: number;
  three_d_secure?: { result?: string } | null;
}

function cardDetails(intent: Intent): ChargeDetails | null {
  const charge = intent.latest_charge;
  if (typeof charge !== 'object' || charge === null) return null;
  const card = (charge as { payment_method_details?: { card?: ChargeDetails } }).payment_method_details?.card;
  return card ?? null;
}

function threeDSecureOf(intent: Intent): ThreeDSecureResult | undefined {
  const result = cardDetails(intent)?.three_d_secure?.result;
  if (result === undefined || result === null) return undefined;
  if (result === 'authenticated' || result === 'attempt_acknowledged') return 'authenticated';
  if (result === 'not_supported' || result === 'exempted') return 'not_required';
  return 'failed';
}

/** How soon to ask again about an intent still processing. */
export const PROCESSING_CHECK_MS = 2_000;

/** An intent → Purse's outcome. A state Purse does not know stays pending: the worker asks again. */
export function outcomeOfIntent(intent: Intent): AuthorisationOutcome {
  const ref = intent.id;
  const currency = intent.currency.toUpperCase();
  switch (intent.status) {
    case 'succeeded':
      return {
        status: 'succeeded',
        providerReference: ref,
        amountMinor: fromAcquirer(BigInt(intent.amount_received ?? 0), currency),
        threeDSecure: threeDSecureOf(intent),
      };
    case 'requires_capture': {
      const before = cardDetails(intent)?.capture_before;
      return {
        status: 'requires_capture',
        providerReference: ref,
        amountCapturableMinor: fromAcquirer(BigInt(intent.amount_capturable ?? 0), currency),
        captureBefore: typeof before === 'number' ? new Date(before * 1000) : null,
        threeDSecure: threeDSecureOf(intent),
      };
    }
    case 'requires_action': {
      const url = intent.next_action?.redirect_to_url?.url;
      if (!url) return { status: 'pending', providerReference: ref, checkAfterMs: PROCESSING_CHECK_MS };
      return { status: 'requires_action', providerReference: ref, redirectUrl: url };
    }
    case 'canceled':
      return {
        status: 'canceled',
        providerReference: ref,
        reason: CANCELLATION[intent.cancellation_reason ?? ''] ?? 'requested_by_customer',
      };
    case 'requires_payment_method':
      // Confirmed and then refused (a decline after a challenge, a failed authentication).
      if (intent.last_payment_error) {
        const failureCode = failureOf(intent.last_payment_error);
        return {
          status: 'failed',
          providerReference: ref,
          failureCode,
          threeDSecure: failureCode === 'authentication_failed' ? 'failed' : undefined,
        };
      }
      return { status: 'pending', providerReference: ref, checkAfterMs: PROCESSING_CHECK_MS };
    default:
      return { status: 'pending', providerReference: ref, checkAfterMs: PROCESSING_CHECK_MS };
  }
}

/** A Refund as the API answers it. */
export interface Refund {
  id: string;
  status: string;
  failure_reason?: string | null;
}

/** A refund → Purse's outcome: pending until the acquirer says; a refund that failed after succeeding reads failed. */
export function outcomeOfRefund(refund: Refund): ProviderOutcome {
  if (refund.status === 'succeeded') return { status: 'succeeded', providerReference: refund.id };
  if (refund.status === 'failed' || refund.status === 'canceled') {
    return { status: 'failed', providerReference: refund.id, failureCode: 'provider_error' };
  }
  return { status: 'pending', providerReference: refund.id, checkAfterMs: 60_000 };
}

/**
 * Form encoding with bracketed keys, as the acquirer reads its bodies:
 * `{ metadata: { a: '1' } }` → `metadata[a]=1`. Values are strings, numbers or booleans.
 */
export function encodeForm(fields: Record<string, unknown>): string {
  const params = new URLSearchParams();
  const add = (key: string, value: unknown) => {
    if (value === undefined || value === null) return;
    if (typeof value === 'object') {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) add(`${key}[${k}]`, v);
      return;
    }
    params.append(key, String(value));
  };
  for (const [k, v] of Object.entries(fields)) add(k, v);
  return params.toString();
}
