import { createHmac } from 'node:crypto';
import type { FailureCode } from '../../shared/failures.ts';
import { parseAmount } from '../../shared/money.ts';
import { type CallbackHint, type NormalisedState, normaliseState, type ProviderStatusOutcome } from '../connector.ts';

/**
 * Pure mapping between MTN MoMo Open API shapes (Collection requesttopay, Disbursement transfer)
 * and Purse's normalised outcomes. No I/O, no clock.
 */

/** What GET …/requesttopay/{id} and GET …/transfer/{id} answer (the callback body has the same shape). */
export interface MtnStatusBody {
  amount?: string | number;
  currency?: string;
  /** A string in the API's schema; its documented example shows a number, so both are read. */
  financialTransactionId?: string | number;
  externalId?: string;
  status?: string;
  reason?: string | { code?: string; message?: string };
}

/** MTN's transaction states; any other reads as pending. */
export const MTN_STATES: Record<string, NormalisedState> = { SUCCESSFUL: 'succeeded', FAILED: 'failed', PENDING: 'pending' };

/** MTN's failure reasons (ErrorReason codes) → Purse's failure codes; an unknown reason is the provider's error. */
export const MTN_REASONS: Record<string, FailureCode> = {
  PAYER_NOT_FOUND: 'payer_not_found',
  PAYEE_NOT_FOUND: 'payee_not_found',
  NOT_ENOUGH_FUNDS: 'insufficient_funds',
  PAYER_LIMIT_REACHED: 'limit_exceeded',
  PAYEE_NOT_ALLOWED_TO_RECEIVE: 'payee_not_found',
  NOT_ALLOWED: 'payer_declined',
  NOT_ALLOWED_TARGET_ENVIRONMENT: 'provider_error',
  APPROVAL_REJECTED: 'payer_declined',
  EXPIRED: 'expired',
  TRANSACTION_CANCELED: 'payer_declined',
  RESOURCE_NOT_FOUND: 'provider_error',
  COULD_NOT_PERFORM_TRANSACTION: 'provider_error',
  SERVICE_UNAVAILABLE: 'provider_error',
  INTERNAL_PROCESSING_ERROR: 'provider_error',
};

/** How long to wait before asking MTN again about a pending request. */
export const PENDING_CHECK_MS = 5_000;

/** The reason's code, whether MTN sends it as a string or as {code, message}. */
export function reasonCode(reason: MtnStatusBody['reason']): string | null {
  if (typeof reason === 'string') return reason;
  if (reason && typeof reason === 'object' && typeof reason.code === 'string') return reason.code;
  return null;
}

export function failureCodeOf(reason: MtnStatusBody['reason']): FailureCode {
  const code = reasonCode(reason);
  return code !== null && Object.hasOwn(MTN_REASONS, code) ? (MTN_REASONS[code] as FailureCode) : 'provider_error';
}

function transactionIdOf(body: MtnStatusBody): string | null {
  const id = body.financialTransactionId;
  return (typeof id === 'string' && id !== '') || typeof id === 'number' ? String(id) : null;
}

/** The amount MTN reports, in minor units of its currency; null when absent or unreadable. */
function amountOf(body: MtnStatusBody): bigint | null {
  if (body.amount === undefined || typeof body.currency !== 'string') return null;
  const parsed = parseAmount(String(body.amount), body.currency);
  return parsed.ok ? parsed.value : null;
}

/** A status body → Purse's outcome; the provider reference is MTN's financialTransactionId, else our X-Reference-Id. */
export function outcomeOfStatus(body: MtnStatusBody, referenceId: string): ProviderStatusOutcome {
  const providerReference = transactionIdOf(body) ?? referenceId;
  const state = normaliseState(MTN_STATES, body.status);
  if (state === 'succeeded') {
    const amount = amountOf(body);
    return amount === null ? { status: 'succeeded', providerReference } : { status: 'succeeded', providerReference, amountMinor: amount };
  }
  if (state === 'failed') return { status: 'failed', providerReference, failureCode: failureCodeOf(body.reason) };
  return { status: 'pending', providerReference, checkAfterMs: PENDING_CHECK_MS };
}

/** A callback body → the object it names (externalId is the Purse id); null when it names none. */
export function hintOf(body: MtnStatusBody): CallbackHint | null {
  if (typeof body.externalId !== 'string' || body.externalId === '') return null;
  return {
    idempotencyKey: body.externalId,
    providerReference: transactionIdOf(body),
    claimed: normaliseState(MTN_STATES, body.status),
  };
}

/** MTN wants the MSISDN as digits only, with the country code and without '+'. */
export function msisdnOf(phoneNumber: string): string {
  const digits = phoneNumber.replace(/^\+/, '');
  if (!/^\d{6,15}$/.test(digits)) throw new Error('mtn: the phone number is not an MSISDN');
  return digits;
}

/** The key behind X-Reference-Id and the callback token, derived from the service key. */
export function mtnKeys(hashKey: Buffer): { reference: Buffer; callback: Buffer } {
  return {
    reference: createHmac('sha256', hashKey).update('mtn-reference-id-v1').digest(),
    callback: createHmac('sha256', hashKey).update('mtn-callback-token-v1').digest(),
  };
}

/**
 * The X-Reference-Id of a Purse id: a UUID v4 laid out from an HMAC of the id, so a retry after a
 * crash or a lost answer sends the same reference (MTN answers 409 instead of paying twice) and a
 * status call finds it without anything stored.
 */
export function referenceIdOf(key: Buffer, purseId: string): string {
  const bytes = createHmac('sha256', key).update(purseId).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
