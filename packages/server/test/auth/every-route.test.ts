// Every route the app registers, taken from Fastify itself, so that a route added later is covered
// without anyone remembering to list it: each /v1 route refuses a missing, random, forged or
// truncated token with the documented 401 and creates nothing, and the only routes outside /v1
// are the public ones listed below (docs/api.md §2, §3).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { HTTPMethods, InjectOptions } from 'fastify';
import { sql } from 'kysely';
import { newId } from '../../src/shared/ids.ts';
import { createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { cardMethod, createWallet, fundedWallet, get, paymentBody, post, uniqueRef } from '../helpers/factories.ts';
import { algNoneFor, sameShape } from '../helpers/forged-tokens.ts';
import { appWithRoutes, type Route } from '../helpers/routes.ts';
import { assertBearerError, type Reply } from '../oauth/support.ts';

/**
 * Routes outside /v1 that answer without a token. A new one fails the test until it is added
 * here, which is the moment to decide that it really is meant to be public.
 */
const PUBLIC_ROUTES = new Set([
  '/',
  '/healthz',
  '/readyz',
  '/metrics',
  '/openapi.json',
  '/oauth/token',
  '/provider-callbacks/:provider',
  // The payer's browser during 3-D Secure: a MAC in the URL, the outcome read from the acquirer.
  '/3ds/:id/:token',
  '/3ds/:id/:token/return',
  // The sandbox's challenge page (its reference is unguessable, and only sandbox cards have one).
  '/sandbox/3ds/:reference',
  // Hosted checkout: the payer's browser has no token; the unguessable page token is the capability.
  '/pay/assets/:file',
  '/favicon.ico',
  '/pay/:token',
  '/pay/:token/status',
  '/pay/:token/return',
  '/pay/link/:token',
]);
/** The API reference UI serves its own static files under /docs; none of them touches merchant data. */
const isDocsRoute = (url: string) => url === '/docs' || url.startsWith('/docs/');
/**
 * The dashboard is static files too: the page reaches merchant data only through /v1, with a token. Its own
 * /dashboard/api/ routes (sign-in, the session and its token, users) are cookie-authenticated and checked in test/users.
 */
const isDashboardRoute = (url: string) => url === '/dashboard' || url.startsWith('/dashboard/');

/** Real objects of the merchant, one per kind, to put in route parameters. */
async function realIds(app: TestApp, m: TestMerchant): Promise<Record<string, string>> {
  const wallet = await fundedWallet(app, m, '50.00');
  const payment = await post(app, m, '/v1/payments', paymentBody({ reference: uniqueRef('every-route') }));
  assert.equal(payment.statusCode, 201, payment.body);
  const topups = await get(app, m, `/v1/topups?limit=1`);
  const endpoint = await post(app, m, '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/every-route' });
  assert.equal(endpoint.statusCode, 201, endpoint.body);
  const events = await get(app, m, '/v1/events?limit=1');
  const transfer = await post(app, m, '/v1/transfers', {
    reference: uniqueRef('every-route'),
    amount: '1.00',
    currency: 'KES',
    source_wallet_id: wallet,
    destination_wallet_id: await createWallet(app, m),
  });
  assert.equal(transfer.statusCode, 201, transfer.body);
  const refund = await post(app, m, '/v1/refunds', { reference: uniqueRef('every-route'), payment_id: payment.json().id, amount: '1.00' });
  assert.equal(refund.statusCode, 201, refund.body);
  const payout = await post(app, m, '/v1/payouts', {
    reference: uniqueRef('every-route'),
    amount: '1.00',
    currency: 'KES',
    destination: { type: 'wallet', wallet: { wallet_id: wallet } },
  });
  assert.equal(payout.statusCode, 201, payout.body);
  const session = await post(app, m, '/v1/checkout_sessions', checkoutBody(uniqueRef('every-route')));
  assert.equal(session.statusCode, 201, session.body);
  const link = await post(app, m, '/v1/payment_links', { currency: 'KES', description: 'Every route', amount: '1.00' });
  assert.equal(link.statusCode, 201, link.body);
  const keys = await get(app, m, '/v1/api_keys');
  return {
    payment_links: link.json().id,
    checkout_sessions: session.json().id,
    api_keys: keys.json().data[0].id,
    refunds: refund.json().id,
    payouts: payout.json().id,
    transfers: transfer.json().id,
    payments: payment.json().id,
    topups: topups.json().data[0].id,
    wallets: wallet,
    events: events.json().data[0].id,
    webhook_endpoints: endpoint.json().id,
  };
}

