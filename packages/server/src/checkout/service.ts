import { checkAmount, checkCurrency, checkCustomer, checkReference } from '../charges/input.ts';
import { findChargeByReference } from '../charges/store/read.ts';
import type { Config } from '../config.ts';
import type { CaptureMethod } from '../db/schema.ts';
import type { AuthContext } from '../oauth/service.ts';
import { ApiError, notFound } from '../shared/errors.ts';
import { fingerprint } from '../shared/fingerprint.ts';
import { isIdOf, newId } from '../shared/ids.ts';
import type { PageRequest } from '../shared/pagination.ts';
import { type Created, referenceConflict, sameRequest } from '../shared/replay.ts';
import { CHECKOUT_METHOD_TYPES, type CheckoutMethodType, type CreateCheckoutSessionInput } from './schemas.ts';
import * as store from './store.ts';
import { currentAttempt, expireNow, renderSession, type SessionContext, sessionUrl, syncSession } from './sync.ts';
import { PAGE_TOKEN } from './tokens.ts';
import { attemptReference, type SessionRow, type SessionView } from './view.ts';

const DEFAULT_EXPIRES_IN_S = 3600;

const invalid = (param: string, message: string) => new ApiError('parameter_invalid', `${param} ${message}.`, { param });

/** A URL only a browser follows (success, cancel, after completion): absolute http(s), no credentials. */
export function checkPageUrl(url: string, param: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(param, 'must be an absolute http(s) URL, such as https://shop.example/paid');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw invalid(param, 'must be an http(s) URL');
  if (parsed.username || parsed.password) throw invalid(param, 'must not carry credentials');
  return url;
}

/** What a session is opened with, once checked: by the API, or by a payment link's visit. */
export interface SessionInput {
  reference: string;
  amountMinor: bigint;
  currency: string;
  methodTypes: CheckoutMethodType[];
  captureMethod: CaptureMethod;
  successUrl: string | null;
  cancelUrl: string | null;
  customer: unknown;
  description: string | null;
  metadata: Record<string, string>;
  expiresInS: number;
  paymentLinkId: string | null;
}

interface ServiceContext extends SessionContext {
  config: Config;
  hashKey: Buffer;
}

function checkCreate(config: Config, body: CreateCheckoutSessionInput): SessionInput {
  const currency = checkCurrency(body.currency, config);
  const methodTypes = [...(body.payment_method_types ?? CHECKOUT_METHOD_TYPES)];
  const captureMethod = body.capture_method ?? 'automatic';
  if (captureMethod === 'manual' && methodTypes.includes('mobile_money')) {
    throw invalid('capture_method', 'manual applies to cards only: send payment_method_types ["card"] with it');
  }
  return {
    reference: checkReference(body.reference),
    amountMinor: checkAmount(body.amount, currency, config),
    currency,
    methodTypes,
    captureMethod,
    successUrl: checkPageUrl(body.success_url, 'success_url'),
    cancelUrl: checkPageUrl(body.cancel_url, 'cancel_url'),
    customer: checkCustomer(body.customer),
    description: body.description ?? null,
    metadata: body.metadata ?? {},
    expiresInS: body.expires_in ?? DEFAULT_EXPIRES_IN_S,
    paymentLinkId: null,
  };
}

function sessionFingerprint(hashKey: Buffer, input: SessionInput) {
  return fingerprint(hashKey, {
    amount: input.amountMinor.toString(),
    currency: input.currency,
    payment_method_types: input.methodTypes,
    capture_method: input.captureMethod,
    success_url: input.successUrl,
    cancel_url: input.cancelUrl,
    customer: input.customer,
    description: input.description,
    metadata: input.metadata,
    expires_in: input.expiresInS,
    payment_link: input.paymentLinkId,
  });
}

