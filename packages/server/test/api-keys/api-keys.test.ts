// API keys over HTTP: several named, scoped credentials per merchant; the token carries the key's
// scopes; a read-only key creates nothing; roll (with and without overlap) and revoke.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, createTestMerchant, manualClock } from '../helpers/app.ts';
import { fundedWallet, get, paymentBody, post, uniqueRef } from '../helpers/factories.ts';
import { exchange, keyWith } from './support.ts';

test("the merchant's first credential is its first key, with scope all; the token request is unchanged", async (t) => {
  const app = await buildTestApp(t);
  const m = await createTestMerchant(app);
  const list = await get(app, m, '/v1/api_keys');
  assert.equal(list.statusCode, 200, list.body);
  const [first, ...rest] = list.json().data;
  assert.equal(rest.length, 0);
  assert.equal(first.client_id, m.clientId);
  assert.deepEqual(first.scopes, ['all']);
  assert.equal(first.status, 'active');
  assert.equal(first.client_secret, undefined, 'a secret is never listed');
  assert.equal(JSON.stringify(list.json()).includes(m.clientSecret), false);
});

test('create: the secret is shown once; several keys per merchant; another merchant sees none of them', async (t) => {
  const app = await buildTestApp(t);
  const m = await createTestMerchant(app);
  const other = await createTestMerchant(app, 'Other');
  const created = await post(app, m, '/v1/api_keys', { name: 'reporting', scopes: ['payments:read', 'wallets:read'] });
  assert.equal(created.statusCode, 201, created.body);
  const key = created.json();
  assert.match(key.id, /^key_/);
  assert.match(key.client_secret, /^sk_test_/);
  assert.deepEqual(key.scopes, ['payments:read', 'wallets:read']);
  const again = await get(app, m, `/v1/api_keys/${key.id}`);
  assert.equal(again.json().client_secret, undefined);
  assert.equal((await get(app, m, '/v1/api_keys')).json().data.length, 2);
  const foreign = await get(app, other, `/v1/api_keys/${key.id}`);
  assert.equal(foreign.statusCode, 404);
  assert.equal(foreign.json().error.code, 'resource_not_found');
  for (const bad of [
    { name: 'x', scopes: [] },
    { name: 'x', scopes: ['payments:delete'] },
    { name: '', scopes: ['all'] },
    { scopes: ['all'] },
  ]) {
    assert.equal((await post(app, m, '/v1/api_keys', bad)).statusCode, 400, JSON.stringify(bad));
  }
  const extra = await post(app, m, '/v1/api_keys', { name: 'x', scopes: ['all'], admin: true });
  assert.equal(extra.json().error.code, 'parameter_unknown');
});

test('a read-only key reads but cannot create anything: 403 insufficient_scope, nothing stored', async (t) => {
  const app = await buildTestApp(t);
  const m = await createTestMerchant(app);
  const wallet = await fundedWallet(app, m, '20.00');
  const reader = await keyWith(app, m, ['payments:read', 'wallets:read']);
  const asReader = { ...m, auth: reader.auth };
  assert.equal((await get(app, asReader, '/v1/payments')).statusCode, 200);
  assert.equal((await get(app, asReader, `/v1/wallets/${wallet}`)).statusCode, 200);
  const before = (await get(app, m, '/v1/payments?limit=100')).json().data.length;
  const attempts: [string, unknown][] = [
    ['/v1/payments', paymentBody({ reference: uniqueRef('ro') })],
    ['/v1/wallets', { currency: 'KES' }],
    ['/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/ro' }],
    ['/v1/api_keys', { name: 'escalate', scopes: ['all'] }],
    [
      '/v1/payouts',
      { reference: uniqueRef('ro'), amount: '1.00', currency: 'KES', destination: { type: 'wallet', wallet: { wallet_id: wallet } } },
    ],
  ];
  for (const [url, body] of attempts) {
    const res = await post(app, asReader, url, body);
    assert.equal(res.statusCode, 403, `${url}: ${res.body}`);
    assert.equal(res.json().error.code, 'insufficient_scope');
    assert.match(String(res.headers['www-authenticate']), /error="insufficient_scope", scope="[a-z:]+"/);
  }
  assert.equal((await get(app, m, '/v1/payments?limit=100')).json().data.length, before);
  assert.equal((await get(app, m, '/v1/api_keys')).json().data.length, 2, 'no key was created');
});

