// Bearer routes (RFC 6750): every kind of missing or bad token, and revocation (docs/api.md §2, §3; docs/money-safety.md rule 8).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { pino } from 'pino';
import { createApp } from '../../src/app.ts';
import { buildDeps } from '../../src/deps.ts';
import { buildTestApp, createTestMerchant, manualClock, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { jwt, sameShape } from '../helpers/forged-tokens.ts';
import { assertApiError, assertBearerError, assertTokenIssued, getMerchant, grant, tokenJson } from './support.ts';

let app: TestApp;
let m: TestMerchant;

before(async () => {
  app = await buildTestApp(null);
  m = await createTestMerchant(app, 'Bearer');
});

after(async () => {
  await app.close();
  await app.deps.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('accepted', () => {
  test('a fresh token reads its own merchant', async () => {
    const response = await getMerchant(app, m.auth);
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.id, m.merchantId);
    assert.equal(body.client_id, m.clientId);
    assert.equal(body.object, 'merchant');
    assert.equal(response.headers['api-version'], '1.0.0');
    assert.equal(response.headers['www-authenticate'], undefined);
    assert.ok(!response.body.includes(m.clientSecret));
  });

  for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
    test(`the scheme is case-insensitive: "${scheme}"`, async () => {
      const response = await getMerchant(app, { authorization: `${scheme} ${m.token}` });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().id, m.merchantId);
    });
  }

  test("each merchant's token reads its own merchant only", async () => {
    const other = await createTestMerchant(app, 'Other');
    assert.equal((await getMerchant(app, other.auth)).json().id, other.merchantId);
    assert.equal((await getMerchant(app, m.auth)).json().id, m.merchantId);
  });
});

describe('token_missing', () => {
  test('no Authorization header → 401 token_missing, WWW-Authenticate exactly Bearer realm="payments"', async () => {
    const response = await getMerchant(app);
    assertBearerError(response, 'token_missing');
    assert.ok(!String(response.headers['www-authenticate']).includes('error='));
  });

  test('an empty Authorization header → token_missing', async () => {
    assertBearerError(await getMerchant(app, { authorization: '' }), 'token_missing');
  });

  test('the token in the query string (?access_token=) without a header is refused: token_missing', async () => {
    const response = await getMerchant(app, {}, `/v1/merchant?access_token=${encodeURIComponent(m.token)}`);
    assertBearerError(response, 'token_missing');
    assert.ok(!response.body.includes(m.token));
  });

  test('the token in a form-style body on a GET, or in another header, is refused: token_missing', async () => {
    const inBody = await app.inject({
      method: 'GET',
      url: '/v1/merchant',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `access_token=${encodeURIComponent(m.token)}`,
    });
    assertBearerError(inBody, 'token_missing');
    assertBearerError(await getMerchant(app, { 'x-access-token': m.token, 'access-token': m.token }), 'token_missing');
  });
});

