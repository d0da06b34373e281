// Webhooks across a crash: kill -9 of the server while deliveries are in flight loses no event. A
// real server process (PostgreSQL when TEST_DATABASE_URL is set, else PGlite in a temporary
// DATA_DIR) sends to a slow receiver; it is SIGKILLed mid-way, restarted on the same database, and
// every event of GET /v1/events must then reach the receiver at least once, at the endpoint and at
// the callback_url. Leases of the deliveries in flight at the kill expire, and they are sent again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, createTestMerchant, TEST_ENV } from '../helpers/app.ts';
import { testDatabaseUrl } from '../helpers/database.ts';
import { cardMethod, mobileMethod, uniqueRef } from '../helpers/factories.ts';
import { migratedDataDir } from '../helpers/programs.ts';
import { startReceiver } from './receiver.ts';
import {
  type Api,
  allEvents,
  eventually,
  figures,
  freePort,
  httpApi,
  parallel,
  type SpawnedServer,
  sleep,
  spawnServer,
  tokenFor,
  usePrivatePostgres,
  verifyReceipt,
  waitReady,
  webhookId,
} from './support.ts';

usePrivatePostgres();

const PAYMENTS = 30;
const RECEIVER_DELAY_MS = 200;
// The lease of a claimed delivery is this timeout + 5 s (LEASE_MARGIN_MS in src/webhooks/worker.ts):
// a delivery claimed when the server was killed is sent again after it.
const TIMEOUT_MS = 1000;

