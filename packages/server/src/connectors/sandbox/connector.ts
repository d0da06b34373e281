import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/db.ts';
import type { GroupCommit, MergedWrite } from '../../db/group-commit.ts';
import { type MergedColumn, mergedInput } from '../../db/merged-input.ts';
import type { Clock } from '../../shared/clock.ts';
import type { FailureCode } from '../../shared/failures.ts';
import { present } from '../../shared/invariant.ts';
import type { Connector, InitiateRequest, OutboundRequest } from '../connector.ts';
import { untilAborted } from '../connector.ts';
import {
  SANDBOX_SIGNATURE_HEADER,
  type SandboxCallbackBody,
  sandboxCallbackKey,
  sandboxCallbacks,
  signSandboxCallback,
} from './callbacks.ts';
import { type CardBookRow, planCard, sandboxCards } from './cards.ts';
import { mobileMoneyRule, outboundRule, type SandboxFault, SLOW_FACTOR } from './rules.ts';
import { type BookRow, callbackBodyOf, outcomeOf } from './transformers.ts';

/** A callback as the sandbox would POST it to /provider-callbacks/sandbox. */
export interface SignedCallback {
  rawBody: string;
  headers: Record<string, string>;
}

/** The sandbox as a connector, plus what only a simulated provider can do: be told the outcome. */
export interface SandboxConnector extends Connector {
  /** Sandbox controls: settle now with the given outcome. False when the provider never saw it. */
  force(idempotencyKey: string, outcome: 'succeeded' | 'failed', failureCode: FailureCode | null): Promise<boolean>;
  /** Signs a callback body as the sandbox would (tests acting as the provider). */
  signCallback(body: SandboxCallbackBody): SignedCallback;
  /** The callback the sandbox would send now: its settled outcome, or null when pending or unknown. */
  callbackFor(idempotencyKey: string): Promise<SignedCallback | null>;
  /** The 3-D Secure challenge page's answer: where the browser goes next; null for an unknown reference. */
  answerChallenge(reference: string, completed: boolean): Promise<string | null>;
  /** Whether the challenge of this reference still waits for the payer. */
  challengeOpen(reference: string): Promise<boolean>;
}

type Plan = {
  outcome: string;
  failureCode: FailureCode | null;
  completeAt: Date | null;
  fault: SandboxFault | null;
  card?: { amount: bigint; captureMethod: string; challenge: string | null; returnUrl: string | null };
};

/** What the sandbox decides for a new request, from the test numbers of rules.ts and cards.ts. */
function plan(request: InitiateRequest, now: Date, delayMs: number, faults: boolean): Plan {
  if (request.method.type === 'card') {
    const card = planCard(request, request.method.number);
    return {
      outcome: card.outcome,
      failureCode: card.failureCode,
      completeAt: now,
      fault: null,
      card: {
        amount: request.amountMinor,
        captureMethod: request.captureMethod ?? 'automatic',
        challenge: card.challenge,
        returnUrl: request.returnUrl ?? null,
      },
    };
  }
  return timed(mobileMoneyRule(request.method.phoneNumber, faults), request.expiresAt, now, delayMs);
}

/** Money out: a card refund is accepted at once; a phone number follows outboundRule. */
function planOutbound(request: OutboundRequest, now: Date, delayMs: number, faults: boolean): Plan {
  if (request.destination.type === 'card') return { outcome: 'succeeded', failureCode: null, completeAt: now, fault: null };
  return timed(outboundRule(request.destination.phoneNumber, faults), null, now, delayMs);
}

function timed(rule: ReturnType<typeof mobileMoneyRule>, expiresAt: Date | null, now: Date, delayMs: number): Plan {
  const at = (ms: number) => new Date(now.getTime() + ms);
  const completeAt =
    rule.after === 'delay' ? at(delayMs) : rule.after === 'slow' ? at(delayMs * SLOW_FACTOR) : rule.after === 'expiry' ? expiresAt : null;
  return { outcome: rule.outcome, failureCode: rule.failureCode, completeAt, fault: rule.fault };
}

