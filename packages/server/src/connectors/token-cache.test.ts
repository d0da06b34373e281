import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProviderHttpError } from './provider-error.ts';
import { accessTokenOf, createTokenCache, DEFAULT_TOKEN_MARGIN_MS, type IssuedToken } from './token-cache.ts';

const HOUR_MS = 3_600_000;
const signal = new AbortController().signal;

/** A cache over a counting issuer (tok1, tok2, …) and a clock the test moves. */
function setup(lifetimeMs = HOUR_MS) {
  const clock = { now: 1_000_000 };
  const issued: string[] = [];
  const cache = createTokenCache<'a' | 'b'>({
    issue: async (key) => {
      issued.push(key);
      return { value: `tok${issued.length}`, lifetimeMs };
    },
    nowMs: () => clock.now,
  });
  return { cache, clock, issued };
}

const answer = (status: number) => new Response(status === 200 ? '{}' : null, { status });

test('a token is reused until its end minus the margin, then renewed; each key has its own', async () => {
  const { cache, clock, issued } = setup();
  assert.equal(await cache.token('a', signal), 'tok1');
  clock.now += HOUR_MS - DEFAULT_TOKEN_MARGIN_MS - 1;
  assert.equal(await cache.token('a', signal), 'tok1', 'reused one millisecond before the margin');
  assert.equal(await cache.token('b', signal), 'tok2', 'another key, another token');
  clock.now += 1;
  assert.equal(await cache.token('a', signal), 'tok3', 'renewed at the margin');
  assert.deepEqual(issued, ['a', 'b', 'a']);
});

test('the margin is at most half the life of a short-lived token', async () => {
  const { cache, clock, issued } = setup(60_000);
  await cache.token('a', signal);
  clock.now += 29_999;
  await cache.token('a', signal);
  assert.equal(issued.length, 1);
  clock.now += 1;
  await cache.token('a', signal);
  assert.equal(issued.length, 2);
});

test('concurrent callers share one request; a failed one is not cached', async () => {
  let release: (token: IssuedToken) => void = () => {};
  let fail: (error: Error) => void = () => {};
  let requests = 0;
  const cache = createTokenCache<'k'>({
    issue: () => {
      requests++;
      return new Promise<IssuedToken>((resolve, reject) => {
        release = resolve;
        fail = reject;
      });
    },
  });
  const waiting = Array.from({ length: 10 }, () => cache.token('k', signal));
  assert.equal(requests, 1, 'one request in flight for ten callers');
  release({ value: 'shared', lifetimeMs: HOUR_MS });
  assert.deepEqual(await Promise.all(waiting), Array(10).fill('shared'));
  assert.equal(await cache.token('k', signal), 'shared');
  assert.equal(requests, 1);

  const other = createTokenCache<'k'>({
    issue: () => {
      requests++;
      return new Promise<IssuedToken>((resolve, reject) => {
        release = resolve;
        fail = reject;
      });
    },
  });
  requests = 0;
  const failing = Array.from({ length: 3 }, () => other.token('k', signal));
  fail(new Error('issuer down'));
  for (const result of await Promise.allSettled(failing)) assert.equal(result.status, 'rejected');
  assert.equal(requests, 1, 'three callers, one failed request');
  const retried = other.token('k', signal);
  assert.equal(requests, 2, 'the next caller asks again');
  release({ value: 'later', lifetimeMs: HOUR_MS });
  assert.equal(await retried, 'later');
});

test('a 401 drops the token, refreshes once and retries once; a second 401 is the answer', async () => {
  const { cache, issued } = setup();
  const sent: string[] = [];
  const res = await cache.send('a', signal, async (token) => {
    sent.push(token);
    return answer(401);
  });
  assert.equal(res.status, 401);
  assert.deepEqual(sent, ['tok1', 'tok2'], 'one retry, with the new token');
  assert.equal(issued.length, 2, 'one refresh');
  // The caller's error for that answer, as the connectors make it.
  const error = await ProviderHttpError.of(res, { provider: 'acquirer', operation: 'capture' });
  assert.equal(error.message, 'acquirer: capture answered 401');

  const { cache: fresh, issued: freshIssued } = setup();
  let first = true;
  const ok = await fresh.send('a', signal, async () => {
    const status = first ? 401 : 200;
    first = false;
    return answer(status);
  });
  assert.equal(ok.status, 200);
  assert.equal(await fresh.token('a', signal), 'tok2', 'the new token is kept');
  assert.equal(freshIssued.length, 2);
});

test('other answers are returned as they are, with no refresh', async () => {
  const { cache, issued } = setup();
  for (const status of [200, 403, 404, 500]) {
    const res = await cache.send('a', signal, async () => answer(status));
    assert.equal(res.status, status);
  }
  assert.equal(issued.length, 1);
});

test('N callers refused the same token at once start one refresh between them', async () => {
  const { cache, issued } = setup();
  await cache.token('a', signal);
  const sent: string[] = [];
  // The 401s arrive one after another, some while the refresh is already under way.
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      cache.send('a', signal, async (token) => {
        sent.push(token);
        await new Promise((resolve) => setTimeout(resolve, i % 3));
        return answer(token === 'tok1' ? 401 : 200);
      }),
    ),
  );
  assert.deepEqual(
    answers.map((res) => res.status),
    Array(8).fill(200),
  );
  assert.deepEqual(issued, ['a', 'a'], 'one refresh for eight 401s');
  assert.equal(sent.filter((token) => token === 'tok2').length, 8);
});

test('an OAuth answer: expires_in as a number or a numeric string, else the fallback; errors name no secret', async () => {
  const read = (body: unknown, status = 200) =>
    accessTokenOf(new Response(JSON.stringify(body), { status }), {
      provider: 'p',
      operation: 'token',
      fallbackLifetimeS: 3600,
      secrets: ['client-secret-1'],
    });
  assert.deepEqual(await read({ access_token: 'x', expires_in: 1800 }), { value: 'x', lifetimeMs: 1_800_000 });
  assert.deepEqual(await read({ access_token: 'x', expires_in: '3599' }), { value: 'x', lifetimeMs: 3_599_000 });
  for (const expires_in of [undefined, null, '', 'soon', 0, -5, true]) {
    assert.equal((await read({ access_token: 'x', expires_in })).lifetimeMs, 3_600_000, String(expires_in));
  }
  await assert.rejects(read({ error: 'invalid_client', echo: 'client-secret-1' }, 401), (error: unknown) => {
    assert.ok(error instanceof ProviderHttpError);
    assert.equal(error.message, 'p: token answered 401');
    assert.ok(!error.bodyExcerpt.includes('client-secret-1'), error.bodyExcerpt);
    return true;
  });
  await assert.rejects(read({ token_type: 'bearer' }), /p: token answer has no access_token/);
});
