// Retries, back-off and the token, against a fake Purse over node:http: what is sent again (the
// same bytes), what is not (4xx), how long the client waits, and when it asks for a new token.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ClientCredentialsOptions, Purse, PurseError } from '../src/index.ts';
import { backoffMs, retryAfterMs } from '../src/transport.ts';
import { apiError, type Reply, type Seen, startFakePurse } from './fake-purse.ts';

const payment = { id: 'pay_1', object: 'payment', status: 'succeeded' };
const body = {
  reference: 'order-1',
  amount: '10.00',
  currency: 'KES',
  payment_method: { type: 'card' as const, card: { number: '4242424242424242', exp_month: 12, exp_year: 2035, cvc: '123' } },
};

/** A fake whose POST /v1/payments answers the given replies in turn, then 201. */
async function scripted(replies: Reply[], tokenLifeS?: number) {
  return startFakePurse(
    (req: Seen) => {
      if (req.path !== '/v1/payments') return undefined;
      return replies.shift() ?? { status: 201, json: payment };
    },
    { tokenLifeS },
  );
}

const tooMany = (retryAfter: string): Reply => ({
  status: 429,
  headers: { 'retry-after': retryAfter },
  json: { error: { type: 'rate_limit_error', code: 'rate_limited', message: 'slow down' } },
});

const client = (base: string, extra: Partial<ClientCredentialsOptions> = {}) =>
  new Purse({ baseUrl: base, clientId: 'cli_1', clientSecret: 'sk_test_1', ...extra });

describe('retries', () => {
  test('503, 429 and a dropped connection are sent again with the same bytes; then the answer', async (t) => {
    const fake = await scripted([apiError(503, 'service_unavailable'), tooMany('0'), 'drop']);
    t.after(() => fake.close());
    const answer = await client(fake.base, { maxRetries: 3 }).payments.create(body);
    assert.equal(answer.id, 'pay_1');
    const posts = fake.calls();
    assert.equal(posts.length, 4);
    assert.deepEqual(new Set(posts.map((p) => p.body)), new Set([JSON.stringify(body)]), 'the same bytes every time');
    assert.ok(posts.every((p) => p.method === 'POST' && p.headers['content-type'] === 'application/json'));
    assert.ok(
      posts.every((p) => p.headers.authorization === 'Bearer tok_1'),
      'one token for all the attempts',
    );
  });

  test('Retry-After is honoured: the next attempt waits that long', async (t) => {
    const fake = await scripted([tooMany('1')]);
    t.after(() => fake.close());
    const started = Date.now();
    await client(fake.base).payments.create(body);
    assert.ok(Date.now() - started >= 1000, `waited ${Date.now() - started} ms`);
  });

  test('without Retry-After, back-off with jitter: at least 0.25 s, then 0.5 s', async (t) => {
    const fake = await scripted([apiError(500, 'internal_error'), apiError(502, 'http_error')]);
    t.after(() => fake.close());
    await client(fake.base).payments.create(body);
    const [first, second, third] = fake.calls().map((c) => c.at);
    assert.equal(fake.calls().length, 3);
    assert.ok(second! - first! >= 250 && second! - first! < 3_000, `first wait ${second! - first!} ms`);
    assert.ok(third! - second! >= 500 && third! - second! < 4_000, `second wait ${third! - second!} ms`);
  });

  test('retries run out: the error of the last attempt, after maxRetries + 1 attempts', async (t) => {
    const fake = await scripted([
      apiError(503, 'service_unavailable'),
      apiError(503, 'service_unavailable'),
      apiError(503, 'service_unavailable', { message: 'last' }),
    ]);
    t.after(() => fake.close());
    await assert.rejects(client(fake.base, { maxRetries: 2 }).payments.create(body), (e: unknown) => {
      assert.ok(e instanceof PurseError);
      assert.equal(e.status, 503);
      assert.equal(e.code, 'service_unavailable');
      assert.equal(e.message, 'last');
      return true;
    });
    assert.equal(fake.calls().length, 3);
  });

  test('a 4xx is not retried', async (t) => {
    const fake = await scripted([apiError(400, 'parameter_invalid', { param: 'amount' }), apiError(409, 'reference_conflict')]);
    t.after(() => fake.close());
    await assert.rejects(client(fake.base).payments.create(body), (e: unknown) => e instanceof PurseError && e.status === 400);
    assert.equal(fake.calls().length, 1);
  });

  test('connections dropped every time: a network_error with no status, after every retry', async (t) => {
    const fake = await scripted(['drop', 'drop']);
    t.after(() => fake.close());
    await assert.rejects(client(fake.base, { maxRetries: 1 }).payments.create(body), (e: unknown) => {
      assert.ok(e instanceof PurseError);
      assert.equal(e.type, 'network_error');
      assert.equal(e.code, 'network_error');
      assert.equal(e.status, null);
      return true;
    });
    assert.equal(fake.calls().length, 2);
  });

  test('nothing listening: the network_error names where the client looked, so a Purse on another port is easy to spot', async () => {
    const fake = await scripted([]);
    const base = fake.base;
    await fake.close();
    await assert.rejects(client(base, { maxRetries: 0 }).payments.create(body), (e: unknown) => {
      assert.ok(e instanceof PurseError);
      assert.equal(e.code, 'network_error');
      assert.ok(e.message.includes(`Purse at ${base}`), e.message);
      assert.match(e.message, /ECONNREFUSED/);
      return true;
    });
  });

  test('an attempt that gets no answer within timeoutMs is a timeout', async (t) => {
    const fake = await scripted(['hang']);
    t.after(() => fake.close());
    await assert.rejects(
      client(fake.base, { maxRetries: 0, timeoutMs: 200 }).payments.create(body),
      (e: unknown) => e instanceof PurseError && e.type === 'network_error' && e.code === 'timeout',
    );
  });
});