/** After the books are written: the answer never comes (until the caller gives up), or the connection drops. */
function injectFault(fault: SandboxFault, signal: AbortSignal): Promise<never> {
  if (fault === 'connection_reset') return Promise.reject(new Error('sandbox fault: connection reset after the request was processed'));
  return untilAborted(signal);
}

/** A request the sandbox records: its row as planned, unless our key is already in its books. */
interface BookItem {
  providerReference: string;
  idempotencyKey: string;
  methodType: string;
  planned: Plan;
  now: Date;
}

const BOOK_INPUT = mergedInput<BookItem>([
  ['provider_reference', 'text', (b) => b.providerReference],
  ['idempotency_key', 'text', (b) => b.idempotencyKey],
  ['method_type', 'text', (b) => b.methodType],
  ['outcome', 'text', (b) => b.planned.outcome],
  ['failure_code', 'text', (b) => b.planned.failureCode],
  ['complete_at', 'timestamptz', (b) => b.planned.completeAt?.toISOString() ?? null],
  ['created_at', 'timestamptz', (b) => b.now.toISOString()],
  ['amount', 'bigint', (b) => b.planned.card?.amount.toString() ?? null],
  ['amount_received', 'bigint', (b) => (b.planned.outcome === 'succeeded' ? (b.planned.card?.amount.toString() ?? null) : null)],
  ['capture_method', 'text', (b) => b.planned.card?.captureMethod ?? null],
  ['challenge', 'text', (b) => b.planned.card?.challenge ?? null],
  ['return_url', 'text', (b) => b.planned.card?.returnUrl ?? null],
] satisfies MergedColumn<BookItem>[]);

/**
 * Insert-or-read, for every request of a batch in one statement: the sandbox is idempotent on our
 * key, as a provider must be, and, like a provider's own database, records concurrent requests
 * together (its own batches, never in a transaction of Purse's). A row inserted concurrently by
 * another statement is not in this one's snapshot: no row, and the caller falls back to a read.
 */
const books: MergedWrite<BookItem, BookRow & CardBookRow & { id: string }> = {
  name: 'sandbox books',
  statement: sql<BookRow & CardBookRow & { id: string }>`
    WITH input AS (${BOOK_INPUT.select}
    ), ins AS (
      INSERT INTO sandbox_provider_charges (provider_reference, idempotency_key, method_type, outcome, failure_code, complete_at, created_at,
        amount, amount_received, capture_method, challenge, return_url)
      SELECT provider_reference, idempotency_key, method_type, outcome, failure_code, complete_at, created_at,
        amount, amount_received, capture_method, challenge, return_url FROM input
      ON CONFLICT (idempotency_key) DO NOTHING
      RETURNING idempotency_key, provider_reference, outcome, failure_code, complete_at, amount, amount_received, challenge, created_at
    )
    SELECT idempotency_key AS id, provider_reference, outcome, failure_code, complete_at, amount, amount_received, challenge, created_at FROM ins
    UNION ALL
    SELECT s.idempotency_key, s.provider_reference, s.outcome, s.failure_code, s.complete_at, s.amount, s.amount_received, s.challenge, s.created_at
    FROM sandbox_provider_charges s JOIN input i ON i.idempotency_key = s.idempotency_key
    WHERE NOT EXISTS (SELECT 1 FROM ins WHERE ins.idempotency_key = i.idempotency_key)`,
  columns: BOOK_INPUT.parameters,
  key: (item) => item.idempotencyKey,
  id: (item) => item.idempotencyKey,
  optional: true,
};

function recordRequest(
  writes: GroupCommit,
  request: { idempotencyKey: string; methodType: string },
  planned: Plan,
  now: Date,
): Promise<(BookRow & CardBookRow) | undefined> {
  const item = { ...request, providerReference: `sbx_${randomBytes(12).toString('hex')}`, planned, now };
  return writes.lane(request.idempotencyKey).merge(books, item);
}

function signWith(callbackKey: Buffer, body: SandboxCallbackBody): SignedCallback {
  const rawBody = JSON.stringify(body);
  return {
    rawBody,
    headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signSandboxCallback(callbackKey, rawBody) },
  };
}

