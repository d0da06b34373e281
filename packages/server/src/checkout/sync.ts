import { findChargeByReference } from '../charges/store/read.ts';
import type { ChargeRow } from '../charges/view.ts';
import type { Db } from '../db/db.ts';
import type { ChargeStatus } from '../db/schema.ts';
import { eventPayload } from '../events/view.ts';
import type { Clock } from '../shared/clock.ts';
import * as store from './store.ts';
import type { PageTokens } from './tokens.ts';
import { attemptReference, type SessionRow, sessionView } from './view.ts';

/** At most this many failed attempts per session; the last one expires it. */
export const MAX_FAILED_ATTEMPTS = 5;

/** What the session functions share: the database, the clock, and how a session's URL is made. */
export interface SessionContext {
  db: Db;
  clock: Clock;
  tokens: PageTokens;
  origin: string;
  /** The statement that completes a session (store.completeSession; deps.ts wires it). */
  complete: typeof store.completeSession;
}

export const sessionUrl = (ctx: SessionContext, id: string) => `${ctx.origin}/pay/${ctx.tokens.tokenOf(id)}`;

export const renderSession = (ctx: SessionContext, row: SessionRow, paymentState: ChargeStatus | null = null) =>
  sessionView(row, sessionUrl(ctx, row.id), paymentState);

const payloadOf = (ctx: SessionContext, row: SessionRow, paymentState: ChargeStatus | null = null) =>
  eventPayload(renderSession(ctx, row, paymentState));

/** The payment of the session's current attempt (failed_attempts + 1), if it was created. */
export async function currentAttempt(ctx: SessionContext, row: SessionRow): Promise<ChargeRow | undefined> {
  return findChargeByReference(ctx.db, row.merchant_id, 'payment', attemptReference(row.reference, row.failed_attempts + 1));
}

/** Expires an open session now, unless an attempt is on its way or alive (store.expireSession). */
export async function expireNow(ctx: SessionContext, row: SessionRow, now: Date): Promise<SessionRow | undefined> {
  const ended: SessionRow = { ...row, status: 'expired', completed_at: now, updated_at: now };
  return store.expireSession(ctx.db, row.id, now, { type: 'checkout_session.expired', payload: payloadOf(ctx, ended) });
}

async function reload(ctx: SessionContext, row: SessionRow): Promise<SessionRow> {
  return (await store.findSession(ctx.db, row.merchant_id, row.id)) ?? row;
}

/** One step of sync: what the current attempt's payment decides, or undefined when it decides nothing yet. */
async function applyAttempt(ctx: SessionContext, row: SessionRow, charge: ChargeRow, now: Date): Promise<SessionRow | undefined> {
  if (charge.status === 'succeeded' || charge.status === 'requires_capture') {
    const done: SessionRow = { ...row, status: 'complete', payment_id: charge.id, completed_at: now, updated_at: now };
    const event = { type: 'checkout_session.completed' as const, payload: payloadOf(ctx, done, charge.status) };
    return (await ctx.complete(ctx.db, row.id, charge.id, now, event)) ?? reload(ctx, row);
  }
  if (charge.status === 'failed' || charge.status === 'canceled') {
    const n = row.failed_attempts + 1;
    const ended: SessionRow = { ...row, status: 'expired', failed_attempts: n, completed_at: now, updated_at: now };
    const event = { type: 'checkout_session.expired' as const, payload: payloadOf(ctx, ended) };
    return (await store.countFailedAttempt(ctx.db, row.id, n, now, event, MAX_FAILED_ATTEMPTS)) ?? reload(ctx, row);
  }
  return undefined;
}

/**
 * Brings an open session up to date with the server-side state of its payments: the current
 * attempt paid or authorised → complete; failed → counted (the fifth expires it); past its
 * expiry with no attempt alive → expired. Each change is one conditional update: running it
 * twice, or from two processes at once, changes nothing twice.
 */
export async function syncSession(ctx: SessionContext, initial: SessionRow): Promise<SessionRow> {
  let row = initial;
  for (let step = 0; step <= MAX_FAILED_ATTEMPTS && row.status === 'open'; step++) {
    const now = ctx.clock.now();
    const charge = await currentAttempt(ctx, row);
    const changed = charge ? await applyAttempt(ctx, row, charge, now) : undefined;
    if (changed) {
      row = changed;
      continue;
    }
    if (row.expires_at.getTime() <= now.getTime()) row = (await expireNow(ctx, row, now)) ?? row;
    break;
  }
  return row;
}
