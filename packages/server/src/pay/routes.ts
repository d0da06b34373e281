import { readFileSync } from 'node:fs';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PaymentLinkService } from '../payment-links/service.ts';
import { type Lang, type Messages, messages, pickLang } from './i18n.ts';
import { registerLinkPages } from './link-pages.ts';
import * as page from './page.ts';
import { cookieOf, ensureCookie, html, PAGE_HEADERS } from './respond.ts';
import type { PageState, PayForm, PayPages } from './service.ts';

/**
 * The hosted checkout page (`/pay/<token>`), outside /v1: the payer's browser has no token, the
 * unguessable URL is the capability. Strict CSP (this origin's script and style only, forms post
 * only here, no frames), no referrer, nothing cached, a double-submit CSRF pair on every form.
 */
const ASSETS: Record<string, { type: string; body: Buffer }> = {
  'pay.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./assets/pay.js', import.meta.url)) },
  'pay.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('./assets/pay.css', import.meta.url)) },
  'icon.svg': { type: 'image/svg+xml', body: readFileSync(new URL('./assets/icon.svg', import.meta.url)) },
};

type Req = FastifyRequest<{ Params: { token: string }; Querystring: { lang?: string; retry?: string } }>;

const langOf = (request: Req): Lang => pickLang(request.query.lang, request.headers['accept-language']);
const pathOf = (token: string) => `/pay/${token}`;

function frameOf(m: Messages, state: Exclude<PageState, { kind: 'unknown' }>, title: string, token: string): page.PageFrame {
  const amount = (BigInt(state.session.amount) === 0n ? '0' : formatMajor(state.session.amount, state.session.currency)) as string;
  return { m, title, amount, currency: state.session.currency, description: state.session.description, selfPath: pathOf(token) };
}

