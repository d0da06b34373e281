import { FAILURE_CODES, type FailureCode } from '../../shared/failures.ts';
import { type CallbackHint, type NormalisedState, normaliseState, type ProviderOutcome } from '../connector.ts';

/**
 * Pure mapping between the sandbox provider's shapes (a row of its books, its callback body) and
 * Purse's normalised outcomes. No I/O and no clock: the caller passes "now".
 */

/** The sandbox's callback body, as its schema in callbacks.ts accepts it. */
export interface SandboxCallbackBody {
  /** Purse's charge id, the idempotency key of the original request. */
  idempotency_key: string;
  provider_reference: string;
  status: 'succeeded' | 'failed';
  failure_code?: FailureCode;
}

/** A row of the sandbox's books (table sandbox_provider_charges), as its status call reads it. */
export interface BookRow {
  provider_reference: string;
  outcome: string;
  failure_code: string | null;
  complete_at: Date | null;
}

/** The states the sandbox writes in its books; any other reads as pending. */
const BOOK_STATES: Record<string, NormalisedState> = { succeeded: 'succeeded', failed: 'failed', pending: 'pending' };

/** How long to wait before asking again about a charge with no settlement time in the books. */
export const UNSCHEDULED_CHECK_MS = 60_000;

/** A failure code Purse does not know is still a failure, reported as the provider's error. */
export function failureCodeOf(raw: string | null): FailureCode {
  return FAILURE_CODES.includes(raw as FailureCode) ? (raw as FailureCode) : 'provider_error';
}

/** The books' row → the outcome at `nowMs`: final only once its settlement time has passed. */
export function outcomeOf(row: BookRow, nowMs: number): ProviderOutcome {
  const settled = row.complete_at !== null && row.complete_at.getTime() <= nowMs;
  const state = normaliseState(BOOK_STATES, row.outcome);
  if (state === 'pending' || !settled) {
    const checkAfterMs = row.complete_at ? Math.max(0, row.complete_at.getTime() - nowMs) : UNSCHEDULED_CHECK_MS;
    return { status: 'pending', providerReference: row.provider_reference, checkAfterMs };
  }
  if (state === 'succeeded') return { status: 'succeeded', providerReference: row.provider_reference };
  return { status: 'failed', providerReference: row.provider_reference, failureCode: failureCodeOf(row.failure_code) };
}

/** A callback body → the charge it names; null for a failure without a code (not what the sandbox sends). */
export function hintOf(body: SandboxCallbackBody): CallbackHint | null {
  if (body.status === 'failed' && body.failure_code === undefined) return null;
  return {
    idempotencyKey: body.idempotency_key,
    providerReference: body.provider_reference,
    claimed: normaliseState(BOOK_STATES, body.status),
  };
}

/** The body the sandbox sends for a final outcome of its books. */
export function callbackBodyOf(
  idempotencyKey: string,
  outcome: Extract<ProviderOutcome, { status: 'succeeded' | 'failed' }>,
  providerReference: string,
): SandboxCallbackBody {
  const body: SandboxCallbackBody = { idempotency_key: idempotencyKey, provider_reference: providerReference, status: outcome.status };
  if (outcome.status === 'failed') body.failure_code = outcome.failureCode;
  return body;
}