test('kill -9 of the server during deliveries loses no event', { timeout: 300_000 }, async (t) => {
  const started = Date.now();
  const databaseUrl = testDatabaseUrl();
  const dataDir = databaseUrl ? null : migratedDataDir(t, 'purse-webhook-crash-');
  const env = async (): Promise<Record<string, string> & { PORT: string }> => ({
    PORT: String(await freePort()),
    PURSE_SECRET_KEY: TEST_ENV.PURSE_SECRET_KEY!,
    PURSE_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    PURSE_WEBHOOK_RETRY_SCHEDULE_S: '0.2,0.5,1,2,4,8',
    ...(databaseUrl
      ? { DATABASE_URL: databaseUrl, PURSE_BOOTSTRAP_MERCHANT: 'false' }
      : { DATA_DIR: dataDir!, PURSE_BOOTSTRAP_MERCHANT: 'true' }),
  });

  const receiver = await startReceiver();
  t.after(() => receiver.close());
  receiver.respond(200, RECEIVER_DELAY_MS);

  let server: SpawnedServer = spawnServer(t, await env());
  await waitReady(server);
  const firstStartMs = Date.now() - started;
  let auth: { authorization: string };
  let merchantId: string;
  let countEventsInDb: (() => Promise<number>) | null = null;
  if (databaseUrl) {
    // The merchant comes from an in-process app on the same database (no workers running in it).
    const app = await buildTestApp(t);
    const merchant = await createTestMerchant(app, 'Crash merchant');
    auth = merchant.auth;
    merchantId = merchant.merchantId;
    countEventsInDb = async () =>
      Number(
        (
          await app.deps.db.db
            .selectFrom('events')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('merchant_id', '=', merchantId)
            .executeTakeFirstOrThrow()
        ).n,
      );
  } else {
    // The bootstrap merchant of a new embedded database, printed once on stdout.
    const out = await eventually(
      'bootstrap credentials printed',
      () => /client_secret:\s+(\S+)/.test(server.output()) && server.output(),
      30_000,
    );
    const clientId = /client_id:\s+(\S+)/.exec(out)![1]!;
    const clientSecret = /client_secret:\s+(\S+)/.exec(out)![1]!;
    merchantId = /merchant_id:\s+(\S+)/.exec(out)![1]!;
    auth = await tokenFor(server.base, clientId, clientSecret);
  }
  let api: Api = httpApi(server.base, auth);

  const endpoint = await api.post('/v1/webhook_endpoints', { url: `${receiver.base}/endpoint` });
  assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
  const callbackUrl = `${receiver.base}/callback`;
  const phones = ['+254712345000', '+254712345001', '+254712345002', '+254712345678'];
  const bodies = Array.from({ length: PAYMENTS }, (_, i) => ({
    reference: uniqueRef('crash'),
    amount: `${10 + i}.00`,
    currency: 'KES',
    callback_url: callbackUrl,
    payment_method: i % 3 === 2 ? mobileMethod(phones[i % phones.length]) : cardMethod(i % 5 === 4 ? { number: '4000000000000002' } : {}),
  }));
  const acked = new Set<number>();
  /** The id each acknowledged create answered, by body: what the client holds as proof. */
  const ackedIds = new Map<number, string>();
  const create = async (i: number, target: Api) => {
    const res = await target.post('/v1/payments', bodies[i]);
    assert.ok(res.status === 201 || res.status === 200, `${res.status} ${JSON.stringify(res.body)}`);
    acked.add(i);
    if (!ackedIds.has(i)) ackedIds.set(i, res.body.id);
  };

  // First half, then wait for deliveries in flight (received, not yet answered).
  const half = Math.floor(PAYMENTS / 2);
  await parallel(
    Array.from({ length: half }, (_, i) => i),
    3,
    (i) => create(i, api),
  );
  await eventually(
    'deliveries in flight',
    () => receiver.received.length >= 10 && receiver.received.some((r) => r.status === undefined),
    20_000,
    5,
  );
  // The second half starts; the server is killed while it runs.
  const second = parallel(
    Array.from({ length: PAYMENTS - half }, (_, i) => half + i),
    3,
    (i) => create(i, api).catch(() => undefined),
  );
  await sleep(40);
  const inFlight = receiver.received.filter((r) => r.status === undefined).length;
  const receivedBeforeKill = receiver.received.length;
  process.kill(server.pid, 'SIGKILL');
  await server.exited;
  const killedAt = Date.now();
  await second;
  const ackedBeforeKill = acked.size;
  assert.equal(server.child.signalCode, 'SIGKILL');

  // Restart on the same database; the requests that got no answer are sent again (same reference).
  server = spawnServer(t, await env());
  await waitReady(server);
  const restartMs = Date.now() - killedAt;
  api = httpApi(server.base, auth);
  for (let i = 0; i < PAYMENTS; i++) if (!acked.has(i)) await create(i, api);

  // A card charge claimed just before the kill may never have reached the provider: only a
  // retry carrying the card can resume it, once the dead request's lease (15 s) has passed. So
  // the client keeps retrying what is still pending, as a real client would.
  let lastRetry = Date.now();
  const finals = await eventually(
    'every payment final',
    async () => {
      const list = await Promise.all(
        bodies.map(async (b) => (await api.get(`/v1/payments?reference=${encodeURIComponent(b.reference)}`)).body.data[0]),
      );
      if (Date.now() - lastRetry > 2_000) {
        lastRetry = Date.now();
        await Promise.all(
          list.map((p, i) => (p?.status === 'pending' && p.payment_method.type === 'card' ? api.post('/v1/payments', bodies[i]) : null)),
        );
      }
      return list.every((p) => p && p.status !== 'pending') ? list : null;
    },
    45_000,
    100,
  );
  // The client's own record of what was acknowledged, against what the server lists by reference.
  const lostPayments = [...ackedIds].filter(([i, id]) => finals[i]?.id !== id).length;
  assert.equal(lostPayments, 0, 'every acknowledged payment is there, under the id it was answered with');
  const okAt = (path: string, id: string) => receiver.received.some((r) => r.ok && r.path === path && webhookId(r) === id);
  const events = await eventually(
    'every event received at the endpoint and the callback_url',
    async () => {
      const list = await allEvents(api);
      return list.length === PAYMENTS * 2 && list.every((e) => okAt('/endpoint', e.id) && okAt('/callback', e.id)) ? list : null;
    },
    50_000,
    200,
  );
  if (countEventsInDb) assert.equal(await countEventsInDb(), events.length, 'GET /v1/events lists every event in the database');
  for (const p of finals) assert.equal(events.filter((e) => e.data.object.id === p.id).length, 2, `${p.id}: created + outcome`);

  // Every request verifies; the endpoint's with its secret (the callback's key is the merchant's
  // default secret, which only the server process holds here: its webhook-id must be an event).
  const ids = new Set(events.map((e) => e.id));
  for (const r of receiver.received) {
    assert.ok(ids.has(webhookId(r)), `unknown webhook-id ${webhookId(r)}`);
    if (r.path === '/endpoint') assert.equal(verifyReceipt(r, endpoint.body.secret).id, webhookId(r));
  }
  // The outbox converges too: a delivery answered just before the kill but never recorded is
  // sent again once its lease expires, then every delivery is delivered.
  const flat = await eventually(
    'every delivery recorded as delivered',
    async () => {
      const all = (await parallel(events, 8, async (e) => (await api.get(`/v1/events/${e.id}/deliveries`)).body.data)).flat();
      return all.length === events.length * 2 && all.every((d: any) => d.status === 'delivered') ? all : null;
    },
    40_000,
    500,
  );
  const counts = new Map<string, number>();
  for (const r of receiver.received.filter((x) => x.ok))
    counts.set(`${webhookId(r)} ${r.path}`, (counts.get(`${webhookId(r)} ${r.path}`) ?? 0) + 1);
  figures(t, `crash (${databaseUrl ? 'postgres' : 'pglite'})`, {
    payments: PAYMENTS,
    ackedBeforeKill,
    events: events.length,
    deliveries: flat.length,
    attempts: flat.reduce((n, d) => n + d.attempts.length, 0),
    attemptCount: flat.reduce((n, d) => n + d.attempt_count, 0),
    requests: receiver.received.length,
    receivedBeforeKill,
    inFlightAtKill: inFlight,
    // Acknowledged payments that no longer exist, and events the receiver never got (both asserted 0 above).
    lost: lostPayments + events.filter((e) => !okAt('/endpoint', e.id) || !okAt('/callback', e.id)).length,
    duplicates: [...counts.values()].filter((n) => n > 1).length,
    firstStartMs,
    restartMs,
    recoveredMs: Date.now() - killedAt,
    ms: Date.now() - started,
  });
});
