import { sql } from 'kysely';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../shared/clock.ts';
import type { FailureCode } from '../../shared/failures.ts';
import type { AuthorisationOutcome, CancellationReason, CaptureRequest, InitiateRequest } from '../connector.ts';
import { failureCodeOf } from './transformers.ts';

/**
 * The sandbox's cards, as an acquirer behaves: test numbers decline, three ask for 3-D Secure
 * (a challenge then success, a challenge then a decline, frictionless), manual capture holds the
 * amount until captured (in part or whole) or cancelled, and a hold expires after 7 days. The
 * state lives in the sandbox's books (sandbox_provider_charges), written outside Purse's
 * transactions as an acquirer's would be; capture and cancel are conditional updates of the
 * authorisation's row, so repeating one answers the same state.
 */

/** How long the sandbox holds an uncaptured authorisation, as acquirers usually do. */
export const SANDBOX_HOLD_MS = 7 * 24 * 3600_000;

/** The test cards that decline, and how. Any other Luhn-valid number is authorised. */
const DECLINES: Record<string, FailureCode> = {
  '4000000000000002': 'card_declined',
  '4000000000009995': 'insufficient_funds',
  '4000000000000069': 'expired_card',
  '4000000000000127': 'incorrect_cvc',
  '4000000000000119': 'processing_error',
  '4000000000009979': 'lost_or_stolen_card',
  '4100000000000019': 'fraudulent',
};

/** 3-D Secure test cards: what completing the challenge leads to ('none': frictionless). */
const CHALLENGES: Record<string, 'succeed' | 'decline' | 'none'> = {
  '4000000000003220': 'succeed',
  '4000008400001629': 'decline',
  '4000000000003055': 'none',
};

/** null: the card is authorised. */
export function cardFailure(number: string): FailureCode | null {
  return DECLINES[number] ?? null;
}

/** The books' columns of a card authorisation, planned from the request. */
export interface CardPlan {
  outcome: 'failed' | 'succeeded' | 'requires_action' | 'requires_capture';
  failureCode: FailureCode | null;
  challenge: 'succeed' | 'decline' | 'none' | null;
}

/** What the sandbox does with a card: decline, challenge, or authorise (and capture unless manual). */
export function planCard(request: InitiateRequest, number: string): CardPlan {
  const failureCode = cardFailure(number);
  if (failureCode) return { outcome: 'failed', failureCode, challenge: null };
  const challenge = CHALLENGES[number] ?? null;
  if (challenge === 'succeed' || challenge === 'decline') return { outcome: 'requires_action', failureCode: null, challenge };
  return { outcome: request.captureMethod === 'manual' ? 'requires_capture' : 'succeeded', failureCode: null, challenge };
}

/** A card row of the sandbox's books. */
export interface CardBookRow {
  provider_reference: string;
  outcome: string;
  failure_code: string | null;
  amount: string | null;
  amount_received: string | null;
  challenge: string | null;
  created_at: Date;
}

const threeDSecureOf = (row: CardBookRow) => (row.challenge === null ? undefined : ('authenticated' as const));

/** A card row → its state at `nowMs` (a hold past 7 days reads canceled, as the acquirer releases it). */
export function cardOutcomeOf(row: CardBookRow, nowMs: number, challengeUrl: (reference: string) => string): AuthorisationOutcome {
  const reference = row.provider_reference;
  const captureBefore = new Date(row.created_at.getTime() + SANDBOX_HOLD_MS);
  switch (row.outcome) {
    case 'requires_action':
      return { status: 'requires_action', providerReference: reference, redirectUrl: challengeUrl(reference) };
    case 'requires_capture':
      if (nowMs >= captureBefore.getTime()) return { status: 'canceled', providerReference: reference, reason: 'expired' };
      return {
        status: 'requires_capture',
        providerReference: reference,
        amountCapturableMinor: BigInt(row.amount ?? '0'),
        captureBefore,
        threeDSecure: threeDSecureOf(row),
      };
    case 'succeeded':
      return {
        status: 'succeeded',
        providerReference: reference,
        amountMinor: row.amount_received === null ? undefined : BigInt(row.amount_received),
        threeDSecure: threeDSecureOf(row),
      };
    case 'canceled':
      return {
        status: 'canceled',
        providerReference: reference,
        reason: (row.failure_code ?? 'requested_by_customer') as CancellationReason,
      };
    default: {
      const failed = failureCodeOf(row.failure_code);
      const threeDSecure = failed === 'authentication_failed' ? ('failed' as const) : threeDSecureOf(row);
      return { status: 'failed', providerReference: reference, failureCode: failed, threeDSecure };
    }
  }
}

const CARD_COLUMNS = sql`provider_reference, outcome, failure_code, amount, amount_received, challenge, created_at`;