/** The URL with each `:param` replaced by a real id of the kind its path names (the first segment after /v1 and /v1/sandbox). */
function fill(url: string, ids: Record<string, string>): string {
  const kind = url.replace(/^\/v1\/(sandbox\/)?/, '').split('/')[0] ?? '';
  // A route of a kind this test has never seen still gets an id-shaped value: the token is checked first.
  return url.replace(/:[A-Za-z_]+/g, () => ids[kind] ?? newId('payment'));
}

const checkoutBody = (reference: string) => ({
  reference,
  amount: '1.00',
  currency: 'KES',
  success_url: 'https://shop.example/ok',
  cancel_url: 'https://shop.example/',
});

/** A body that would create something if the token were not checked first. */
function bodyFor(route: Route, walletId: string): Record<string, unknown> | undefined {
  if (route.method !== 'POST' && route.method !== 'PUT' && route.method !== 'PATCH') return undefined;
  const reference = uniqueRef('every-route-forged');
  if (route.url === '/v1/payments') return paymentBody({ reference });
  if (route.url === '/v1/topups') return { reference, amount: '1.00', currency: 'KES', wallet_id: walletId, source: cardMethod() };
  if (route.url === '/v1/wallets') return { currency: 'KES', reference };
  if (route.url === '/v1/checkout_sessions') return checkoutBody(reference);
  if (route.url === '/v1/payment_links') return { currency: 'KES', description: 'Forged', amount: '1.00' };
  if (route.url === '/v1/payment_links/:id') return { active: false };
  if (route.url === '/v1/webhook_endpoints') return { url: 'http://127.0.0.1:9/forged' };
  if (route.url === '/v1/transfers')
    return { reference, amount: '1.00', currency: 'KES', source_wallet_id: walletId, destination_wallet_id: walletId };
  if (route.url === '/v1/payouts')
    return { reference, amount: '1.00', currency: 'KES', destination: { type: 'wallet', wallet: { wallet_id: walletId } } };
  return {};
}

/** What the merchant owns, row by row: a refused request must leave every count and state as it was. */
async function holdings(app: TestApp, merchantId: string): Promise<unknown> {
  const result = await sql`
    SELECT (SELECT count(*) FROM charges WHERE merchant_id = ${merchantId})::int AS charges,
           (SELECT string_agg(status, ',' ORDER BY id) FROM charges WHERE merchant_id = ${merchantId}) AS charge_states,
           (SELECT count(*) FROM wallets WHERE merchant_id = ${merchantId})::int AS wallets,
           (SELECT string_agg(status, ',' ORDER BY id) FROM wallets WHERE merchant_id = ${merchantId}) AS wallet_states,
           (SELECT count(*) FROM webhook_endpoints WHERE merchant_id = ${merchantId})::int AS endpoints,
           (SELECT count(*) FROM events WHERE merchant_id = ${merchantId})::int AS events,
           (SELECT count(*) FROM transfers WHERE merchant_id = ${merchantId})::int AS transfers,
           (SELECT string_agg(status, ',' ORDER BY id) FROM checkout_sessions WHERE merchant_id = ${merchantId}) AS sessions,
           (SELECT string_agg(active::text, ',' ORDER BY id) FROM payment_links WHERE merchant_id = ${merchantId}) AS links,
           (SELECT count(*) FROM outflows WHERE merchant_id = ${merchantId})::int AS outflows,
           (SELECT string_agg(status, ',' ORDER BY id) FROM outflows WHERE merchant_id = ${merchantId}) AS outflow_states,
           (SELECT string_agg(debited || '/' || reserved, ',') FROM merchant_balances WHERE merchant_id = ${merchantId}) AS funds,
           (SELECT count(*) FROM access_tokens WHERE merchant_id = ${merchantId})::int AS tokens`.execute(app.deps.db.db);
  return result.rows[0];
}