/** Minor units to the decimal string Intl formats exactly. */
function formatMajor(minor: string, currency: string): string {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  if (digits === 0) return minor;
  const padded = minor.padStart(digits + 1, '0');
  return `${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}

function successTarget(state: { session: { success_url: string | null; id: string } }): string | null {
  if (!state.session.success_url) return null;
  const url = new URL(state.session.success_url);
  url.searchParams.set('session_id', state.session.id);
  return url.toString();
}

/** Renders one state of the page; `error` is a reason code to show above the form. */
function render(deps: { pages: PayPages }, reply: FastifyReply, request: Req, state: PageState, error: string | null = null) {
  const m = messages(langOf(request));
  const token = request.params.token;
  if (state.kind === 'unknown') {
    return html(
      reply,
      404,
      page.layout(
        { m, title: m.t('notFound'), amount: '', currency: 'USD', description: null, selfPath: null },
        page.messagePanel(m.t('notFoundHint'), null),
      ),
    );
  }
  const s = state.session;
  const due = m.money(formatMajor(s.amount, s.currency), s.currency);
  const cancel = s.cancel_url;
  switch (state.kind) {
    case 'expired':
      return html(
        reply,
        200,
        page.layout(
          frameOf(m, state, m.t('expiredTitle'), token),
          page.messagePanel(m.t('expiredHint'), cancel ? { url: cancel, label: m.t('backToShop') } : null),
        ),
      );
    case 'complete': {
      const next = successTarget(state);
      const card = state.payment?.method as { card?: { brand: string; last4: string } } | undefined;
      const rows: Array<[string, string]> = [[m.t('reference'), s.reference]];
      if (card?.card) rows.push([m.t('paidWith'), `${card.card.brand} •••• ${card.card.last4}`]);
      else if (state.payment?.method_type === 'mobile_money') rows.push([m.t('paidWith'), m.t('mobileMoney')]);
      const title = state.payment?.status === 'requires_capture' ? m.t('authorized') : m.t('paid');
      const frame = { ...frameOf(m, state, title, token), ...(next ? { next } : {}) };
      return html(reply, 200, page.layout(frame, page.receiptPanel(m, rows, next)));
    }
    case 'waiting': {
      const phone = (state.payment.method as { mobile_money?: { phone_number: string } }).mobile_money?.phone_number ?? '';
      const frame = { ...frameOf(m, state, m.t('payTo'), token), pollUrl: `${pathOf(token)}/status` };
      return html(reply, 200, page.layout(frame, page.waitingPanel(m, phone, due)));
    }
    case 'action':
      return html(reply, 200, page.layout(frameOf(m, state, m.t('payTo'), token), page.actionPanel(m, state.url)));
    case 'failed':
      return html(
        reply,
        200,
        page.layout(frameOf(m, state, m.t('payTo'), token), page.failurePanel(m, m.reason(state.code), pathOf(token), m.lang, cancel)),
      );
    case 'form':
      return renderForm(deps, reply, request, state, error);
  }
}

function renderForm(
  deps: { pages: PayPages },
  reply: FastifyReply,
  request: Req,
  state: Extract<PageState, { kind: 'form' }>,
  error: string | null,
): FastifyReply {
  const m = messages(langOf(request));
  const token = request.params.token;
  const s = state.session;
  const cookie = ensureCookie(request, reply, deps.pages.newCookie);
  const form = page.paymentForm(m, {
    action: `${pathOf(token)}?lang=${m.lang}`,
    csrf: deps.pages.csrfOf(cookie, s.id),
    methods: s.payment_method_types,
    selected: state.method,
    error: error ? m.reason(error) : null,
    payLabel: m.t('pay', { amount: m.money(formatMajor(s.amount, s.currency), s.currency) }),
    cancelUrl: s.cancel_url,
  });
  return html(reply, error === 'bad_form' ? 403 : error ? 400 : 200, page.layout(frameOf(m, state, m.t('payTo'), token), form));
}

const Params = { type: 'object', properties: { token: { type: 'string', maxLength: 64 } }, required: ['token'] } as const;
const Query = {
  type: 'object',
  properties: {
    lang: { type: 'string', maxLength: 5 },
    retry: { type: 'string', maxLength: 1 },
    payment_id: { type: 'string', maxLength: 64 },
  },
} as const;

export async function registerPayRoutes(parent: FastifyInstance, deps: { pages: PayPages; links: PaymentLinkService }): Promise<void> {
  await parent.register(async (app) => {
    await app.register(formbody, { bodyLimit: 4 * 1024 });
    registerPages(app, deps);
    registerLinkPages(app, deps);
  });
}

function registerPages(app: FastifyInstance, deps: { pages: PayPages }): void {
  const schema = { hide: true, params: Params, querystring: Query };
  app.get<{ Params: { file: string } }>('/pay/assets/:file', { schema: { hide: true } }, async (request, reply) => {
    const asset = ASSETS[request.params.file];
    if (!asset) return reply.code(404).headers(PAGE_HEADERS).type('text/plain').send('Not found');
    return reply
      .headers({ ...PAGE_HEADERS, 'cache-control': 'public, max-age=300' })
      .type(asset.type)
      .send(asset.body);
  });
  // Browsers ask for /favicon.ico whatever the page links (and log a 404 on the payer's console).
  app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .headers({ ...PAGE_HEADERS, 'cache-control': 'public, max-age=86400' })
      .type('image/svg+xml')
      .send(ASSETS['icon.svg']?.body),
  );
  app.get('/pay/:token', { schema }, async (request, reply) => {
    const req = request as Req;
    return render(deps, reply, req, await deps.pages.state(req.params.token, req.query.retry === '1'));
  });
  app.get('/pay/:token/status', { schema }, async (request, reply) => {
    const state = await deps.pages.state((request as Req).params.token, false);
    return reply.headers(PAGE_HEADERS).send({ waiting: state.kind === 'waiting' });
  });
  // Where the payer's browser comes back from 3-D Secure: the outcome is the payment's, read server-side.
  app.get('/pay/:token/return', { schema }, async (request, reply) => {
    const req = request as Req;
    await deps.pages.state(req.params.token, false);
    return reply.code(303).headers(PAGE_HEADERS).header('location', pathOf(req.params.token)).send();
  });
  app.post('/pay/:token', { schema }, async (request, reply) => {
    const req = request as Req;
    const token = req.params.token;
    const state = await deps.pages.state(token, true);
    if (state.kind !== 'form') return render(deps, reply, req, state);
    const form = (request.body ?? {}) as PayForm;
    if (!deps.pages.csrfValid(cookieOf(request), state.session.id, form.csrf)) {
      return render(deps, reply, req, state, 'bad_form');
    }
    const outcome = await deps.pages.submit(state.session, form, request.ip);
    if (outcome.ok || outcome.code === 'closed') {
      return reply
        .code(303)
        .headers(PAGE_HEADERS)
        .header('location', `${pathOf(token)}?lang=${langOf(req)}`)
        .send();
    }
    return render(deps, reply, req, { kind: 'form', session: outcome.session, method: outcome.method }, outcome.code);
  });
}
