// Several delivery workers on one database never send the same attempt twice. With a receiver that
// always answers 200, every (webhook-id, target) pair arrives exactly once, and each delivery's
// attempt counter equals its rows in webhook_attempts. On PostgreSQL: two real server processes; on
// both databases: two in-process workers racing over one app.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { revealMerchantSigningSecret } from '../../src/webhooks/secrets.ts';
import { createDeliveryWorker } from '../../src/webhooks/worker.ts';
import { buildTestApp, createTestMerchant, TEST_ENV, type TestApp } from '../helpers/app.ts';
import { testDatabaseUrl } from '../helpers/database.ts';
import { cardMethod, mobileMethod, uniqueRef } from '../helpers/factories.ts';
import { type Receiver, startReceiver } from './receiver.ts';
import {
  type Api,
  allEvents,
  eventually,
  figures,
  freePort,
  httpApi,
  injectApi,
  parallel,
  spawnServer,
  usePrivatePostgres,
  verifyReceipt,
  waitReady,
  webhookId,
} from './support.ts';

usePrivatePostgres();

const PAYMENTS = 50;
const TARGETS = ['/a', '/b', '/callback'];

function paymentBodies(callbackUrl: string) {
  return Array.from({ length: PAYMENTS }, (_, i) => ({
    reference: uniqueRef('two'),
    amount: `${1 + i}.00`,
    currency: 'KES',
    callback_url: callbackUrl,
    payment_method:
      i % 5 === 4 ? mobileMethod(i % 2 ? '+254712345000' : '+254712345002') : cardMethod(i % 7 === 6 ? { number: '4000000000000002' } : {}),
  }));
}

/** A receiver answering 200 after 0–30 ms, so claims of several workers overlap. */
async function receiver(t: TestContext): Promise<Receiver> {
  const r = await startReceiver();
  t.after(() => r.close());
  r.respondWith(() => ({ status: 200, delayMs: Math.floor(Math.random() * 30) }));
  return r;
}

async function endpoints(api: Api, r: Receiver): Promise<Map<string, string>> {
  const secrets = new Map<string, string>();
  for (const path of ['/a', '/b']) {
    const res = await api.post('/v1/webhook_endpoints', { url: `${r.base}${path}` });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    secrets.set(path, res.body.secret);
  }
  return secrets;
}

/** Exactly once per (webhook-id, target); attempts = rows of webhook_attempts = 1 per delivery. */
async function assertExactlyOnce(
  t: TestContext,
  label: string,
  app: TestApp,
  api: Api,
  merchantId: string,
  r: Receiver,
  secrets: Map<string, string>,
) {
  const events = await allEvents(api);
  assert.equal(events.length, PAYMENTS * 2, 'created + outcome per payment');
  const db = app.deps.db.db;
  const deliveries = await eventually(
    'every delivery delivered',
    async () => {
      const rows = await db.selectFrom('webhook_deliveries').selectAll().where('merchant_id', '=', merchantId).execute();
      return rows.length === events.length * TARGETS.length && rows.every((d) => d.status === 'delivered') ? rows : null;
    },
    40_000,
    50,
  );
  const attempts = await db
    .selectFrom('webhook_attempts')
    .select(['delivery_id', 'status_code'])
    .where(
      'delivery_id',
      'in',
      deliveries.map((d) => d.id),
    )
    .execute();
  const perDelivery = new Map<string, number>();
  for (const a of attempts) perDelivery.set(a.delivery_id, (perDelivery.get(a.delivery_id) ?? 0) + 1);
  for (const d of deliveries) {
    assert.equal(d.attempts, perDelivery.get(d.id) ?? 0, `${d.id}: the attempt counter matches webhook_attempts`);
    assert.equal(d.attempts, 1, `${d.id}: one attempt under a 200 receiver`);
  }

  const counts = new Map<string, number>();
  for (const x of r.received) counts.set(`${webhookId(x)} ${x.path}`, (counts.get(`${webhookId(x)} ${x.path}`) ?? 0) + 1);
  const missing = events.flatMap((e) => TARGETS.filter((p) => !counts.has(`${e.id} ${p}`)).map((p) => `${e.id} ${p}`));
  const twice = [...counts].filter(([, n]) => n > 1).map(([k]) => k);
  assert.deepEqual(missing, [], 'lost');
  assert.deepEqual(twice, [], 'sent twice');
  assert.equal(r.received.length, deliveries.length);
  const secretOf = (path: string) => secrets.get(path)!;
  for (const x of r.received) assert.equal(verifyReceipt(x, secretOf(x.path)).id, webhookId(x));
  // Timestamps: one per request, and no two requests carry the same (webhook-id, target, timestamp).
  const stamps = new Set(r.received.map((x) => `${webhookId(x)} ${x.path} ${x.headers['webhook-timestamp']}`));
  assert.equal(stamps.size, r.received.length);
  figures(t, label, {
    payments: PAYMENTS,
    events: events.length,
    deliveries: deliveries.length,
    attempts: attempts.length,
    requests: r.received.length,
    lost: missing.length,
    duplicates: twice.length,
  });
}

