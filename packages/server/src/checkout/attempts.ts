import type { CardOperations } from '../charges/operations.ts';
import type { ChargeBody } from '../charges/prepare.ts';
import type { MeansInput } from '../charges/schemas.ts';
import type { ChargeService } from '../charges/service.ts';
import type { ChargeRow, ChargeView } from '../charges/view.ts';
import type { Db } from '../db/db.ts';
import type { WindowCounters } from '../limits/counters.ts';
import type { AuthContext } from '../oauth/service.ts';
import type { Clock } from '../shared/clock.ts';
import { ApiError } from '../shared/errors.ts';
import { formatAmount } from '../shared/money.ts';
import { keyedHash } from '../shared/secrets.ts';
import { hostedCheckoutAuth } from './auth.ts';
import type { CheckoutService } from './service.ts';
import { leaseAttempt, releaseLease } from './store.ts';
import { attemptReference, type SessionRow } from './view.ts';

/** What the payer typed on the page: a card (kept in memory only) or a mobile-money number. */
export type AttemptMethod = MeansInput<'card' | 'mobile_money'>;

/** Why an attempt was not made; the page words each one. */
export type AttemptRefusal = 'method_not_offered' | 'too_many_attempts' | 'card_blocked' | 'in_progress' | 'closed';

export type AttemptResult =
  | { ok: true; session: SessionRow; payment: ChargeView }
  | { ok: false; session: SessionRow; refusal: AttemptRefusal; payment?: ChargeView };

/**
 * The card-testing defence's limits (fixed windows): attempts per payer address, and declines of
 * one card across every session (the card's keyed hash is only a counter key, never stored).
 * The per-session limit is the session's own: 5 failed attempts, then it expires.
 */
export const ATTEMPT_LIMITS = {
  perAddress: { count: 20, windowMs: 10 * 60_000 },
  failuresPerCard: { count: 5, windowMs: 60 * 60_000 },
};

/** How long an attempt being created holds its session against `expire` (a provider call's worst case, and more). */
const LEASE_MS = 120_000;

interface AttemptContext {
  db: Db;
  clock: Clock;
  hashKey: Buffer;
  counters: WindowCounters;
  checkout: CheckoutService;
  charges: ChargeService;
  cardOperations: CardOperations;
}

const authOf = (session: SessionRow): AuthContext => hostedCheckoutAuth(session.merchant_id, session.livemode);
const cardKey = (ctx: AttemptContext, number: string) => `checkout-card:${keyedHash(ctx.hashKey, `card-limit:${number}`)}`;

/** The attempt still in the way: a 3-D Secure challenge the payer gave up is canceled, so a new card can be tried. */
async function clearAbandoned(ctx: AttemptContext, session: SessionRow): Promise<{ session: SessionRow; live?: ChargeRow }> {
  const current = await ctx.checkout.currentAttempt(session);
  if (current?.status !== 'requires_action') return current && current.completed_at === null ? { session, live: current } : { session };
  await ctx.cardOperations.cancel(authOf(session), current.id, { reason: 'requested_by_customer' }).catch(() => undefined);
  const after = await ctx.checkout.sync(session);
  const again = await ctx.checkout.currentAttempt(after);
  return again && again.completed_at === null ? { session: after, live: again } : { session: after };
}

/** The payment request of attempt `n`: the session's amount, customer, description and metadata. */
function chargeBody(ctx: AttemptContext, session: SessionRow, method: AttemptMethod, n: number): ChargeBody {
  const given = Object.entries((session.customer ?? {}) as Record<string, string | null>).filter(([, v]) => v !== null);
  const card = method.type === 'card';
  return {
    reference: attemptReference(session.reference, n),
    amount: formatAmount(BigInt(session.amount), session.currency),
    currency: session.currency,
    method,
    methodParam: 'payment_method',
    ...(given.length > 0 ? { customer: Object.fromEntries(given) } : {}),
    ...(session.description === null ? {} : { description: session.description }),
    metadata: session.metadata as Record<string, string>,
    ...(card ? { capture_method: session.capture_method, return_url: `${ctx.checkout.urlOf(session.id)}/return` } : {}),
    hostedCheckout: true,
  };
}

/** Leases the session, creates the attempt's payment, lets the lease go, and syncs the session with the outcome. */
async function createAttempt(ctx: AttemptContext, session: SessionRow, method: AttemptMethod): Promise<AttemptResult> {
  const now = ctx.clock.now();
  const leased = await leaseAttempt(ctx.db, session.id, now, new Date(now.getTime() + LEASE_MS));
  if (!leased) return { ok: false, session: await ctx.checkout.sync(session), refusal: 'closed' };
  let payment: ChargeView;
  try {
    const body = chargeBody(ctx, leased, method, leased.failed_attempts + 1);
    payment = (await ctx.charges.createCharge(authOf(leased), 'payment', body)).object;
  } catch (error) {
    // Another submission of this session won the attempt's reference with another card or number.
    if (error instanceof ApiError && error.code === 'reference_conflict') return { ok: false, session: leased, refusal: 'in_progress' };
    throw error;
  } finally {
    await releaseLease(ctx.db, session.id);
  }
  return { ok: true, session: await ctx.checkout.sync(leased), payment };
}

/**
 * Pays `session` with what the payer typed. Input the payments refuse (a bad card number, a past
 * expiry) throws their 400 before anything is stored; a declined card is a failed attempt,
 * counted by the session.
 */
async function pay(ctx: AttemptContext, initial: SessionRow, method: AttemptMethod, address: string): Promise<AttemptResult> {
  if (initial.status !== 'open') return { ok: false, session: initial, refusal: 'closed' };
  if (!initial.payment_method_types.includes(method.type)) return { ok: false, session: initial, refusal: 'method_not_offered' };
  const { perAddress, failuresPerCard } = ATTEMPT_LIMITS;
  if ((await ctx.counters.hit(`checkout-addr:${address}`, perAddress.windowMs)).count > perAddress.count) {
    return { ok: false, session: initial, refusal: 'too_many_attempts' };
  }
  const key = method.type === 'card' ? cardKey(ctx, method.card.number) : null;
  if (key && (await ctx.counters.peek(key, failuresPerCard.windowMs)).count >= failuresPerCard.count) {
    return { ok: false, session: initial, refusal: 'card_blocked' };
  }
  const { session, live } = await clearAbandoned(ctx, initial);
  if (session.status !== 'open') return { ok: false, session, refusal: 'closed' };
  if (live) return { ok: false, session, refusal: 'in_progress' };
  const result = await createAttempt(ctx, session, method);
  if (result.ok && key && result.payment.status === 'failed') await ctx.counters.hit(key, failuresPerCard.windowMs);
  return result;
}

/**
 * Attempts of hosted checkout sessions: each is a payment created through the payments' own
 * path (ChargeService.createCharge), with the session's reference plus `/attempt-N`. Attempt
 * N+1 can only start once N has failed, so the database's unique reference is what lets
 * concurrent submissions of one session make a single payment.
 */
export function createCheckoutAttempts(ctx: AttemptContext) {
  return {
    pay: (session: SessionRow, method: AttemptMethod, address: string) => pay(ctx, session, method, address),
  };
}

export type CheckoutAttempts = ReturnType<typeof createCheckoutAttempts>;
