// Limits that strangers cannot turn against a merchant, and that hold before any database work:
// failed token requests are counted per (client, source address), failed and unauthenticated /v1
// requests per source address, the per-merchant rate limit answers 429 with its headers, and
// X-Forwarded-For is believed only from PURSE_TRUSTED_PROXIES. Requests from 127.0.0.2 are real
// connections from another loopback address.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, test } from 'node:test';
import { buildTestApp, createTestMerchant, manualClock, type TestApp } from '../helpers/app.ts';
import { assertApiError, assertOAuthError, assertTokenIssued, grant, JSON_HEADERS, type Reply, tokenJson } from '../oauth/support.ts';

/** One request over a real socket from `localAddress` (127.0.0.1 or another loopback address). */
function send(
  base: string,
  localAddress: string,
  options: { method: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<Reply & { json(): unknown }> {
  const url = new URL(options.path, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: options.method,
        headers: options.headers,
        localAddress,
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

async function listening(app: TestApp): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening');
  return `http://127.0.0.1:${address.port}`;
}

const tokenRequest = (clientId: string, secret: string) => ({
  method: 'POST',
  path: '/oauth/token',
  headers: { ...JSON_HEADERS },
  body: JSON.stringify(grant(clientId, secret)),
});

describe('token failures are counted per (client, address)', () => {
  test('15 bad secrets from 127.0.0.2 do not stop the right secret from 127.0.0.1; 127.0.0.2 itself is throttled', async (t) => {
    const app = await buildTestApp(t);
    const base = await listening(app);
    const m = await createTestMerchant(app, 'victim');
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) statuses.push((await send(base, '127.0.0.2', tokenRequest(m.clientId, `sk_test_wrong${i}`))).statusCode);
    assert.deepEqual(statuses, [...Array(10).fill(401), ...Array(5).fill(429)], 'the guesser from 127.0.0.2 gets 10 answers, then 429');
    const fromElsewhere = await send(base, '127.0.0.1', tokenRequest(m.clientId, m.clientSecret));
    assert.equal(fromElsewhere.statusCode, 200, fromElsewhere.body);
    // The right secret from the guesser's own address is not confirmed while it is throttled.
    const fromGuesser = await send(base, '127.0.0.2', tokenRequest(m.clientId, m.clientSecret));
    assert.equal(fromGuesser.statusCode, 429);
    assert.match(String(fromGuesser.headers['retry-after']), /^[1-9][0-9]*$/);
    t.diagnostic(`statuses from 127.0.0.2: ${statuses.join(',')}; right secret from 127.0.0.1: ${fromElsewhere.statusCode}`);
  });

  test('the right secret after a few failures from the same address resets its count', async (t) => {
    const app = await buildTestApp(t, { clock: manualClock() });
    const m = await createTestMerchant(app, 'typo');
    for (let i = 0; i < 9; i++) assertOAuthError(await tokenJson(app, grant(m.clientId, 'sk_test_typo')), 401, 'invalid_client');
    assertTokenIssued(await tokenJson(app, grant(m.clientId, m.clientSecret)));
    for (let i = 0; i < 9; i++) assertOAuthError(await tokenJson(app, grant(m.clientId, 'sk_test_typo')), 401, 'invalid_client');
    assertTokenIssued(await tokenJson(app, grant(m.clientId, m.clientSecret)));
  });
});

describe('failed and unauthenticated /v1 requests per address (PURSE_ADDRESS_FAILURE_LIMIT)', () => {
  test('400 guessed tokens from 127.0.0.2: 429 after the limit, no 5xx, no database work once over; a valid token from 127.0.0.1 still works', async (t) => {
    // A clock that stands still: the 400 requests must all fall in one window, whatever the time.
    const clock = manualClock(new Date('2026-01-01T00:00:10.000Z'));
    const app = await buildTestApp(t, { clock, env: { PURSE_ADDRESS_FAILURE_LIMIT: '20' } });
    const base = await listening(app);
    const m = await createTestMerchant(app, 'bystander');
    // Counts the token lookups that reach the service (each may cost a database query).
    const oauth = app.deps.services.oauth;
    const authenticate = oauth.authenticate;
    let lookups = 0;
    oauth.authenticate = async (token: string) => {
      lookups += 1;
      return authenticate(token);
    };
    t.after(() => {
      oauth.authenticate = authenticate;
    });
    const counts = new Map<number, number>();
    for (let i = 0; i < 400; i++) {
      const guess = `at_${String(i).padStart(43, 'x')}`;
      const res = await send(base, '127.0.0.2', { method: 'GET', path: '/v1/merchant', headers: { authorization: `Bearer ${guess}` } });
      counts.set(res.statusCode, (counts.get(res.statusCode) ?? 0) + 1);
      if (i === 399) {
        assert.equal(res.statusCode, 429);
        assert.equal((res.json() as { error: { code: string } }).error.code, 'rate_limited');
        assert.match(String(res.headers['retry-after']), /^[1-9][0-9]*$/);
      }
    }
    assert.deepEqual(Object.fromEntries(counts), { 401: 20, 429: 380 });
    assert.equal(lookups, 20, 'only the requests under the limit reached the token lookup');
    // Requests with no token at all count too, and are refused the same way.
    assert.equal((await send(base, '127.0.0.2', { method: 'GET', path: '/v1/merchant' })).statusCode, 429);
    const valid = await send(base, '127.0.0.1', { method: 'GET', path: '/v1/merchant', headers: { authorization: `Bearer ${m.token}` } });
    assert.equal(valid.statusCode, 200, valid.body);
    t.diagnostic(`400 guesses: ${JSON.stringify(Object.fromEntries(counts))}, token lookups ${lookups}`);
  });

  test('token failures count against the address too; the window passes', async (t) => {
    const clock = manualClock(new Date('2026-01-01T00:00:00.000Z'));
    const app = await buildTestApp(t, { clock, env: { PURSE_ADDRESS_FAILURE_LIMIT: '5', PURSE_TOKEN_FAILURE_LIMIT: '100' } });
    const m = await createTestMerchant(app, 'm');
    // Five different client ids from one address: the per-client count never reaches its limit.
    for (let i = 0; i < 5; i++) assertOAuthError(await tokenJson(app, grant(`cli_unknown${i}`, 'sk_test_x')), 401, 'invalid_client');
    assertOAuthError(await tokenJson(app, grant(m.clientId, m.clientSecret)), 429, 'too_many_requests');
    assertApiError(
      await app.inject({ method: 'GET', url: '/v1/merchant', headers: { authorization: `Bearer ${m.token}` } }),
      429,
      'rate_limit_error',
      'rate_limited',
    );
    clock.advance(60_000);
    assertTokenIssued(await tokenJson(app, grant(m.clientId, m.clientSecret)));
  });

  test('0 turns it off', async (t) => {
    const app = await buildTestApp(t, { env: { PURSE_ADDRESS_FAILURE_LIMIT: '0' } });
    for (let i = 0; i < 150; i++) {
      const res = await app.inject({ method: 'GET', url: '/v1/merchant', headers: { authorization: 'Bearer at_nope' } });
      assert.equal(res.statusCode, 401);
    }
  });
});

describe('the per-merchant rate limit (PURSE_RATE_LIMIT_PER_S)', () => {
  test('429 rate_limited with Retry-After and RateLimit-* headers past the limit, per merchant, for one second', async (t) => {
    const clock = manualClock(new Date('2026-01-01T00:00:00.000Z'));
    const app = await buildTestApp(t, { clock, env: { PURSE_RATE_LIMIT_PER_S: '3' } });
    const a = await createTestMerchant(app, 'a');
    const b = await createTestMerchant(app, 'b');
    const get = (token: string) => app.inject({ method: 'GET', url: '/v1/merchant', headers: { authorization: `Bearer ${token}` } });
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await get(a.token);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['ratelimit-limit'], '3');
      assert.equal(res.headers['ratelimit-reset'], '1');
      remaining.push(String(res.headers['ratelimit-remaining']));
    }
    assert.deepEqual(remaining, ['2', '1', '0']);
    const limited = await get(a.token);
    assertApiError(limited, 429, 'rate_limit_error', 'rate_limited');
    assert.equal(limited.headers['retry-after'], '1');
    assert.equal(limited.headers['ratelimit-remaining'], '0');
    assert.equal((await get(b.token)).statusCode, 200, 'another merchant has its own budget');
    clock.advance(1000);
    assert.equal((await get(a.token)).statusCode, 200, 'the next second starts again');
  });
});

