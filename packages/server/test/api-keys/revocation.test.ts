// A revoked key's tokens stop within 5 s on every process. Each process keeps its own token
// cache (2 s, oauth/service.ts); a second app on the same database, with its own services and
// caches, stands for the other process: it has just seen the token as valid when the first
// revokes the key, and must refuse it within the bound. Over real HTTP on both.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { buildDeps } from '../../src/deps.ts';
import { buildTestApp, createTestMerchant, TEST_ENV } from '../helpers/app.ts';
import { testDatabaseUrl } from '../helpers/database.ts';
import { freePort, type SpawnedServer, spawnServer, tokenFor, waitReady } from '../helpers/processes.ts';
import { keyWith } from './support.ts';

test("a revoked key's tokens stop within 5 s on another process that had them cached", async (t) => {
  const a = await buildTestApp(t);
  const m = await createTestMerchant(a);
  // Process B: its own deps (token cache, counters) over the same database, which A closes.
  const depsB = await buildDeps(loadConfig({ ...TEST_ENV }), { db: { ...a.deps.db, close: async () => {} } });
  const b = await createApp(depsB);
  t.after(async () => {
    await b.close();
    await depsB.close();
  });
  const baseA = await a.listen({ port: 0, host: '127.0.0.1' });
  const baseB = await b.listen({ port: 0, host: '127.0.0.1' });
  const k = await keyWith(a, m, ['payments:read']);
  const call = (base: string) => fetch(`${base}/v1/payments`, { headers: k.auth }).then((r) => r.status);
  assert.equal(await call(baseB), 200, 'B has verified (and cached) the token');
  assert.equal(await call(baseA), 200);

  const revoked = await fetch(`${baseA}/v1/api_keys/${k.id}`, { method: 'DELETE', headers: m.auth });
  assert.equal(revoked.status, 200);
  const at = Date.now();
  assert.equal(await call(baseA), 401, 'the revoking process refuses at once');
  let statusB = await call(baseB);
  while (statusB === 200 && Date.now() - at < 6_000) {
    await new Promise((r) => setTimeout(r, 100));
    statusB = await call(baseB);
  }
  const elapsed = Date.now() - at;
  assert.equal(statusB, 401, 'B refuses the token');
  assert.ok(elapsed < 5_000, `B refused after ${elapsed} ms`);
  t.diagnostic(`revocation reached the other process after ${elapsed} ms`);
});

/** Polls `call` until it stops answering 200; the milliseconds that took (or Infinity after 6 s). */
async function msUntilRefused(call: () => Promise<number>): Promise<number> {
  const at = Date.now();
  while (Date.now() - at < 6_000) {
    if ((await call()) === 401) return Date.now() - at;
    await new Promise((r) => setTimeout(r, 100));
  }
  return Number.POSITIVE_INFINITY;
}

test('on PostgreSQL: two real server processes; a key revoked on one stops on the other within 5 s', {
  skip: testDatabaseUrl() ? false : 'needs TEST_DATABASE_URL (npm test with DATABASE_URL)',
}, async (t) => {
  const setup = await buildTestApp(t);
  const m = await createTestMerchant(setup);
  const env = { DATABASE_URL: testDatabaseUrl()!, PURSE_SECRET_KEY: TEST_ENV.PURSE_SECRET_KEY!, PURSE_BOOTSTRAP_MERCHANT: 'false' };
  const servers = [spawnServer(t, { ...env, PORT: String(await freePort()) }), spawnServer(t, { ...env, PORT: String(await freePort()) })];
  await Promise.all(servers.map((s) => waitReady(s)));
  const [one, two] = servers as [SpawnedServer, SpawnedServer];
  const admin = await tokenFor(one.base, m.clientId, m.clientSecret);
  const created = await fetch(`${one.base}/v1/api_keys`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'two processes', scopes: ['payments:read'] }),
  }).then((r) => r.json() as Promise<{ id: string; client_id: string; client_secret: string }>);
  const token = await tokenFor(two.base, created.client_id, created.client_secret);
  const call = () => fetch(`${two.base}/v1/payments`, { headers: token }).then((r) => r.status);
  assert.equal(await call(), 200, 'process two has verified (and cached) the token');
  const revoked = await fetch(`${one.base}/v1/api_keys/${created.id}`, { method: 'DELETE', headers: admin });
  assert.equal(revoked.status, 200);
  const elapsed = await msUntilRefused(call);
  assert.ok(elapsed < 5_000, `process two refused after ${elapsed} ms`);
  t.diagnostic(`revocation reached the other server process after ${elapsed} ms`);
});
