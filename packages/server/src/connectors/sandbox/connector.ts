import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../shared/clock.ts';
import { present } from '../../shared/invariant.ts';
import type { Connector, FailureCode, InitiateRequest, ProviderOutcome, StatusOutcome, StatusRequest } from '../connector.ts';
import { FAILURE_CODES, normaliseStatus } from '../connector.ts';
import {
  SANDBOX_SIGNATURE_HEADER,
  type SandboxCallbackBody,
  sandboxCallbackKey,
  signSandboxCallback,
  verifySandboxCallback,
} from './callbacks.ts';
import { cardFailure, mobileMoneyRule, type SandboxFault, SLOW_FACTOR } from './rules.ts';

type BookRow = { provider_reference: string; outcome: string; failure_code: string | null; complete_at: Date | null };

/** A callback as the sandbox would POST it to /provider-callbacks/sandbox. */
export interface SignedCallback {
  rawBody: string;
  headers: Record<string, string>;
}

/**
 * The built-in sandbox provider. It behaves like a remote provider: it keeps its own books
 * (table sandbox_provider_charges, written outside our transactions, as a network call would
 * be), is idempotent on our key, and settles mobile money after a delay that the settlement
 * worker discovers by polling. Its callbacks are signed with a key derived from the service key.
 * With `faults` (PURSE_SANDBOX_FAULTS) the fault numbers of rules.ts lose or break its answers.
 */