describe('the token', () => {
  test('fetched once for concurrent calls, with the client credentials as JSON', async (t) => {
    const fake = await startFakePurse((req) => (req.path === '/v1/balance' ? { status: 200, json: { object: 'balance' } } : undefined));
    t.after(() => fake.close());
    const purse = client(fake.base);
    await Promise.all([purse.balance.retrieve(), purse.balance.retrieve(), purse.balance.retrieve()]);
    assert.equal(fake.tokens().length, 1);
    assert.deepEqual(JSON.parse(fake.tokens()[0]!.body), {
      grant_type: 'client_credentials',
      client_id: 'cli_1',
      client_secret: 'sk_test_1',
    });
    assert.equal(fake.tokens()[0]!.headers.authorization, undefined, 'the token request carries no Bearer token');
  });

  test('renewed before it expires (halfway for a short token)', async (t) => {
    const fake = await startFakePurse((req) => (req.path === '/v1/balance' ? { status: 200, json: {} } : undefined), { tokenLifeS: 2 });
    t.after(() => fake.close());
    const purse = client(fake.base);
    await purse.balance.retrieve();
    await purse.balance.retrieve();
    assert.equal(fake.tokens().length, 1, 'still fresh');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await purse.balance.retrieve();
    assert.equal(fake.tokens().length, 2, 'renewed at half its life');
    assert.equal(fake.calls().at(-1)!.headers.authorization, 'Bearer tok_2');
  });

  test('a 401 renews the token once and repeats the call; a second 401 is the error', async (t) => {
    const answers: Reply[] = [
      apiError(401, 'token_expired'),
      { status: 200, json: { id: 'mer_1' } },
      apiError(401, 'token_invalid'),
      apiError(401, 'token_invalid'),
    ];
    const fake = await startFakePurse((req) => (req.path === '/v1/merchant' ? answers.shift() : undefined));
    t.after(() => fake.close());
    const purse = client(fake.base, { maxRetries: 0 });
    assert.equal((await purse.merchant.retrieve()).id, 'mer_1');
    assert.deepEqual(
      fake.calls().map((c) => c.headers.authorization),
      ['Bearer tok_1', 'Bearer tok_2'],
    );
    await assert.rejects(
      purse.merchant.retrieve(),
      (e: unknown) => e instanceof PurseError && e.status === 401 && e.code === 'token_invalid',
    );
    assert.equal(fake.tokens().length, 3, 'one renewal per call, not a loop');
  });
});

describe('back-off and Retry-After', () => {
  test('backoffMs doubles from 0.5 s up to 8 s, times a jitter of 0.5 to 1', () => {
    for (const [attempt, full] of [
      [0, 500],
      [1, 1000],
      [2, 2000],
      [4, 8000],
      [9, 8000],
    ] as const) {
      for (let i = 0; i < 50; i++) {
        const ms = backoffMs(attempt);
        assert.ok(ms >= full / 2 && ms <= full, `attempt ${attempt}: ${ms}`);
      }
    }
  });

  test('retryAfterMs reads seconds or an HTTP date, at most a minute, never negative', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const at = (value: string | null) => retryAfterMs(new Headers(value === null ? {} : { 'retry-after': value }), now);
    assert.equal(at('3'), 3000);
    assert.equal(at('0'), 0);
    assert.equal(at('120'), 60_000);
    assert.equal(at('-5'), 0);
    assert.equal(at('Thu, 01 Jan 2026 00:00:10 GMT'), 10_000);
    assert.equal(at('Wed, 31 Dec 2025 23:59:00 GMT'), 0);
    assert.equal(at('soon'), null);
    assert.equal(at(''), null);
    assert.equal(at(null), null);
  });
});
