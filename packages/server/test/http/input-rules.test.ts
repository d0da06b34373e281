// Input rules of the API: answers carrying a token or a secret are Cache-Control: no-store (every
// /v1 and /oauth answer is); webhook `events: []` and raw spaces in URLs are refused, nothing
// stored; the sandbox fail body is optional in the OpenAPI document as its description says.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';
import { cardMethod, uniqueRef } from '../helpers/factories.ts';

test('token, webhook secret and every other /v1 answer carry Cache-Control: no-store', async (t) => {
  const app = await buildTestApp(t);
  const merchant = await createTestMerchant(app, 'No store');
  const created = await app.deps.services.merchants.createMerchant({ name: 'No store 2', livemode: false });
  assert.ok(created.ok);
  const token = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: { grant_type: 'client_credentials', client_id: created.value.client_id, client_secret: created.value.client_secret },
  });
  assert.equal(token.statusCode, 200);
  assert.equal(token.headers['cache-control'], 'no-store', 'token');
  const endpoint = await app.inject({
    method: 'POST',
    url: '/v1/webhook_endpoints',
    headers: merchant.auth,
    payload: { url: 'https://shop.example/hooks' },
  });
  assert.equal(endpoint.statusCode, 201, endpoint.body);
  assert.match(endpoint.json().secret, /^whsec_/);
  assert.equal(endpoint.headers['cache-control'], 'no-store', 'endpoint create');
  const rotated = await app.inject({
    method: 'POST',
    url: `/v1/webhook_endpoints/${endpoint.json().id}/rotate_secret`,
    headers: merchant.auth,
  });
  assert.equal(rotated.statusCode, 200, rotated.body);
  assert.match(rotated.json().secret, /^whsec_/);
  assert.equal(rotated.headers['cache-control'], 'no-store', 'rotate_secret');
  // Every GET of the OpenAPI document under /v1, whatever it answers, and an error answer.
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
  let routes = 0;
  for (const [route, methods] of Object.entries(doc.paths)) {
    if (!route.startsWith('/v1/') || !methods.get) continue;
    const res = await app.inject({ method: 'GET', url: route.replace(/\{[^}]+\}/g, 'x_unknown'), headers: merchant.auth });
    assert.equal(res.headers['cache-control'], 'no-store', `GET ${route} (${res.statusCode})`);
    routes++;
  }
  assert.ok(routes >= 10, `only ${routes} GET routes`);
  const unauth = await app.inject({ method: 'GET', url: '/v1/payments' });
  assert.equal(unauth.headers['cache-control'], 'no-store', '401');
});

test('webhook endpoint: events [] and a URL with a raw space are refused, nothing stored; callback_url with a space too', async (t) => {
  const app = await buildTestApp(t);
  const merchant = await createTestMerchant(app, 'Input rules');
  const post = (payload: unknown) =>
    app.inject({ method: 'POST', url: '/v1/webhook_endpoints', headers: merchant.auth, payload: payload as object });
  const empty = await post({ url: 'https://shop.example/hooks', events: [] });
  assert.equal(empty.statusCode, 400, empty.body);
  assert.equal(empty.json().error.code, 'parameter_invalid');
  assert.equal(empty.json().error.param, 'events');
  const spaced = await post({ url: 'https://shop.example/a b' });
  assert.equal(spaced.statusCode, 400, spaced.body);
  assert.equal(spaced.json().error.param, 'url');
  const list = await app.inject({ method: 'GET', url: '/v1/webhook_endpoints', headers: merchant.auth });
  assert.deepEqual(list.json().data, [], 'nothing stored');
  const payment = await app.inject({
    method: 'POST',
    url: '/v1/payments',
    headers: merchant.auth,
    payload: {
      reference: uniqueRef('sp'),
      amount: '1.00',
      currency: 'KES',
      payment_method: cardMethod(),
      callback_url: 'https://shop.example/cb x',
    },
  });
  assert.equal(payment.statusCode, 400, payment.body);
  assert.equal(payment.json().error.param, 'callback_url');
});

test('the OpenAPI document: every sandbox fail body is optional, as its description says', async (t) => {
  const app = await buildTestApp(t);
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
    paths: Record<string, { post?: { description?: string; requestBody?: { required?: boolean } } }>;
  };
  const fails = Object.entries(doc.paths).filter(([path]) => path.endsWith('/fail'));
  assert.ok(fails.length > 0);
  for (const [path, ops] of fails) {
    assert.match(ops.post?.description ?? '', /Optional body/, path);
    assert.notEqual(ops.post?.requestBody?.required, true, path);
  }
  // And a request without a body is accepted as the description says (404 for an unknown id, not 400).
  const merchant = await createTestMerchant(app, 'Sandbox fail');
  const noBody = await app.inject({
    method: 'POST',
    url: (fails[0]?.[0] ?? '').replace(/\{[^}]+\}/g, 'pay_unknown'),
    headers: merchant.auth,
  });
  assert.notEqual(noBody.statusCode, 400, noBody.body);
});

test('at most 16 webhook endpoints per merchant: the 17th is a 400 limit_exceeded and not stored; a deleted one frees a place', async (t) => {
  const app = await buildTestApp(t);
  const merchant = await createTestMerchant(app, 'Endpoint limit');
  const post = () =>
    app.inject({ method: 'POST', url: '/v1/webhook_endpoints', headers: merchant.auth, payload: { url: 'https://shop.example/hooks' } });
  const results = await Promise.all(Array.from({ length: 20 }, () => post()));
  const created = results.filter((r) => r.statusCode === 201);
  const refused = results.filter((r) => r.statusCode === 400);
  assert.equal(created.length, 16);
  assert.equal(refused.length, 4);
  assert.equal(refused[0]?.json().error.code, 'limit_exceeded');
  const list = await app.inject({ method: 'GET', url: '/v1/webhook_endpoints?limit=100', headers: merchant.auth });
  assert.equal(list.json().data.length, 16);
  await app.inject({ method: 'DELETE', url: `/v1/webhook_endpoints/${created[0]?.json().id}`, headers: merchant.auth });
  assert.equal((await post()).statusCode, 201);
});
