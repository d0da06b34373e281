import { createHmac } from 'node:crypto';
import type { FailureCode } from '../../shared/failures.ts';
import type { CallbackHint, ProviderStatusOutcome } from '../connector.ts';

/**
 * Pure mapping between Safaricom's Daraja shapes (STK Push, STK query, B2C) and Purse's
 * normalised outcomes. No I/O; the clock is a parameter.
 */

/** STK result codes → Purse's failure codes. Only these are read as failures; any other stays pending. */
export const STK_FAILURES: Record<string, FailureCode> = {
  '1': 'insufficient_funds', // the payer's balance is insufficient
  '1032': 'payer_declined', // cancelled by the user
  '2001': 'payer_declined', // wrong PIN
  '1037': 'expired', // the phone could not be reached, or did not answer in time
  '1019': 'expired', // the transaction expired
  '1001': 'provider_error', // another transaction is under way for the subscriber
  '1025': 'provider_error', // the push could not be sent
  '9999': 'provider_error', // the push could not be sent
};

/** B2C result codes → failure codes; 0 succeeds, any other unknown code stays pending. */
export const B2C_FAILURES: Record<string, FailureCode> = {
  '1': 'provider_error', // the B2C account's float is insufficient: the merchant's problem, not the payee's
  '2001': 'provider_error', // initiator credentials refused
  '8006': 'provider_error', // the security credential is locked
  '2040': 'payee_not_found', // the receiver is not a registered M-Pesa customer
  SFC_IC0003: 'payee_not_found', // no such receiver
};

/** How long to wait before asking Daraja again about a pending push. */
export const PENDING_CHECK_MS = 5_000;
/** B2C has no synchronous status: its Result callback settles it; the worker looks in rarely. */
export const B2C_CHECK_MS = 60_000;

/** The error code Daraja answers to an STK query while the push is still open. */
export const STILL_PROCESSING = '500.001.1001';