/** A 401 to HEAD carries no body: status, challenge and request id are what it can show. */
function assertHeadRefused(response: Reply, code: 'token_missing' | 'token_invalid'): void {
  assert.equal(response.statusCode, 401);
  assert.match(String(response.headers['request-id']), /^req_[0-9a-z]+$/);
  const challenge = String(response.headers['www-authenticate']);
  if (code === 'token_missing') assert.equal(challenge, 'Bearer realm="payments"');
  else assert.match(challenge, /^Bearer realm="payments", *error="invalid_token"/);
}

let app: TestApp;
let routes: Route[];
let m: TestMerchant;
let ids: Record<string, string>;

before(async () => {
  ({ app, routes } = await appWithRoutes());
  m = await createTestMerchant(app, 'Every route');
  ids = await realIds(app, m);
});

after(async () => {
  await app.close();
  await app.deps.close();
});

describe('the route list', () => {
  test('Fastify reported the routes, /v1 ones among them', () => {
    const v1 = routes.filter((r) => r.url.startsWith('/v1/'));
    // A broken hook would make every other test here pass on an empty list.
    assert.ok(v1.length >= 25, `only ${v1.length} /v1 routes seen`);
    for (const r of [...routes.slice(0, 3), ...v1.slice(0, 3)])
      assert.ok(app.hasRoute({ method: r.method as HTTPMethods, url: r.url }), `${r.method} ${r.url}`);
  });

  test('every route outside /v1 is a listed public route', () => {
    const unlisted = routes.filter(
      (r) => !r.url.startsWith('/v1/') && !PUBLIC_ROUTES.has(r.url) && !isDocsRoute(r.url) && !isDashboardRoute(r.url),
    );
    assert.deepEqual(
      unlisted.map((r) => `${r.method} ${r.url}`),
      [],
    );
  });

  test('the real token passes on every GET /v1 route with these ids (the ids are plausible)', async () => {
    for (const route of routes.filter((r) => r.method === 'GET' && r.url.startsWith('/v1/'))) {
      const response = await app.inject({ method: 'GET', url: fill(route.url, ids), headers: m.auth });
      assert.equal(response.statusCode, 200, `GET ${route.url}: ${response.body}`);
    }
  });
});

describe('every /v1 route refuses a request without a valid token', () => {
  const refusals: [string, 'token_missing' | 'token_invalid', () => Record<string, string>][] = [
    ['no Authorization header', 'token_missing', () => ({})],
    ['a random token', 'token_invalid', () => ({ authorization: `Bearer ${sameShape(m.token)}` })],
    ['a random string', 'token_invalid', () => ({ authorization: `Bearer ${randomBytes(24).toString('hex')}` })],
    ['an alg none JWT naming the merchant', 'token_invalid', () => ({ authorization: `Bearer ${algNoneFor(m.merchantId)}` })],
    ['the real token truncated by one character', 'token_invalid', () => ({ authorization: `Bearer ${m.token.slice(0, -1)}` })],
  ];
  for (const [label, code, headers] of refusals) {
    test(`${label} → 401 ${code} on every route, nothing created`, async () => {
      const before = await holdings(app, m.merchantId);
      const v1 = routes.filter((r) => r.url.startsWith('/v1/'));
      for (const route of v1) {
        const body = bodyFor(route, ids.wallets ?? '');
        const response = await app.inject({
          method: route.method as NonNullable<InjectOptions['method']>,
          url: fill(route.url, ids),
          headers: headers(),
          ...(body !== undefined ? { payload: body } : {}),
        });
        if (route.method === 'HEAD') assertHeadRefused(response, code);
        else assertBearerError(response, code);
      }
      assert.deepEqual(await holdings(app, m.merchantId), before, 'a refused request changed what the merchant holds');
    });
  }
});