/** Opens a session; the same reference replays (same request) or is 409 (another one). */
async function openSession(ctx: ServiceContext, auth: AuthContext, input: SessionInput): Promise<Created<SessionView>> {
  const now = ctx.clock.now();
  const print = sessionFingerprint(ctx.hashKey, input);
  const id = newId('checkoutSession');
  const row = await store.insertSession(ctx.db, {
    id,
    merchant_id: auth.merchantId,
    reference: input.reference,
    request_fingerprint: JSON.stringify(print),
    token_hash: ctx.tokens.hashOf(ctx.tokens.tokenOf(id)),
    status: 'open',
    amount: input.amountMinor.toString(),
    currency: input.currency,
    payment_method_types: input.methodTypes,
    capture_method: input.captureMethod,
    success_url: input.successUrl,
    cancel_url: input.cancelUrl,
    customer: input.customer === null ? null : JSON.stringify(input.customer),
    description: input.description,
    metadata: JSON.stringify(input.metadata),
    payment_link_id: input.paymentLinkId,
    payment_id: null,
    attempt_lease_until: null,
    livemode: auth.livemode,
    expires_at: new Date(now.getTime() + input.expiresInS * 1000),
    created_at: now,
    updated_at: now,
    completed_at: null,
  });
  if (row) return { created: true, object: renderSession(ctx, row) };
  const existing = await store.findSessionByReference(ctx.db, auth.merchantId, input.reference);
  if (!existing) throw new Error('reference taken but no checkout session found');
  const stored = existing.request_fingerprint as Record<string, string>;
  if (!sameRequest(stored, print)) throw referenceConflict(input.reference, existing.id, stored, print);
  return { created: false, object: await viewSession(ctx, existing) };
}

async function viewSession(ctx: SessionContext, row: SessionRow): Promise<SessionView> {
  if (row.payment_id === null) return renderSession(ctx, row);
  const states = await store.paymentStates(ctx.db, row.merchant_id, [row.payment_id]);
  return renderSession(ctx, row, states.get(row.payment_id) ?? null);
}

async function loadSession(ctx: SessionContext, auth: AuthContext, id: string): Promise<SessionRow> {
  const row = isIdOf('checkoutSession', id) ? await store.findSession(ctx.db, auth.merchantId, id) : undefined;
  if (!row) throw notFound();
  return row;
}

/**
 * Ends an open session now. A session already expired answers as it is; a complete one, or one
 * whose payment is still under way (mobile money waiting for the payer, 3-D Secure), is 409
 * checkout_session_invalid_state: that payment decides first.
 */
async function expireSession(ctx: SessionContext, auth: AuthContext, id: string): Promise<SessionView> {
  let row = await syncSession(ctx, await loadSession(ctx, auth, id));
  if (row.status === 'open') row = (await expireNow(ctx, row, ctx.clock.now())) ?? row;
  if (row.status === 'expired') return viewSession(ctx, row);
  const why = row.status === 'complete' ? 'it is complete' : 'a payment of it is under way; try again once it has settled';
  throw new ApiError('checkout_session_invalid_state', `This checkout session cannot be expired: ${why}.`);
}

async function listSessions(ctx: SessionContext, auth: AuthContext, filters: store.SessionFilters, page: PageRequest) {
  const { rows, hasMore } = await store.listSessions(ctx.db, auth.merchantId, filters, page);
  const states = await store.paymentStates(
    ctx.db,
    auth.merchantId,
    rows.flatMap((r) => (r.payment_id === null ? [] : [r.payment_id])),
  );
  const data = rows.map((r) => renderSession(ctx, r, r.payment_id === null ? null : (states.get(r.payment_id) ?? null)));
  return { object: 'list' as const, data, has_more: hasMore };
}

export function createCheckoutService(ctx: ServiceContext) {
  return {
    urlOf: (id: string) => sessionUrl(ctx, id),
    view: (row: SessionRow) => viewSession(ctx, row),
    sync: (row: SessionRow) => (row.status === 'open' ? syncSession(ctx, row) : Promise.resolve(row)),
    currentAttempt: (row: SessionRow) => currentAttempt(ctx, row),
    /** The payment of attempt `n` of the session (the last failed one is n = failed_attempts). */
    attemptPayment: (row: SessionRow, n: number) =>
      findChargeByReference(ctx.db, row.merchant_id, 'payment', attemptReference(row.reference, n)),
    open: (auth: AuthContext, input: SessionInput) => openSession(ctx, auth, input),
    createSession: (auth: AuthContext, body: CreateCheckoutSessionInput) => openSession(ctx, auth, checkCreate(ctx.config, body)),
    async getSession(auth: AuthContext, id: string): Promise<SessionView> {
      return viewSession(ctx, await syncSession(ctx, await loadSession(ctx, auth, id)));
    },
    listSessions: (auth: AuthContext, filters: store.SessionFilters, page: PageRequest) => listSessions(ctx, auth, filters, page),
    expireSession: (auth: AuthContext, id: string) => expireSession(ctx, auth, id),
    /** The session a page token names, up to date; undefined for a token that names none. */
    async findByToken(token: string): Promise<SessionRow | undefined> {
      if (!PAGE_TOKEN.test(token)) return undefined;
      const row = await store.findSessionByTokenHash(ctx.db, ctx.tokens.hashOf(token));
      return row && syncSession(ctx, row);
    },
  };
}

export type CheckoutService = ReturnType<typeof createCheckoutService>;