/** "YYYYMMDDHHmmss" in Nairobi time (UTC+3 all year), as Daraja wants its Timestamp. */
export function darajaTimestamp(nowMs: number): string {
  return new Date(nowMs + 3 * 3_600_000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** The STK Password: base64 of shortcode + passkey + timestamp. */
export function stkPassword(shortcode: string, passkey: string, timestamp: string): string {
  return Buffer.from(`${shortcode}${passkey}${timestamp}`).toString('base64');
}

/** Daraja's MSISDN: 2547… digits, no '+'. A Kenyan number in local form (07…, 01…) is widened. */
export function mpesaMsisdn(phoneNumber: string): string {
  let digits = phoneNumber.replace(/^\+/, '');
  if (/^0[17]\d{8}$/.test(digits)) digits = `254${digits.slice(1)}`;
  if (!/^254[17]\d{8}$/.test(digits)) throw new MpesaInputError('the phone number is not a Kenyan M-Pesa number (2547… or 2541…)');
  return digits;
}

/** A request Daraja would refuse as built: failed at once, never sent. */
export class MpesaInputError extends Error {
  constructor(message: string) {
    super(`mpesa: ${message}`);
    this.name = 'MpesaInputError';
  }
}

/** M-Pesa moves whole shillings: the amount in minor units (cents) → an integer of KES. */
export function wholeShillings(amountMinor: bigint, currency: string): number {
  if (currency !== 'KES') throw new MpesaInputError(`M-Pesa moves KES only, not ${currency}`);
  if (amountMinor % 100n !== 0n) throw new MpesaInputError('M-Pesa moves whole shillings: the amount has cents');
  const shillings = amountMinor / 100n;
  if (shillings < 1n || shillings > 250_000n) throw new MpesaInputError('the amount is outside what M-Pesa allows per transaction');
  return Number(shillings);
}

/** AccountReference (≤ 12) and TransactionDesc (≤ 13): the end of the Purse id, and the kind. */
export function accountReferenceOf(purseId: string): string {
  return purseId.replace(/^[a-z]+_/, '').slice(-12);
}

export interface MpesaKeys {
  callback: Buffer;
  originator: Buffer;
}

/** The keys behind callback tokens and B2C OriginatorConversationIDs, derived from the service key. */
export function mpesaKeys(hashKey: Buffer): MpesaKeys {
  return {
    callback: createHmac('sha256', hashKey).update('mpesa-callback-token-v1').digest(),
    originator: createHmac('sha256', hashKey).update('mpesa-originator-v1').digest(),
  };
}

/**
 * The B2C OriginatorConversationID of a refund or payout: derived from its id, so a request
 * repeated after a lost answer carries the same one and Daraja refuses it as a duplicate.
 */
export function originatorIdOf(key: Buffer, purseId: string): string {
  return `purse-${createHmac('sha256', key).update(purseId).digest('hex').slice(0, 24)}`;
}

/** An STK query answer (or callback) → the outcome; `reference` is the CheckoutRequestID. */
export function outcomeOfStk(
  resultCode: string | number | undefined,
  reference: string,
  receipt: string | null = null,
): ProviderStatusOutcome {
  const code = resultCode === undefined ? null : String(resultCode);
  if (code === '0') return { status: 'succeeded', providerReference: receipt ?? reference };
  if (code !== null && Object.hasOwn(STK_FAILURES, code)) {
    return { status: 'failed', providerReference: reference, failureCode: STK_FAILURES[code] as FailureCode };
  }
  return { status: 'pending', providerReference: reference, checkAfterMs: PENDING_CHECK_MS };
}

/** A B2C result → the outcome; the provider reference is M-Pesa's TransactionID, else the ConversationID. */
export function outcomeOfB2c(resultCode: string | number | undefined, reference: string): ProviderStatusOutcome {
  const code = resultCode === undefined ? null : String(resultCode);
  if (code === '0') return { status: 'succeeded', providerReference: reference };
  if (code !== null && Object.hasOwn(B2C_FAILURES, code)) {
    return { status: 'failed', providerReference: reference, failureCode: B2C_FAILURES[code] as FailureCode };
  }
  return { status: 'pending', providerReference: reference, checkAfterMs: B2C_CHECK_MS };
}

/** STK callback: {Body:{stkCallback:{MerchantRequestID, CheckoutRequestID, ResultCode (a number), ResultDesc, CallbackMetadata?}}}. */
export interface StkCallbackBody {
  Body: {
    stkCallback: {
      MerchantRequestID?: string;
      CheckoutRequestID: string;
      ResultCode: number | string;
      ResultDesc?: string;
      CallbackMetadata?: { Item?: { Name: string; Value?: unknown }[] };
    };
  };
}

/** B2C result: {Result:{ResultType, ResultCode, ResultDesc, OriginatorConversationID, ConversationID, TransactionID, …}}. */
export interface B2cResultBody {
  Result: {
    ResultType?: number;
    ResultCode: number | string;
    ResultDesc?: string;
    OriginatorConversationID: string;
    ConversationID?: string;
    TransactionID?: string;
  };
}

const claimedOf = (code: string | number): CallbackHint['claimed'] =>
  String(code) === '0' ? 'succeeded' : Object.hasOwn(STK_FAILURES, String(code)) ? 'failed' : 'pending';

/**
 * A verified callback → the object it names. The Purse id comes from the callback URL (the
 * `id` query parameter, authenticated by its token), because an STK callback names only
 * Daraja's ids, which Purse may never have received when the push's answer was lost.
 */
export function hintOfCallback(
  body: unknown,
  purseId: string,
  originatorKey: Buffer,
): (CallbackHint & { answer?: Extract<ProviderStatusOutcome, { status: 'succeeded' | 'failed' }> }) | null {
  const stk = (body as Partial<StkCallbackBody>)?.Body?.stkCallback;
  if (stk && typeof stk.CheckoutRequestID === 'string') {
    return { idempotencyKey: purseId, providerReference: stk.CheckoutRequestID, claimed: claimedOf(stk.ResultCode) };
  }
  const result = (body as Partial<B2cResultBody>)?.Result;
  if (result && typeof result.OriginatorConversationID === 'string') {
    // The result of a request Purse sent: it must carry the OriginatorConversationID Purse chose for this id.
    if (result.OriginatorConversationID !== originatorIdOf(originatorKey, purseId)) return null;
    const reference = result.TransactionID || result.ConversationID || result.OriginatorConversationID;
    const outcome = outcomeOfB2c(result.ResultCode, reference);
    const hint = {
      idempotencyKey: purseId,
      providerReference: reference,
      claimed: outcome.status === 'not_found' ? 'pending' : outcome.status,
    };
    return outcome.status === 'succeeded' || outcome.status === 'failed' ? { ...hint, answer: outcome } : hint;
  }
  return null;
}