async function findBook(db: Db, idempotencyKey: string): Promise<(BookRow & CardBookRow) | undefined> {
  return db
    .selectFrom('sandbox_provider_charges')
    .select(['provider_reference', 'outcome', 'failure_code', 'complete_at', 'amount', 'amount_received', 'challenge', 'created_at'])
    .where('idempotency_key', '=', idempotencyKey)
    .executeTakeFirst();
}

/**
 * The built-in sandbox provider. It behaves like a remote provider: it keeps its own books
 * (table sandbox_provider_charges, written outside our transactions, as a network call would
 * be), is idempotent on our key, and settles mobile money after a delay that the settlement
 * worker discovers by polling. Its callbacks are signed with a key derived from the service key.
 * With `faults` (PURSE_SANDBOX_FAULTS) the fault numbers of rules.ts lose or break its answers.
 * An aborted call stops waiting at once; a query already sent to the database is let finish.
 */
export function createSandboxConnector(deps: {
  db: Db;
  /** The sandbox's own group commit (never the one of Purse's money writes): its books are a provider's. */
  writes: GroupCommit;
  clock: Clock;
  delayMs: number;
  hashKey: Buffer;
  faults: boolean;
  /** Where browsers reach this service: the sandbox's 3-D Secure challenge page is served there. */
  origin: string;
}): SandboxConnector {
  const { db, clock, delayMs, faults } = deps;
  const callbackKey = sandboxCallbackKey(deps.hashKey);
  const cards = sandboxCards({ db, clock, origin: deps.origin });

  const signCallback = (body: SandboxCallbackBody) => signWith(callbackKey, body);
  const find = (idempotencyKey: string) => findBook(db, idempotencyKey);

  return {
    name: 'sandbox',
    // Every means of sandbox merchants, whatever operator they name: sandbox money never leaves it.
    serves: [
      { means: 'mobile_money', network: null, livemode: false },
      { means: 'card', network: null, livemode: false },
    ],
    callbacks: sandboxCallbacks(callbackKey),

    async initiate(request, signal) {
      signal.throwIfAborted();
      const now = clock.now();
      const planned = plan(request, now, delayMs, faults);
      const key = { idempotencyKey: request.idempotencyKey, methodType: request.method.type };
      const row = (await recordRequest(deps.writes, key, planned, now)) ?? present(await find(request.idempotencyKey), 'sandbox charge');
      if (planned.fault) return injectFault(planned.fault, signal);
      return request.method.type === 'card' ? cards.outcomeOf(row) : outcomeOf(row, now.getTime());
    },

    ...cards.operations,

    async sendOut(request, signal) {
      signal.throwIfAborted();
      const now = clock.now();
      const planned = planOutbound(request, now, delayMs, faults);
      const key = { idempotencyKey: request.idempotencyKey, methodType: `${request.kind}:${request.destination.type}` };
      const row = (await recordRequest(deps.writes, key, planned, now)) ?? present(await find(request.idempotencyKey), 'sandbox request');
      if (planned.fault) return injectFault(planned.fault, signal);
      return outcomeOf(row, now.getTime());
    },

    async getStatus(request, signal) {
      signal.throwIfAborted();
      const card = await cards.status(request.idempotencyKey);
      if (card) return card;
      const row = await find(request.idempotencyKey);
      return row ? outcomeOf(row, clock.now().getTime()) : { status: 'not_found' };
    },

    async force(idempotencyKey, outcome, failureCode) {
      const result = await db
        .updateTable('sandbox_provider_charges')
        .set({ outcome, failure_code: failureCode, complete_at: clock.now() })
        .where('idempotency_key', '=', idempotencyKey)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    signCallback,

    async callbackFor(idempotencyKey) {
      const row = await find(idempotencyKey);
      if (!row) return null;
      const outcome = outcomeOf(row, clock.now().getTime());
      if (outcome.status === 'pending') return null;
      return signCallback(callbackBodyOf(idempotencyKey, outcome, row.provider_reference));
    },
  };
}
