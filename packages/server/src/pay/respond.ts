import type { FastifyReply, FastifyRequest } from 'fastify';
import { readCookie, serializeCookie } from '../shared/cookies.ts';

/** What every hosted page answers with: strict CSP, no referrer, nothing cached, no framing. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const PAGE_HEADERS = {
  'content-security-policy': CSP,
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/** The page's cookie: the random half of the double-submit CSRF pair (HttpOnly, this path only). */
export const COOKIE = 'purse_pay';

export function cookieOf(request: FastifyRequest): string | undefined {
  return readCookie(request.headers.cookie, COOKIE, /^[A-Za-z0-9_-]{32}$/);
}

export function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(body);
}

/** The cookie of this browser, set now when it has none. */
export function ensureCookie(request: FastifyRequest, reply: FastifyReply, fresh: () => string): string {
  const known = cookieOf(request);
  if (known) return known;
  const cookie = fresh();
  reply.header('set-cookie', serializeCookie(COOKIE, cookie, { path: '/pay', sameSite: 'Lax', secure: request.protocol === 'https' }));
  return cookie;
}