test('roll without overlap: the old secret and its tokens stop at once; the new secret works', async (t) => {
  const app = await buildTestApp(t);
  const m = await createTestMerchant(app);
  const k = await keyWith(app, m, ['payments:read']);
  const rolled = await post(app, m, `/v1/api_keys/${k.id}/roll`, {});
  assert.equal(rolled.statusCode, 200, rolled.body);
  assert.notEqual(rolled.json().client_secret, k.clientSecret);
  assert.equal(await exchange(app, k.clientId, k.clientSecret), null, 'old secret refused');
  assert.equal((await app.inject({ method: 'GET', url: '/v1/payments', headers: k.auth })).statusCode, 401, 'old token revoked');
  const fresh = await exchange(app, k.clientId, rolled.json().client_secret);
  assert.ok(fresh);
  assert.equal((await app.inject({ method: 'GET', url: '/v1/payments', headers: { authorization: `Bearer ${fresh}` } })).statusCode, 200);
});

test('roll with overlap: the old secret and its tokens work until the overlap ends, then stop', async (t) => {
  const clock = manualClock();
  const app = await buildTestApp(t, { clock });
  const m = await createTestMerchant(app);
  const k = await keyWith(app, m, ['payments:read']);
  const rolled = await post(app, m, `/v1/api_keys/${k.id}/roll`, { overlap_seconds: 600 });
  assert.equal(rolled.statusCode, 200, rolled.body);
  assert.ok(rolled.json().previous_secret_expires_at);
  const during = await exchange(app, k.clientId, k.clientSecret);
  assert.ok(during, 'old secret still accepted during the overlap');
  const call = (auth: { authorization: string }) => app.inject({ method: 'GET', url: '/v1/payments', headers: auth });
  assert.equal((await call(k.auth)).statusCode, 200, 'old token still valid during the overlap');
  clock.advance(601_000);
  assert.equal(await exchange(app, k.clientId, k.clientSecret), null, 'old secret refused after the overlap');
  assert.equal((await call(k.auth)).statusCode, 401);
  assert.equal((await call({ authorization: `Bearer ${during}` })).statusCode, 401, 'a token of the old secret ends with the overlap');
  assert.ok(await exchange(app, k.clientId, rolled.json().client_secret));
  assert.equal((await post(app, m, `/v1/api_keys/${k.id}/roll`, { overlap_seconds: 604_801 })).statusCode, 400);
});

test('revoke: the key is listed as revoked, its secret and tokens stop; it cannot be rolled', async (t) => {
  const app = await buildTestApp(t);
  const m = await createTestMerchant(app);
  const k = await keyWith(app, m, ['all']);
  const revoked = await app.inject({ method: 'DELETE', url: `/v1/api_keys/${k.id}`, headers: m.auth });
  assert.equal(revoked.statusCode, 200, revoked.body);
  assert.equal(revoked.json().status, 'revoked');
  assert.ok(revoked.json().revoked_at);
  assert.equal((await app.inject({ method: 'GET', url: '/v1/merchant', headers: k.auth })).statusCode, 401);
  assert.equal(await exchange(app, k.clientId, k.clientSecret), null);
  assert.equal((await post(app, m, `/v1/api_keys/${k.id}/roll`, {})).json().error.code, 'invalid_state');
  assert.equal((await app.inject({ method: 'GET', url: '/v1/merchant', headers: m.auth })).statusCode, 200, 'other keys unaffected');
});