describe('token_invalid', () => {
  const cases: [string, () => string][] = [
    ['empty token after "Bearer "', () => 'Bearer '],
    ['"Bearer" without a token', () => 'Bearer'],
    ['a random string', () => `Bearer ${randomBytes(24).toString('hex')}`],
    ['a truncated token', () => `Bearer ${m.token.slice(0, -1)}`],
    ['a token cut in half', () => `Bearer ${m.token.slice(0, Math.floor(m.token.length / 2))}`],
    ['a token with a character appended', () => `Bearer ${m.token}A`],
    ['a token with one character changed', () => `Bearer ${m.token.slice(0, -1)}${m.token.endsWith('A') ? 'B' : 'A'}`],
    ['a token in upper case', () => `Bearer ${m.token.toUpperCase()}`],
    ['a token of the right shape that was never issued', () => `Bearer ${sameShape(m.token)}`],
    ['the right shape, all zeros', () => `Bearer ${m.token.replace(/[A-Za-z0-9_-]{43}$/, 'A'.repeat(43))}`],
    [
      'a JWT with alg none',
      () => `Bearer ${jwt({ alg: 'none', typ: 'JWT' }, { sub: m.merchantId, merchant_id: m.merchantId, exp: 4_102_444_800 })}`,
    ],
    ['a JWT with alg none and an at_ prefix', () => `Bearer at_${jwt({ alg: 'none' }, { sub: m.merchantId })}`],
    [
      'a JWT with alg HS256 and a made-up signature',
      () => `Bearer ${jwt({ alg: 'HS256', typ: 'JWT' }, { sub: m.merchantId }, 'c2lnbmF0dXJl')}`,
    ],
    ['the client secret as a token', () => `Bearer ${m.clientSecret}`],
    ['the client id as a token', () => `Bearer ${m.clientId}`],
    ['the merchant id as a token', () => `Bearer ${m.merchantId}`],
    ['a token followed by another word', () => `Bearer ${m.token} extra`],
    ['two tokens separated by a comma', () => `Bearer ${m.token},${m.token}`],
    ['a quoted token', () => `Bearer "${m.token}"`],
    ['the scheme without a space', () => `Bearer${m.token}`],
    ['Basic credentials on a Bearer route', () => `Basic ${Buffer.from(`${m.clientId}:${m.clientSecret}`).toString('base64')}`],
    ['the token without a scheme', () => m.token],
    ['a very long token', () => `Bearer at_${'A'.repeat(4000)}`],
    ['SQL in the token', () => `Bearer at_' OR '1'='1`],
  ];
  for (const [name, header] of cases) {
    test(`${name} → 401 token_invalid, WWW-Authenticate with error="invalid_token"`, async () => {
      const response = await getMerchant(app, { authorization: header() });
      assertBearerError(response, 'token_invalid');
      assert.ok(!response.body.includes(m.merchantId), 'nothing of the merchant leaks');
    });
  }

  test('invalid tokens of every kind get byte-identical bodies apart from request_id', async () => {
    const bodies = new Set<string>();
    for (const token of [sameShape(m.token), m.token.slice(0, -1), 'garbage', jwt({ alg: 'none' }, { sub: m.merchantId })]) {
      const response = await getMerchant(app, bearer(token));
      assertBearerError(response, 'token_invalid');
      bodies.add(response.body.replace(/"request_id":"[^"]+"/, ''));
    }
    assert.equal(bodies.size, 1, [...bodies].join('\n'));
  });
});

describe('expiry and revocation', () => {
  test('an expired token → 401 token_expired; one second before, it works; a new token works', async (t) => {
    const clock = manualClock();
    const own = await buildTestApp(t, { clock, env: { PURSE_TOKEN_TTL_S: '60' } });
    const mm = await createTestMerchant(own, 'expiry');
    clock.advance(59_000);
    assert.equal((await getMerchant(own, mm.auth)).statusCode, 200);
    clock.advance(1_000);
    assertBearerError(await getMerchant(own, mm.auth), 'token_expired');
    clock.advance(10 * 60_000);
    assertBearerError(await getMerchant(own, mm.auth), 'token_expired');
    const fresh = assertTokenIssued(await tokenJson(own, grant(mm.clientId, mm.clientSecret)), 60);
    assert.equal((await getMerchant(own, bearer(fresh))).statusCode, 200);
  });

  test('the token TTL follows PURSE_TOKEN_TTL_S and expires_in says so', async (t) => {
    const clock = manualClock();
    const own = await buildTestApp(t, { clock, env: { PURSE_TOKEN_TTL_S: '5' } });
    const mm = await createTestMerchant(own, 'ttl');
    const token = assertTokenIssued(await tokenJson(own, grant(mm.clientId, mm.clientSecret)), 5);
    clock.advance(4_999);
    assert.equal((await getMerchant(own, bearer(token))).statusCode, 200);
    clock.advance(1);
    assertBearerError(await getMerchant(own, bearer(token)), 'token_expired');
  });

  test('rotateSecret revokes every issued token within 5 s (past the 2 s cache)', async (t) => {
    const clock = manualClock();
    const own = await buildTestApp(t, { clock });
    const mm = await createTestMerchant(own, 'rotate');
    const second = assertTokenIssued(await tokenJson(own, grant(mm.clientId, mm.clientSecret)));
    for (const token of [mm.token, second]) assert.equal((await getMerchant(own, bearer(token))).statusCode, 200);
    const rotated = await own.deps.services.merchants.rotateSecret(mm.merchantId);
    assert.ok(rotated.ok);
    clock.advance(3_000);
    for (const token of [mm.token, second]) assertBearerError(await getMerchant(own, bearer(token)), 'token_invalid');
    const fresh = assertTokenIssued(await tokenJson(own, grant(mm.clientId, rotated.value.client_secret)));
    assert.equal((await getMerchant(own, bearer(fresh))).statusCode, 200);
    // Later still, the old tokens stay dead.
    clock.advance(60_000);
    assertBearerError(await getMerchant(own, mm.auth), 'token_invalid');
  });

  test('disabling the merchant revokes its tokens within 5 s; re-enabling does not bring them back', async (t) => {
    const clock = manualClock();
    const own = await buildTestApp(t, { clock });
    const mm = await createTestMerchant(own, 'disable');
    assert.equal((await getMerchant(own, mm.auth)).statusCode, 200);
    assert.ok((await own.deps.services.merchants.setStatus(mm.merchantId, 'disabled')).ok);
    clock.advance(3_000);
    assertBearerError(await getMerchant(own, mm.auth), 'token_invalid');
    assert.ok((await own.deps.services.merchants.setStatus(mm.merchantId, 'active')).ok);
    clock.advance(3_000);
    assertBearerError(await getMerchant(own, mm.auth), 'token_invalid');
    const fresh = assertTokenIssued(await tokenJson(own, grant(mm.clientId, mm.clientSecret)));
    assert.equal((await getMerchant(own, bearer(fresh))).statusCode, 200);
  });

  test('revocation on the real clock: a cached token is refused within 5 s of disabling', async (t) => {
    const own = await buildTestApp(t);
    const mm = await createTestMerchant(own, 'real clock');
    assert.equal((await getMerchant(own, mm.auth)).statusCode, 200);
    const disabledAt = Date.now();
    assert.ok((await own.deps.services.merchants.setStatus(mm.merchantId, 'disabled')).ok);
    let last = 200;
    while (Date.now() - disabledAt < 5_000) {
      const response = await getMerchant(own, mm.auth);
      last = response.statusCode;
      if (last === 401) {
        assertBearerError(response, 'token_invalid');
        break;
      }
      assert.equal(last, 200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(last, 401, 'revoked within 5 s');
  });

  test('two nodes on one database: a token revoked on one is refused by the other within 5 s', async (t) => {
    // Node B: its own services and auth cache, the same database (and clock) as node A.
    const clock = manualClock();
    const nodeA = await buildTestApp(t, { clock });
    const depsB = await buildDeps(nodeA.deps.config, { db: nodeA.deps.db, clock, logger: pino({ level: 'silent' }) });
    const nodeB = await createApp(depsB);
    t.after(() => nodeB.close());
    const mm = await createTestMerchant(nodeA, 'two nodes');
    // Node B caches the token as valid.
    const first = await nodeB.inject({ method: 'GET', url: '/v1/merchant', headers: mm.auth });
    assert.equal(first.statusCode, 200, first.body);
    assert.ok((await nodeA.deps.services.merchants.rotateSecret(mm.merchantId)).ok);
    clock.advance(3_000);
    const afterRotation = await nodeB.inject({ method: 'GET', url: '/v1/merchant', headers: mm.auth });
    assertBearerError(afterRotation, 'token_invalid');
  });
});

describe('routes, envelopes and headers', () => {
  test('an unknown route under /v1 → 404 route_not_found, without, with a valid and with an invalid token', async () => {
    for (const headers of [{}, m.auth, bearer('garbage')]) {
      for (const url of ['/v1/nope', '/v1/merchant/extra', '/v1/', '/v1', '/v1/payments/pay_123/../../merchant2']) {
        const response = await getMerchant(app, headers, url);
        assertApiError(response, 404, 'invalid_request_error', 'route_not_found');
        assert.equal(response.headers['www-authenticate'], undefined);
      }
    }
  });

  test('a wrong method on /v1/merchant → 405 with Allow (with a token)', async () => {
    const response = await app.inject({ method: 'DELETE', url: '/v1/merchant', headers: m.auth });
    assertApiError(response, 405, 'invalid_request_error', 'method_not_allowed');
    assert.match(String(response.headers.allow), /\bGET\b/);
  });

  test('error bodies follow {"error":{type,code,message,request_id}} and request_id equals Request-Id', async () => {
    const responses = [await getMerchant(app), await getMerchant(app, bearer('garbage')), await getMerchant(app, m.auth, '/v1/unknown')];
    const ids = new Set<string>();
    for (const response of responses) {
      const body = JSON.parse(response.body);
      assert.equal(body.error.request_id, response.headers['request-id']);
      assert.match(body.error.request_id, /^req_/);
      ids.add(body.error.request_id);
    }
    assert.equal(ids.size, responses.length, 'each response has its own request id');
  });

  test('a Request-Id sent by the client is not echoed back', async () => {
    const response = await getMerchant(app, { 'request-id': 'req_forged' });
    assert.notEqual(response.headers['request-id'], 'req_forged');
    assert.notEqual(response.json().error.request_id, 'req_forged');
  });

  test('Api-Version: 1.0.0 and Request-Id on every response, errors included', async (t) => {
    const own = await buildTestApp(t, { clock: manualClock(), env: { PURSE_TOKEN_FAILURE_LIMIT: '1' } });
    const mm = await createTestMerchant(own, 'headers');
    const requests: [string, InjectOptions][] = [
      ['GET /v1/merchant 200', { method: 'GET', url: '/v1/merchant', headers: mm.auth }],
      ['GET /v1/merchant 401 missing', { method: 'GET', url: '/v1/merchant' }],
      ['GET /v1/merchant 401 invalid', { method: 'GET', url: '/v1/merchant', headers: bearer('x') }],
      ['GET /v1/nope 404', { method: 'GET', url: '/v1/nope' }],
      ['GET /nope 404', { method: 'GET', url: '/nope' }],
      ['DELETE /v1/merchant 405', { method: 'DELETE', url: '/v1/merchant', headers: mm.auth }],
      ['POST /oauth/token 200', { method: 'POST', url: '/oauth/token', payload: grant(mm.clientId, mm.clientSecret) }],
      ['POST /oauth/token 400', { method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/json' }, payload: '{' }],
      ['POST /oauth/token 401', { method: 'POST', url: '/oauth/token', payload: grant(mm.clientId, 'wrong') }],
      ['POST /oauth/token 429', { method: 'POST', url: '/oauth/token', payload: grant(mm.clientId, 'wrong') }],
      ['POST /oauth/token 413', { method: 'POST', url: '/oauth/token', payload: { ...grant('a', 'b'), pad: 'x'.repeat(5000) } }],
      ['GET /oauth/token 405', { method: 'GET', url: '/oauth/token' }],
      ['GET /healthz 200', { method: 'GET', url: '/healthz' }],
    ];
    const statuses: number[] = [];
    for (const [name, request] of requests) {
      const response = await own.inject(request);
      statuses.push(response.statusCode);
      assert.equal(response.headers['api-version'], '1.0.0', name);
      assert.match(String(response.headers['request-id']), /^req_/, name);
    }
    assert.deepEqual(statuses, [200, 401, 401, 404, 404, 405, 200, 400, 401, 429, 413, 405, 200]);
  });

  test('the token is checked before the body is read: bad, oversized or foreign bodies without a token → 401 token_missing', async () => {
    const bodies: [string, string][] = [
      ['application/json', '{"amount":'],
      ['application/json', JSON.stringify({ pad: 'x'.repeat(20 * 1024) })],
      ['text/plain', 'hello'],
      ['application/json', JSON.stringify({ amount: '100', currency: 'UGX', reference: 'r1' })],
    ];
    for (const [contentType, payload] of bodies) {
      for (const headers of [{}, bearer('garbage')]) {
        const response = await app.inject({
          method: 'POST',
          url: '/v1/payments',
          headers: { 'content-type': contentType, ...headers },
          payload,
        });
        assertBearerError(response, 'authorization' in headers ? 'token_invalid' : 'token_missing');
      }
    }
  });

  test('/healthz needs no token', async () => {
    const response = await app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(response.statusCode, 200);
  });
});
