import type { Selectable } from 'kysely';
import type { Static } from 'typebox';
import { checkAmount, checkCurrency } from '../charges/input.ts';
import { hostedCheckoutAuth } from '../checkout/auth.ts';
import { CHECKOUT_METHOD_TYPES, type CheckoutMethodType } from '../checkout/schemas.ts';
import { type CheckoutService, checkPageUrl } from '../checkout/service.ts';
import { PAGE_TOKEN, type PageTokens } from '../checkout/tokens.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import type { PaymentLinksTable } from '../db/schema.ts';
import type { Clock } from '../shared/clock.ts';
import { ApiError, notFound } from '../shared/errors.ts';
import { isIdOf, newId } from '../shared/ids.ts';
import { formatAmount } from '../shared/money.ts';
import type { PageRequest } from '../shared/pagination.ts';
import type { CreatePaymentLinkBody } from './schemas.ts';
import * as store from './store.ts';

export type LinkRow = Selectable<PaymentLinksTable>;
type CreateBody = Static<typeof CreatePaymentLinkBody>;

/** How long a session opened from a link stays open. */
const LINK_SESSION_EXPIRES_S = 3600;

interface LinkContext {
  db: Db;
  clock: Clock;
  config: Config;
  tokens: PageTokens;
  origin: string;
  checkout: CheckoutService;
}

const linkUrl = (ctx: LinkContext, id: string) => `${ctx.origin}/pay/link/${ctx.tokens.tokenOf(id)}`;

function linkView(ctx: LinkContext, row: LinkRow) {
  return {
    id: row.id,
    object: 'payment_link' as const,
    url: linkUrl(ctx, row.id),
    amount: row.amount === null ? null : formatAmount(BigInt(row.amount), row.currency),
    currency: row.currency,
    description: row.description,
    payment_method_types: row.payment_method_types,
    after_completion_url: row.after_completion_url,
    active: row.active,
    livemode: row.livemode,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

async function loadLink(ctx: LinkContext, merchantId: string, id: string): Promise<LinkRow> {
  const row = isIdOf('paymentLink', id) ? await store.findLink(ctx.db, merchantId, id) : undefined;
  if (!row) throw notFound();
  return row;
}

async function createLink(ctx: LinkContext, auth: { merchantId: string; livemode: boolean }, body: CreateBody) {
  const currency = checkCurrency(body.currency, ctx.config);
  const amount = body.amount === undefined || body.amount === null ? null : checkAmount(body.amount, currency, ctx.config);
  const after = body.after_completion_url ?? null;
  const id = newId('paymentLink');
  const now = ctx.clock.now();
  const row = await store.insertLink(ctx.db, {
    id,
    merchant_id: auth.merchantId,
    token_hash: ctx.tokens.hashOf(ctx.tokens.tokenOf(id)),
    amount: amount === null ? null : amount.toString(),
    currency,
    description: body.description,
    payment_method_types: [...(body.payment_method_types ?? CHECKOUT_METHOD_TYPES)],
    after_completion_url: after === null ? null : checkPageUrl(after, 'after_completion_url'),
    active: body.active ?? true,
    livemode: auth.livemode,
    created_at: now,
    updated_at: now,
  });
  return linkView(ctx, row);
}

/**
 * A visit: a fresh checkout session of the link's merchant, for its amount or the one the payer
 * typed (`typed`, a decimal string checked like any amount). Its reference names the link and is
 * unique by construction.
 */
async function openLinkSession(ctx: LinkContext, link: LinkRow, typed: string | null): Promise<{ url: string }> {
  if (!link.active) throw new ApiError('invalid_state', 'This payment link is not active.');
  const amountMinor = link.amount === null ? checkAmount(typed ?? '', link.currency, ctx.config) : BigInt(link.amount);
  const session = await ctx.checkout.open(hostedCheckoutAuth(link.merchant_id, link.livemode), {
    reference: `${link.id}/${newId('checkoutSession')}`,
    amountMinor,
    currency: link.currency,
    methodTypes: link.payment_method_types as CheckoutMethodType[],
    captureMethod: 'automatic',
    successUrl: link.after_completion_url,
    cancelUrl: null,
    customer: null,
    description: link.description,
    metadata: {},
    expiresInS: LINK_SESSION_EXPIRES_S,
    paymentLinkId: link.id,
  });
  return { url: session.object.url };
}

export function createPaymentLinkService(ctx: LinkContext) {
  return {
    urlOf: (id: string) => linkUrl(ctx, id),
    createLink: (auth: { merchantId: string; livemode: boolean }, body: CreateBody) => createLink(ctx, auth, body),
    getLink: async (auth: { merchantId: string }, id: string) => linkView(ctx, await loadLink(ctx, auth.merchantId, id)),
    async updateLink(auth: { merchantId: string }, id: string, active: boolean) {
      await loadLink(ctx, auth.merchantId, id);
      const row = await store.setLinkActive(ctx.db, auth.merchantId, id, active, ctx.clock.now());
      if (!row) throw notFound();
      return linkView(ctx, row);
    },
    async listLinks(auth: { merchantId: string }, active: boolean | undefined, page: PageRequest) {
      const { rows, hasMore } = await store.listLinks(ctx.db, auth.merchantId, active, page);
      return { object: 'list' as const, data: rows.map((r) => linkView(ctx, r)), has_more: hasMore };
    },
    /** The link a page token names; undefined for a token that names none. */
    async findByToken(token: string): Promise<LinkRow | undefined> {
      if (!PAGE_TOKEN.test(token)) return undefined;
      return store.findLinkByTokenHash(ctx.db, ctx.tokens.hashOf(token));
    },
    openSession: (link: LinkRow, typed: string | null) => openLinkSession(ctx, link, typed),
  };
}

export type PaymentLinkService = ReturnType<typeof createPaymentLinkService>;
