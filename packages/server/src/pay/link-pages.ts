import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LinkRow, PaymentLinkService } from '../payment-links/service.ts';
import { ApiError } from '../shared/errors.ts';
import { type Messages, messages, pickLang } from './i18n.ts';
import * as page from './page.ts';
import { cookieOf, ensureCookie, html, PAGE_HEADERS } from './respond.ts';
import type { PayPages } from './service.ts';

/**
 * A payment link's page (`/pay/link/<token>`): each visit opens a fresh checkout session and
 * sends the browser to it; a link with an open amount first asks the payer for the amount.
 */
type Req = FastifyRequest<{ Params: { token: string }; Querystring: { lang?: string } }>;
type Deps = { pages: PayPages; links: PaymentLinkService };

const Params = { type: 'object', properties: { token: { type: 'string', maxLength: 64 } }, required: ['token'] } as const;
const Query = { type: 'object', properties: { lang: { type: 'string', maxLength: 5 } } } as const;

const frame = (m: Messages, title: string, link: LinkRow | null, selfPath: string | null): page.PageFrame => ({
  m,
  title,
  amount: '',
  currency: link?.currency ?? 'USD',
  description: link?.description ?? null,
  selfPath,
});

function amountForm(deps: Deps, request: Req, reply: FastifyReply, link: LinkRow, error: string | null): FastifyReply {
  const m = messages(pickLang(request.query.lang, request.headers['accept-language']));
  const self = `/pay/link/${request.params.token}`;
  const cookie = ensureCookie(request, reply, deps.pages.newCookie);
  const alert = error ? `<div class="error" role="alert">${page.escapeHtml(m.reason(error))}</div>` : '';
  const form = `${alert}<form method="post" action="${page.escapeHtml(self)}?lang=${m.lang}"><input type="hidden" name="csrf" value="${deps.pages.csrfOf(cookie, link.id)}"><div class="field"><label for="amount">${m.t('amount')} (${page.escapeHtml(link.currency)})</label><input id="amount" name="amount" inputmode="decimal" maxlength="20" required aria-describedby="amount-hint"><span id="amount-hint" class="hint">${page.escapeHtml(m.t('amountHint', { currency: link.currency }))}</span></div><button type="submit" class="primary">${m.t('continue')}</button></form>`;
  return html(reply, error === 'bad_form' ? 403 : error ? 400 : 200, page.layout(frame(m, m.t('payTo'), link, self), form));
}

async function visit(deps: Deps, request: Req, reply: FastifyReply, typed: string | null): Promise<FastifyReply> {
  const m = messages(pickLang(request.query.lang, request.headers['accept-language']));
  const link = await deps.links.findByToken(request.params.token);
  if (!link) return html(reply, 404, page.layout(frame(m, m.t('notFound'), null, null), page.messagePanel(m.t('notFoundHint'), null)));
  if (!link.active) {
    return html(reply, 410, page.layout(frame(m, m.t('linkInactive'), link, null), page.messagePanel(m.t('linkInactiveHint'), null)));
  }
  if (link.amount === null && typed === null) return amountForm(deps, request, reply, link, null);
  try {
    const { url } = await deps.links.openSession(link, typed === null ? null : typed.trim().replace(',', '.'));
    return reply
      .code(303)
      .headers(PAGE_HEADERS)
      .header('location', `${new URL(url).pathname}?lang=${m.lang}`)
      .send();
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) return amountForm(deps, request, reply, link, 'invalid_amount');
    throw error;
  }
}

export function registerLinkPages(app: FastifyInstance, deps: Deps): void {
  const schema = { hide: true, params: Params, querystring: Query };
  app.get('/pay/link/:token', { schema }, async (request, reply) => visit(deps, request as Req, reply, null));
  app.post('/pay/link/:token', { schema }, async (request, reply) => {
    const req = request as Req;
    const body = (request.body ?? {}) as { csrf?: string; amount?: string };
    const link = await deps.links.findByToken(req.params.token);
    if (link && link.amount === null && !deps.pages.csrfValid(cookieOf(request), link.id, body.csrf)) {
      return amountForm(deps, req, reply, link, 'bad_form');
    }
    return visit(deps, req, reply, link?.amount === null ? (body.amount ?? '') : null);
  });
}