test('two in-process delivery workers racing over one database: every (webhook-id, target) exactly once', async (t) => {
  const started = Date.now();
  const app = await buildTestApp(t, { env: { PURSE_WEBHOOK_TIMEOUT_MS: '5000' } });
  const m = await createTestMerchant(app, 'Two workers');
  const api = injectApi(app, m.auth);
  const r = await receiver(t);
  const secrets = await endpoints(api, r);
  secrets.set('/callback', (await revealMerchantSigningSecret(app.deps.db.db, app.deps.encryptionKey, app.deps.clock, m.merchantId))!);
  const second = createDeliveryWorker({
    db: app.deps.db.db,
    clock: app.deps.clock,
    config: app.deps.config,
    encryptionKey: app.deps.encryptionKey,
    log: app.deps.logger as never,
  });
  const workers = [app.deps.deliveryWorker, second];
  app.deps.worker.start(); // settlement, for the mobile-money payments

  // Payments are created while the workers race: each "worker" runs two ticks at a time.
  let creating = true;
  let ticks = 0;
  const race = (async () => {
    for (;;) {
      const counts = await Promise.all(workers.flatMap((w) => [w.runOnce(), w.runOnce()]));
      ticks++;
      if (!creating && counts.every((n) => n === 0)) {
        const pending = await app.deps.db.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('merchant_id', '=', m.merchantId)
          .where('status', '=', 'pending')
          .execute();
        const unsettled = (await api.get('/v1/payments?status=pending')).body.data.length;
        if (pending.length === 0 && unsettled === 0) return;
      }
      await new Promise((res) => setTimeout(res, 5));
    }
  })();
  await parallel(paymentBodies(`${r.base}/callback`), 4, async (b) => assert.equal((await api.post('/v1/payments', b)).status, 201));
  creating = false;
  await race;
  await assertExactlyOnce(t, `two in-process workers (${testDatabaseUrl() ? 'postgres' : 'pglite'})`, app, api, m.merchantId, r, secrets);
  t.diagnostic(`ticks=${ticks} ms=${Date.now() - started}`);
});

test('two server processes on one PostgreSQL: every (webhook-id, target) exactly once', {
  skip: testDatabaseUrl() ? false : 'needs PostgreSQL (TEST_DATABASE_URL)',
}, async (t) => {
  const started = Date.now();
  const databaseUrl = testDatabaseUrl()!;
  const env = async () => ({
    PORT: String(await freePort()),
    DATABASE_URL: databaseUrl,
    PURSE_BOOTSTRAP_MERCHANT: 'false',
    PURSE_SECRET_KEY: TEST_ENV.PURSE_SECRET_KEY!,
    PURSE_WEBHOOK_TIMEOUT_MS: '5000',
  });
  const servers = [spawnServer(t, await env()), spawnServer(t, await env())];
  await Promise.all(servers.map((s) => waitReady(s)));
  // The merchant comes from an in-process app on the same database (no workers running in it).
  const app = await buildTestApp(t);
  const m = await createTestMerchant(app, 'Two processes');
  const apis = servers.map((s) => httpApi(s.base, m.auth));
  const r = await receiver(t);
  const secrets = await endpoints(apis[0]!, r);
  secrets.set('/callback', (await revealMerchantSigningSecret(app.deps.db.db, app.deps.encryptionKey, app.deps.clock, m.merchantId))!);
  await parallel(paymentBodies(`${r.base}/callback`), 6, async (b, i) => {
    const res = await apis[i % 2]!.post('/v1/payments', b);
    assert.equal(res.status, 201, JSON.stringify(res.body));
  });
  await eventually(
    'every payment settled',
    async () => (await apis[1]!.get('/v1/payments?status=pending')).body.data.length === 0,
    20_000,
    50,
  );
  await assertExactlyOnce(t, 'two server processes (postgres)', app, apis[0]!, m.merchantId, r, secrets);
  for (const s of servers) assert.ok(s.running(), `process ${s.pid} still runs:\n${s.output()}`);
  t.diagnostic(`pids=${servers.map((s) => s.pid).join(',')} ms=${Date.now() - started}`);
});