export function createSandboxConnector(deps: { db: Db; clock: Clock; delayMs: number; hashKey: Buffer; faults: boolean }): Connector & {
  force(idempotencyKey: string, outcome: 'succeeded' | 'failed', failureCode: FailureCode | null): Promise<boolean>;
  signCallback(body: SandboxCallbackBody): SignedCallback;
  callbackFor(idempotencyKey: string): Promise<SignedCallback | null>;
} {
  const { db, clock, delayMs, faults } = deps;
  const callbackKey = sandboxCallbackKey(deps.hashKey);

  function toOutcome(row: BookRow, nowMs: number): ProviderOutcome {
    const settled = row.complete_at !== null && row.complete_at.getTime() <= nowMs;
    const status = normaliseStatus(row.outcome);
    if (status === 'pending' || !settled) {
      const checkAfterMs = row.complete_at ? Math.max(0, row.complete_at.getTime() - nowMs) : 60_000;
      return { status: 'pending', providerReference: row.provider_reference, checkAfterMs };
    }
    if (status === 'succeeded') return { status: 'succeeded', providerReference: row.provider_reference };
    return { status: 'failed', providerReference: row.provider_reference, failureCode: row.failure_code as FailureCode };
  }

  type Plan = { outcome: string; failureCode: FailureCode | null; completeAt: Date | null; fault: SandboxFault | null };

  function plan(request: InitiateRequest, now: Date): Plan {
    if (request.method.type === 'card') {
      const failureCode = cardFailure(request.method.number);
      return { outcome: failureCode ? 'failed' : 'succeeded', failureCode, completeAt: now, fault: null };
    }
    const rule = mobileMoneyRule(request.method.phoneNumber, faults);
    const at = (ms: number) => new Date(now.getTime() + ms);
    const completeAt =
      rule.after === 'delay'
        ? at(delayMs)
        : rule.after === 'slow'
          ? at(delayMs * SLOW_FACTOR)
          : rule.after === 'expiry'
            ? request.expiresAt
            : null;
    return { outcome: rule.outcome, failureCode: rule.failureCode, completeAt, fault: rule.fault };
  }

  /** After the books are written: the answer never comes, or the connection drops. */
  function injectFault(fault: SandboxFault): Promise<never> {
    if (fault === 'connection_reset') return Promise.reject(new Error('sandbox fault: connection reset after the request was processed'));
    return new Promise<never>(() => {});
  }

  function signCallback(body: SandboxCallbackBody): SignedCallback {
    const rawBody = JSON.stringify(body);
    return {
      rawBody,
      headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signSandboxCallback(callbackKey, rawBody) },
    };
  }

  async function find(idempotencyKey: string): Promise<BookRow | undefined> {
    return db
      .selectFrom('sandbox_provider_charges')
      .select(['provider_reference', 'outcome', 'failure_code', 'complete_at'])
      .where('idempotency_key', '=', idempotencyKey)
      .executeTakeFirst();
  }

  return {
    name: 'sandbox',

    async initiate(request) {
      const now = clock.now();
      const planned = plan(request, now);
      // Insert-or-read in one round trip; a row inserted concurrently by another statement is
      // not in this statement's snapshot, hence the fallback read.
      const result = await sql<BookRow>`
        WITH ins AS (
          INSERT INTO sandbox_provider_charges (provider_reference, idempotency_key, method_type, outcome, failure_code, complete_at, created_at)
          VALUES (${`sbx_${randomBytes(12).toString('hex')}`}, ${request.idempotencyKey}, ${request.method.type}, ${planned.outcome},
                  ${planned.failureCode}, ${planned.completeAt}::timestamptz, ${now}::timestamptz)
          ON CONFLICT (idempotency_key) DO NOTHING
          RETURNING provider_reference, outcome, failure_code, complete_at
        )
        SELECT * FROM ins
        UNION ALL
        SELECT provider_reference, outcome, failure_code, complete_at FROM sandbox_provider_charges
        WHERE idempotency_key = ${request.idempotencyKey} AND NOT EXISTS (SELECT 1 FROM ins)`.execute(db);
      const row = result.rows[0] ?? present(await find(request.idempotencyKey), 'sandbox charge');
      if (planned.fault) return injectFault(planned.fault);
      return toOutcome(row, now.getTime());
    },

    async getStatus(request: StatusRequest): Promise<StatusOutcome> {
      const row = await find(request.idempotencyKey);
      return row ? toOutcome(row, clock.now().getTime()) : { status: 'not_found' };
    },

    verifyCallback(headers, rawBody) {
      return verifySandboxCallback(callbackKey, headers, rawBody);
    },

    parseCallback(body) {
      const b = body as { idempotency_key?: unknown; provider_reference?: unknown; status?: unknown; failure_code?: unknown } | null;
      if (!b || typeof b.idempotency_key !== 'string' || typeof b.provider_reference !== 'string') return null;
      if (b.status === 'succeeded')
        return { idempotencyKey: b.idempotency_key, outcome: { status: 'succeeded', providerReference: b.provider_reference } };
      if (b.status === 'failed' && FAILURE_CODES.includes(b.failure_code as FailureCode)) {
        return {
          idempotencyKey: b.idempotency_key,
          outcome: { status: 'failed', providerReference: b.provider_reference, failureCode: b.failure_code as FailureCode },
        };
      }
      return null;
    },

    /** Sandbox helpers: settle now with the given outcome. False when the provider never saw it. */
    async force(idempotencyKey, outcome, failureCode) {
      const result = await db
        .updateTable('sandbox_provider_charges')
        .set({ outcome, failure_code: failureCode, complete_at: clock.now() })
        .where('idempotency_key', '=', idempotencyKey)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** Signs a callback body as the sandbox would (tests acting as the provider). */
    signCallback,

    /** The callback the sandbox would send now: its settled outcome, or null when pending or unknown. */
    async callbackFor(idempotencyKey) {
      const row = await find(idempotencyKey);
      if (!row) return null;
      const outcome = toOutcome(row, clock.now().getTime());
      if (outcome.status === 'pending') return null;
      return signCallback({
        idempotency_key: idempotencyKey,
        provider_reference: row.provider_reference,
        status: outcome.status,
        ...(outcome.status === 'failed' ? { failure_code: outcome.failureCode } : {}),
      });
    },
  };
}

export type SandboxConnector = ReturnType<typeof createSandboxConnector>;