export async function findCard(db: Db, idempotencyKey: string): Promise<CardBookRow | undefined> {
  const result =
    await sql<CardBookRow>`SELECT ${CARD_COLUMNS} FROM sandbox_provider_charges WHERE idempotency_key = ${idempotencyKey}`.execute(db);
  return result.rows[0];
}

/**
 * Capture: only from requires_capture, within the hold, and at most the amount held. Any other
 * state answers unchanged (the caller reads it: the same capture again, or a wrong state).
 */
export async function captureCard(db: Db, request: CaptureRequest, now: Date): Promise<CardBookRow | undefined> {
  await sql`UPDATE sandbox_provider_charges SET outcome = 'succeeded', amount_received = ${request.amountMinor.toString()}::bigint, complete_at = ${now.toISOString()}::timestamptz
    WHERE idempotency_key = ${request.paymentKey} AND outcome = 'requires_capture' AND ${request.amountMinor.toString()}::bigint <= amount
      AND created_at > ${new Date(now.getTime() - SANDBOX_HOLD_MS).toISOString()}::timestamptz`.execute(db);
  return findCard(db, request.paymentKey);
}

/** Cancel: from requires_action or requires_capture; the reason is kept in failure_code. */
export async function cancelCard(db: Db, paymentKey: string, reason: CancellationReason, now: Date): Promise<CardBookRow | undefined> {
  await sql`UPDATE sandbox_provider_charges SET outcome = 'canceled', failure_code = ${reason}, complete_at = ${now.toISOString()}::timestamptz
    WHERE idempotency_key = ${paymentKey} AND outcome IN ('requires_action', 'requires_capture')`.execute(db);
  return findCard(db, paymentKey);
}

/**
 * The payer's answer on the sandbox's challenge page: "Complete" leads to what the card planned
 * (authorised, held when manual, or declined after the challenge), "Fail" to
 * authentication_failed. Only from requires_action: a second answer changes nothing. Returns
 * where the browser goes next (the return URL Purse gave), or null for an unknown reference.
 */
export async function answerChallenge(db: Db, reference: string, completed: boolean, now: Date): Promise<string | null> {
  const at = sql`${now.toISOString()}::timestamptz`;
  await sql`UPDATE sandbox_provider_charges SET
      outcome = CASE WHEN NOT ${completed} THEN 'failed' WHEN challenge = 'decline' THEN 'failed'
                     WHEN capture_method = 'manual' THEN 'requires_capture' ELSE 'succeeded' END,
      failure_code = CASE WHEN NOT ${completed} THEN 'authentication_failed' WHEN challenge = 'decline' THEN 'card_declined' END,
      amount_received = CASE WHEN ${completed} AND challenge <> 'decline' AND capture_method <> 'manual' THEN amount END,
      complete_at = ${at}
    WHERE provider_reference = ${reference} AND outcome = 'requires_action'`.execute(db);
  const result = await sql<{
    return_url: string | null;
  }>`SELECT return_url FROM sandbox_provider_charges WHERE provider_reference = ${reference}`.execute(db);
  const row = result.rows[0];
  return row ? (row.return_url ?? '') : null;
}

/** Whether a reference is a card awaiting the payer's answer (the challenge page shows its buttons only then). */
export async function challengeOpen(db: Db, reference: string): Promise<boolean> {
  const result = await sql<{
    open: boolean;
  }>`SELECT outcome = 'requires_action' AS open FROM sandbox_provider_charges WHERE provider_reference = ${reference}`.execute(db);
  return result.rows[0]?.open === true;
}

/**
 * The sandbox's card side as its connector uses it: the state of an authorisation (null when the
 * key is not a card authorisation), capture and cancel, and the challenge page's answers.
 */
export function sandboxCards(deps: { db: Db; clock: Clock; origin: string }) {
  const { db, clock } = deps;
  const challengeUrl = (reference: string) => `${deps.origin}/sandbox/3ds/${reference}`;
  const outcome = (row: CardBookRow | undefined) => {
    if (!row) throw new Error('sandbox: no such authorisation');
    return cardOutcomeOf(row, clock.now().getTime(), challengeUrl);
  };
  return {
    outcomeOf: (row: CardBookRow) => outcome(row),
    async status(key: string): Promise<AuthorisationOutcome | null> {
      const row = await findCard(db, key);
      return row && row.amount !== null ? outcome(row) : null;
    },
    operations: {
      async capture(request: CaptureRequest, signal: AbortSignal) {
        signal.throwIfAborted();
        return outcome(await captureCard(db, request, clock.now()));
      },
      async cancel(request: { paymentKey: string; reason: CancellationReason }, signal: AbortSignal) {
        signal.throwIfAborted();
        return outcome(await cancelCard(db, request.paymentKey, request.reason, clock.now()));
      },
      answerChallenge: (reference: string, completed: boolean) => answerChallenge(db, reference, completed, clock.now()),
      challengeOpen: (reference: string) => challengeOpen(db, reference),
    },
  };
}
