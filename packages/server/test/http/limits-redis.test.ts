// Limits that hold across processes: with PURSE_REDIS_URL (Redis on 127.0.0.1:6379 here and in
// CI), two real server processes count token failures and failed requests per address together,
// and two service instances on one database share a merchant's rate limit. With Redis
// unreachable, the service keeps serving with per-process limits and /readyz says so.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { buildDeps } from '../../src/deps.ts';
import { buildTestApp, createTestMerchant, manualClock, TEST_ENV } from '../helpers/app.ts';
import { testDatabaseUrl } from '../helpers/database.ts';
import { freePort, type SpawnedServer, sleep, spawnServer, waitReady } from '../helpers/processes.ts';

const REDIS_URL = process.env.PURSE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Every run writes under its own prefix, so runs and other suites never share counts. */
const prefix = () => `purse-test:${process.pid}:${Date.now().toString(36)}:${Math.random().toString(36).slice(2, 8)}:`;

async function readiness(base: string): Promise<{ status: string; limits: string }> {
  const res = await fetch(`${base}/readyz`);
  return (await res.json()) as { status: string; limits: string };
}

/** Waits until the server says its limits are shared (it connects to Redis in the background). */
async function untilShared(base: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { limits } = await readiness(base);
    if (limits === 'shared through Redis') return;
    if (Date.now() > deadline) throw new Error(`limits never shared: ${limits}`);
    await sleep(50);
  }
}

/** Fixed windows are aligned to the minute: a burst that would straddle one waits for the next. */
async function clearOfMinuteBoundary(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 45_000) await sleep(60_000 - intoMinute + 50);
}

describe('two server processes, one Redis', () => {
  test('token failures and failed requests per address are counted together', async (t) => {
    const keyPrefix = prefix();
    const servers: SpawnedServer[] = [];
    for (let i = 0; i < 2; i++) {
      const env: Record<string, string> & { PORT: string } = {
        PORT: String(await freePort()),
        PURSE_SECRET_KEY: TEST_ENV.PURSE_SECRET_KEY as string,
        PURSE_REDIS_URL: REDIS_URL,
        PURSE_REDIS_KEY_PREFIX: keyPrefix,
        PURSE_TOKEN_FAILURE_LIMIT: '4',
        PURSE_ADDRESS_FAILURE_LIMIT: '6',
        PURSE_WORKER: 'false',
      };
      const url = testDatabaseUrl();
      if (url) env.DATABASE_URL = url;
      else {
        const dir = mkdtempSync(join(tmpdir(), 'purse-limits-'));
        t.after(() => rmSync(dir, { recursive: true, force: true }));
        env.DATA_DIR = dir;
      }
      servers.push(spawnServer(t, env));
    }
    await Promise.all(servers.map((s) => waitReady(s)));
    await Promise.all(servers.map((s) => untilShared(s.base)));
    const [a, b] = servers as [SpawnedServer, SpawnedServer];
    await clearOfMinuteBoundary();

    // Four wrong secrets for one client id, alternating between the processes: each process saw
    // only two, yet the fifth request is refused by both.
    const clientId = `cli_${Date.now().toString(36)}shared`;
    const token = (server: SpawnedServer) =>
      fetch(`${server.base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: 'sk_test_wrong' }),
      }).then((res) => res.status);
    const tokenStatuses = [await token(a), await token(b), await token(a), await token(b), await token(a), await token(b)];
    assert.deepEqual(tokenStatuses, [401, 401, 401, 401, 429, 429]);

    // Bad Bearer tokens from one address (this one has 4 token failures already, limit 6).
    const bearer = (server: SpawnedServer) =>
      fetch(`${server.base}/v1/merchant`, { headers: { authorization: 'Bearer at_guess' } }).then((res) => res.status);
    const bearerStatuses = [await bearer(b), await bearer(a), await bearer(b), await bearer(a)];
    assert.deepEqual(bearerStatuses, [401, 401, 429, 429]);
    t.diagnostic(`token: ${tokenStatuses.join(',')}; bearer: ${bearerStatuses.join(',')}`);
  });
});

describe('two service instances on one database share a merchant rate limit through Redis', () => {
  test('RateLimit-Remaining counts down across both; the limit refuses on either', async (t) => {
    const env = { PURSE_REDIS_URL: REDIS_URL, PURSE_REDIS_KEY_PREFIX: prefix(), PURSE_RATE_LIMIT_PER_S: '4' };
    const first = await buildTestApp(t, { env });
    // The second instance: its own limit counters and Redis connection, the first one's database.
    const deps = await buildDeps(loadConfig({ ...TEST_ENV, ...env }), { db: { ...first.deps.db, close: async () => {} } });
    const second = await createApp(deps);
    t.after(async () => {
      await second.close();
      await deps.close();
    });
    await Promise.all([first.inject('/readyz'), second.inject('/readyz')]);
    for (const app of [first, second]) {
      const deadline = Date.now() + 30_000;
      while ((await app.inject('/readyz')).json().limits !== 'shared through Redis') {
        if (Date.now() > deadline) throw new Error('limits never shared');
        await sleep(50);
      }
    }
    const m = await createTestMerchant(first, 'shared');
    const get = (app: typeof second) => app.inject({ method: 'GET', url: '/v1/merchant', headers: { authorization: `Bearer ${m.token}` } });
    // Five requests inside one second: retried when the machine was too slow to keep them there.
    for (let attempt = 1; ; attempt++) {
      await sleep(1000 - (Date.now() % 1000) + 5);
      const second0 = Math.floor(Date.now() / 1000);
      const answers = [await get(first), await get(second), await get(first), await get(second), await get(first)];
      if (Math.floor(Date.now() / 1000) !== second0 && attempt < 5) continue;
      assert.deepEqual(
        answers.map((r) => r.statusCode),
        [200, 200, 200, 200, 429],
      );
      assert.deepEqual(
        answers.map((r) => r.headers['ratelimit-remaining']),
        ['3', '2', '1', '0', '0'],
      );
      break;
    }
  });
});

describe('Redis unreachable', () => {
  test('the service serves with per-process limits and /readyz says so', async (t) => {
    const port = await freePort(); // nothing listens there
    const app = await buildTestApp(t, {
      clock: manualClock(new Date('2026-01-01T00:00:00.000Z')),
      env: { PURSE_REDIS_URL: `redis://127.0.0.1:${port}`, PURSE_RATE_LIMIT_PER_S: '2' },
    });
    const ready = await app.inject('/readyz');
    assert.equal(ready.statusCode, 200);
    assert.match(ready.json().limits, /^per process \(Redis unreachable/);
    const m = await createTestMerchant(app, 'degraded');
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await app.inject({ method: 'GET', url: '/v1/merchant', headers: { authorization: `Bearer ${m.token}` } })).statusCode);
    }
    // The per-process limit still holds (three inside one second is over two; or a second boundary fell between).
    assert.ok(
      statuses.every((s) => s === 200 || s === 429),
      statuses.join(','),
    );
    assert.ok(statuses.slice(0, 2).every((s) => s === 200));
  });
});