describe('PURSE_TRUSTED_PROXIES', () => {
  async function failuresPerForwardedAddress(t: Parameters<typeof buildTestApp>[0], trusted: string | null) {
    const env: Record<string, string> = { PURSE_ADDRESS_FAILURE_LIMIT: '3' };
    if (trusted !== null) env.PURSE_TRUSTED_PROXIES = trusted;
    const app = await buildTestApp(t, { env });
    const statuses: number[] = [];
    for (const client of ['203.0.113.1', '203.0.113.1', '203.0.113.1', '203.0.113.2']) {
      const res = await app.inject({ method: 'GET', url: '/v1/merchant', headers: { 'x-forwarded-for': client } });
      statuses.push(res.statusCode);
    }
    return statuses;
  }

  test('X-Forwarded-For is ignored by default: every request counts for the connection peer', async (t) => {
    assert.deepEqual(await failuresPerForwardedAddress(t, null), [401, 401, 401, 429]);
  });

  test('from a trusted proxy, the forwarded client address is the one counted', async (t) => {
    assert.deepEqual(await failuresPerForwardedAddress(t, '127.0.0.1'), [401, 401, 401, 401]);
  });

  test('a malformed entry refuses to start, naming it', async (t) => {
    await assert.rejects(
      buildTestApp(t, { env: { PURSE_TRUSTED_PROXIES: '10.0.0.0/8, proxy.example' } }),
      /PURSE_TRUSTED_PROXIES: "proxy.example"/,
    );
  });
});
