// Webhook faults. A receiver that is down, answers 500, is slower than the timeout, redirects or
// answers 410: retries with growing back-off, the same event id on every attempt, redirects never
// followed, 410 disables the endpoint, an exhausted schedule fails the delivery, and after recovery
// every event of GET /v1/events has reached the receiver (at-least-once).
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { revealMerchantSigningSecret } from '../../src/webhooks/secrets.ts';
import { createDeliveryWorker, nextAttemptAt } from '../../src/webhooks/worker.ts';
import { createTestMerchant, manualClock, type TestApp } from '../helpers/app.ts';
import { cardMethod, mobileMethod, uniqueRef } from '../helpers/factories.ts';
import { type Receiver, startReceiver } from './receiver.ts';
import {
  type Api,
  allEvents,
  eventually,
  figures,
  freePort,
  injectApi,
  parallel,
  sleep,
  useFileApp,
  usePrivatePostgres,
  verifyReceipt,
  webhookId,
} from './support.ts';

// Waits grow threefold (even with ±20 % jitter each is longer than the one before): 5 attempts
// in all, the last about 4 s after the first.
const SCHEDULE = [0.1, 0.3, 0.9, 2.7];
// Long enough that a loaded machine (the app, PGlite and the receiver share one event loop) does
// not time out a prompt answer; the slow receiver below answers after 3× this.
const TIMEOUT_MS = 1000;

usePrivatePostgres();
const fileApp = useFileApp({ env: { PURSE_WEBHOOK_RETRY_SCHEDULE_S: SCHEDULE.join(','), PURSE_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) } });

interface Merchant {
  app: TestApp;
  api: Api;
  merchantId: string;
  callbackSecret: string;
}

async function merchant(): Promise<Merchant> {
  const app = fileApp();
  const m = await createTestMerchant(app, 'Faults merchant');
  const callbackSecret = (await revealMerchantSigningSecret(app.deps.db.db, app.deps.encryptionKey, app.deps.clock, m.merchantId))!;
  return { app, api: injectApi(app, m.auth), merchantId: m.merchantId, callbackSecret };
}

async function receiver(t: TestContext, port?: number): Promise<Receiver> {
  const r = await startReceiver(port === undefined ? {} : { port });
  t.after(() => r.close());
  return r;
}

async function endpoint(api: Api, url: string): Promise<{ id: string; secret: string }> {
  const res = await api.post('/v1/webhook_endpoints', { url });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

async function pay(api: Api, body: Record<string, unknown> = {}) {
  const res = await api.post('/v1/payments', {
    reference: uniqueRef('fault'),
    amount: '10.00',
    currency: 'KES',
    payment_method: cardMethod(),
    ...body,
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

/** The merchant's deliveries with their attempts, straight from the outbox tables. */
async function outbox(app: TestApp, merchantId: string) {
  const db = app.deps.db.db;
  const deliveries = await db.selectFrom('webhook_deliveries').selectAll().where('merchant_id', '=', merchantId).orderBy('id').execute();
  const attempts =
    deliveries.length === 0
      ? []
      : await db
          .selectFrom('webhook_attempts')
          .selectAll()
          .where(
            'delivery_id',
            'in',
            deliveries.map((d) => d.id),
          )
          .orderBy('id')
          .execute();
  return deliveries.map((d) => ({ ...d, tries: attempts.filter((a) => a.delivery_id === d.id) }));
}

/** Every delivery final, and no attempt still in flight (each claim has its attempt row). */
async function allFinal(app: TestApp, merchantId: string, timeoutMs = 15_000) {
  return eventually(
    'every delivery is final',
    async () => {
      const rows = await outbox(app, merchantId);
      return rows.length > 0 && rows.every((d) => d.status !== 'pending' && d.attempts === d.tries.length) ? rows : null;
    },
    timeoutMs,
  );
}

/** At-least-once: every event of GET /v1/events has a successful receipt at each given path. */
function assertEveryEventReceived(events: { id: string }[], r: Receiver, paths: string[]) {
  const missing: string[] = [];
  for (const e of events)
    for (const p of paths) if (!r.received.some((x) => x.ok && x.path === p && webhookId(x) === e.id)) missing.push(`${e.id} ${p}`);
  assert.deepEqual(missing, [], 'events never delivered');
  const counts = new Map<string, number>();
  for (const x of r.received.filter((y) => y.ok))
    counts.set(`${webhookId(x)} ${x.path}`, (counts.get(`${webhookId(x)} ${x.path}`) ?? 0) + 1);
  return { lost: missing.length, duplicates: [...counts.values()].filter((n) => n > 1).length };
}

test('the retry schedule: exponential with ±20 % jitter; the default lasts about three days', () => {
  const now = new Date('2030-01-01T00:00:00.000Z');
  assert.equal(nextAttemptAt(now, 1, SCHEDULE, () => 0.5)!.getTime() - now.getTime(), 100);
  assert.equal(nextAttemptAt(now, 2, SCHEDULE, () => 0)!.getTime() - now.getTime(), 240);
  assert.equal(nextAttemptAt(now, 2, SCHEDULE, () => 1)!.getTime() - now.getTime(), 360);
  assert.equal(nextAttemptAt(now, SCHEDULE.length + 1, SCHEDULE), null, 'after the last wait: no more attempts');
  const defaults = loadConfig({}).webhookRetryScheduleS;
  const total = defaults.reduce((a, b) => a + b, 0);
  assert.ok(total > 2.5 * 86400 && total < 3.5 * 86400, `default schedule lasts ${total} s`);
  for (let i = 1; i < defaults.length; i++) assert.ok(defaults[i]! >= defaults[i - 1]!, 'never shorter than the wait before');
  assert.equal(loadConfig({}).webhookTimeoutMs, 10_000, '10 s timeout');
});

test('receiver down (closed port), then back: every event is delivered after recovery', async (t) => {
  const started = Date.now();
  const { app, api, merchantId, callbackSecret } = await merchant();
  const port = await freePort(); // nothing listens here yet
  const ep = await endpoint(api, `http://127.0.0.1:${port}/endpoint`);
  const callback = `http://127.0.0.1:${port}/callback`;
  const methods = [...Array.from({ length: 8 }, () => cardMethod()), mobileMethod('+254712345000'), mobileMethod('+254712345001')];
  await parallel(methods, 10, (m) => pay(api, { callback_url: callback, payment_method: m }));
  const expected = 20; // 10 payments: created + outcome
  // Down: every delivery fails at least once, with the connection error recorded, and is retried.
  const down = await eventually(
    'a refused attempt for every delivery',
    async () => {
      const rows = await outbox(app, merchantId);
      return rows.length === expected * 2 && rows.every((d) => d.tries.length >= 1) ? rows : null;
    },
    15_000,
    10,
  );
  for (const d of down) {
    for (const a of d.tries) {
      assert.equal(a.status_code, null);
      assert.match(a.error ?? '', /ECONNREFUSED/);
    }
    assert.equal(d.status, 'pending', `still being retried after ${d.tries.length} attempts`);
  }
  const r = await receiver(t, port);
  const recoveredAt = Date.now();
  const rows = await allFinal(app, merchantId);
  const events = await allEvents(api);
  assert.equal(events.length, expected);
  for (const d of rows) assert.equal(d.status, 'delivered', `${d.id}: ${d.last_error}`);
  const { lost, duplicates } = assertEveryEventReceived(events, r, ['/endpoint', '/callback']);
  for (const x of r.received) verifyReceipt(x, x.path === '/endpoint' ? ep.secret : callbackSecret);
  figures(t, 'receiver down then back', {
    events: events.length,
    deliveries: rows.length,
    attempts: rows.reduce((n, d) => n + d.tries.length, 0),
    downAttempts: down.reduce((n, d) => n + d.tries.length, 0),
    refused: rows.reduce((n, d) => n + d.tries.filter((a) => a.status_code === null).length, 0),
    errors: [...new Set(rows.flatMap((d) => d.tries.map((a) => a.error?.replace(/:\d+$/, '') ?? null)))],
    lost,
    duplicates,
    recoveryMs: Date.now() - recoveredAt,
    ms: Date.now() - started,
  });
});

test('receiver answering 500, then 200: retried with the same event id and bytes until delivered', async (t) => {
  const { app, api, merchantId } = await merchant();
  const r = await receiver(t);
  const ep = await endpoint(api, `${r.base}/endpoint`);
  const seen = new Map<string, number>();
  r.respondWith((x) => {
    const n = (seen.get(webhookId(x)) ?? 0) + 1;
    seen.set(webhookId(x), n);
    return { status: n <= 2 ? 500 : 200, delayMs: 0 };
  });
  for (let i = 0; i < 5; i++) await pay(api);
  const rows = await allFinal(app, merchantId);
  const events = await allEvents(api);
  for (const d of rows) {
    assert.equal(d.status, 'delivered');
    const codes = d.tries.map((a) => a.status_code);
    assert.equal(codes.at(-1), 200);
    // What the receiver answered: 500, 500, then 200. (On a loaded machine the sender may time
    // out before it reads an answer; that attempt shows status null and an error.)
    const answered = r.received.filter((x) => webhookId(x) === d.event_id).map((x) => x.status);
    assert.deepEqual(answered.slice(0, 3), [500, 500, 200]);
    assert.equal(d.tries.length, answered.length, 'one request per recorded attempt');
    for (const a of d.tries.filter((x) => x.status_code === 500)) assert.equal(a.error, 'HTTP 500');
    for (const a of d.tries.filter((x) => x.status_code === null)) assert.match(a.error ?? '', /timed out/);
  }
  for (const e of events) {
    const receipts = r.received.filter((x) => webhookId(x) === e.id);
    assert.equal(new Set(receipts.map((x) => x.body)).size, 1, 'the same bytes on every attempt');
    for (const x of receipts) assert.equal(verifyReceipt(x, ep.secret).id, e.id);
  }
  const { lost, duplicates } = assertEveryEventReceived(events, r, ['/endpoint']);
  figures(t, '500 then 200', {
    events: events.length,
    deliveries: rows.length,
    attempts: rows.reduce((n, d) => n + d.tries.length, 0),
    lost,
    duplicates,
  });
});

test('a refusal keeps the start of its answer: response_excerpt, at most 200 characters, controls replaced; null once 2xx', async (t) => {
  const { app, api, merchantId } = await merchant();
  const r = await receiver(t);
  await endpoint(api, `${r.base}/endpoint`);
  const refusal = `{"error":"invalid signature",\n\t"hint":"check\u0007 the secret"}${' padding'.repeat(100)}`;
  const seen = new Map<string, number>();
  r.respondWith((x) => {
    const n = (seen.get(webhookId(x)) ?? 0) + 1;
    seen.set(webhookId(x), n);
    return n === 1 ? { status: 400, delayMs: 0, text: refusal } : { status: 200, delayMs: 0, text: 'accepted' };
  });
  const payment = await pay(api);
  const rows = await allFinal(app, merchantId);
  const expected = `{"error":"invalid signature",  "hint":"check\ufffd the secret"}${' padding'.repeat(100)}`.slice(0, 200);
  for (const d of rows) assert.equal(d.status, 'delivered');
  const events = await allEvents(api, `&object_id=${payment.id}`);
  for (const e of events) {
    const res = await api.get(`/v1/events/${e.id}/deliveries`);
    assert.equal(res.status, 200);
    const attempts = res.body.data[0].attempts as { status_code: number | null; error: string | null; response_excerpt: string | null }[];
    const refused = attempts.filter((a) => a.status_code === 400);
    assert.ok(refused.length >= 1, JSON.stringify(attempts));
    for (const a of refused) {
      assert.equal(a.error, 'HTTP 400');
      assert.equal(a.response_excerpt, expected);
    }
    // A delivered attempt keeps nothing of its answer; one without an answer (a timeout on a loaded machine) has nothing to keep.
    for (const a of attempts.filter((x) => x.status_code !== 400)) assert.equal(a.response_excerpt, null, JSON.stringify(a));
    assert.equal(attempts.at(-1)!.status_code, 200);
  }
});

test('a receiver slower than PURSE_WEBHOOK_TIMEOUT_MS: the attempt is recorded with an error and retried', async (t) => {
  const { app, api, merchantId } = await merchant();
  const r = await receiver(t);
  await endpoint(api, `${r.base}/endpoint`);
  const seen = new Set<string>();
  // First request of each event: 3× the timeout; later ones at once.
  r.respondWith((x) => {
    const first = !seen.has(webhookId(x));
    seen.add(webhookId(x));
    return { status: 200, delayMs: first ? TIMEOUT_MS * 3 : 0 };
  });
  for (let i = 0; i < 3; i++) await pay(api);
  const rows = await allFinal(app, merchantId);
  for (const d of rows) {
    assert.equal(d.status, 'delivered');
    const first = d.tries[0]!;
    assert.equal(first.status_code, null);
    assert.match(first.error ?? '', new RegExp(`timed out after ${TIMEOUT_MS} ms`));
    assert.ok(first.latency_ms >= TIMEOUT_MS - 5 && first.latency_ms < TIMEOUT_MS * 3, `latency ${first.latency_ms} ms`);
    assert.equal(d.tries.at(-1)!.status_code, 200);
  }
  const events = await allEvents(api);
  for (const e of events) {
    const receipts = r.received.filter((x) => webhookId(x) === e.id);
    assert.equal(receipts[0]!.ok, false, 'the sender hung up before the slow answer');
  }
  const { lost, duplicates } = assertEveryEventReceived(events, r, ['/endpoint']);
  figures(t, 'slow receiver', {
    events: events.length,
    timeouts: rows.reduce((n, d) => n + d.tries.filter((a) => /timed out/.test(a.error ?? '')).length, 0),
    lost,
    duplicates,
  });
});

test('an answer with a huge body (1 MiB) counts by its status and does not stall the worker', async (t) => {
  const { app, api, merchantId } = await merchant();
  const r = await receiver(t);
  r.respondWith(() => ({ status: 200, delayMs: 0, bodyBytes: 1024 * 1024 }));
  await endpoint(api, `${r.base}/endpoint`);
  await pay(api);
  const first = await allFinal(app, merchantId);
  for (const d of first) assert.equal(d.status, 'delivered', `${d.id}: ${d.last_error}`);
  // The worker is still alive: a later event is delivered too.
  await pay(api);
  const rows = await eventually('the later events delivered', async () => {
    const list = await outbox(app, merchantId);
    return list.length === 4 && list.every((d) => d.status === 'delivered') ? list : null;
  });
  const { lost } = assertEveryEventReceived(await allEvents(api), r, ['/endpoint']);
  figures(t, 'huge answer', { deliveries: rows.length, lost });
});

test('redirects (302, 307) are not followed: the target receives nothing, the attempt fails and is retried', async (t) => {
  const { app, api, merchantId } = await merchant();
  const target = await receiver(t);
  const r = await receiver(t);
  r.respondWith((x) => ({ status: x.path === '/r302' ? 302 : 307, delayMs: 0, location: `${target.base}${x.path}` }));
  const e302 = await endpoint(api, `${r.base}/r302`);
  const e307 = await endpoint(api, `${r.base}/r307`);
  await pay(api);
  const rows = await eventually('two redirected attempts per delivery', async () => {
    const list = await outbox(app, merchantId);
    return list.length === 4 && list.every((d) => d.tries.length >= 2) ? list : null;
  });
  assert.equal(target.received.length, 0, 'the redirect target received nothing');
  for (const d of rows) {
    const code = d.endpoint_id === e302.id ? 302 : 307;
    for (const a of d.tries) {
      assert.equal(a.status_code, code);
      assert.equal(a.error, `HTTP ${code}: redirects are not followed`);
    }
    const times = d.tries.map((a) => a.attempted_at.getTime());
    for (const [i, x] of times.slice(1).entries()) {
      assert.ok(x - times[i]! >= SCHEDULE[i]! * 1000 * 0.8 - 5, `gap ${i + 1}: ${x - times[i]!} ms`);
    }
  }
  for (const x of r.received) {
    assert.equal(verifyReceipt(x, x.path === '/r302' ? e302.secret : e307.secret).id, webhookId(x));
  }
  // Only 410 disables an endpoint.
  assert.equal((await api.get(`/v1/webhook_endpoints/${e302.id}`)).body.status, 'enabled');
  const deliveries = (await api.get(`/v1/events/${rows[0]!.event_id}/deliveries`)).body.data;
  assert.ok(deliveries.every((d: any) => d.attempts.every((a: any) => a.status_code === 302 || a.status_code === 307)));
  for (const e of [e302, e307]) assert.equal((await api.del(`/v1/webhook_endpoints/${e.id}`)).status, 200);
  await allFinal(app, merchantId);
  figures(t, 'redirects', { requests: r.received.length, targetReceived: target.received.length });
});

test('the schedule runs out: the delivery fails after the last wait; the waits grow (a clock the test moves)', async (t) => {
  const { app, api, merchantId } = await merchant();
  const r = await receiver(t);
  r.respond(503);
  const ep = await endpoint(api, `${r.base}/endpoint`);
  // The file's worker stops; a worker on the same database with a clock the test moves sends
  // each attempt exactly when the previous one scheduled it.
  await app.deps.deliveryWorker.stop();
  t.after(() => app.deps.deliveryWorker.start());
  const clock = manualClock(new Date(Date.now() + 1_000));
  const worker = createDeliveryWorker({
    db: app.deps.db.db,
    clock,
    config: app.deps.config,
    encryptionKey: app.deps.encryptionKey,
    log: app.deps.logger as never,
  });
  await pay(api);
  let rows = await outbox(app, merchantId);
  for (let round = 0; round < 20 && rows.some((d) => d.status === 'pending'); round++) {
    await worker.runOnce();
    rows = await outbox(app, merchantId);
    const due = rows.filter((d) => d.status === 'pending').map((d) => d.next_attempt_at!.getTime());
    if (due.length > 0) clock.set(new Date(Math.min(...due)));
  }
  assert.equal(rows.length, 2);
  const gaps: number[][] = [];
  for (const d of rows) {
    assert.equal(d.status, 'failed', 'the schedule ran out');
    assert.equal(d.attempts, SCHEDULE.length + 1);
    assert.equal(d.tries.length, SCHEDULE.length + 1);
    assert.equal(d.next_attempt_at, null);
    assert.equal(d.last_status_code, 503);
    for (const a of d.tries) assert.deepEqual([a.status_code, a.error], [503, 'HTTP 503']);
    const times = d.tries.map((a) => a.attempted_at.getTime());
    const g = times.slice(1).map((x, i) => x - times[i]!);
    gaps.push(g);
    for (const [i, gap] of g.entries()) {
      assert.ok(gap >= SCHEDULE[i]! * 800 && gap <= SCHEDULE[i]! * 1200, `wait ${i + 1}: ${gap} ms for ${SCHEDULE[i]} s ± 20 %`);
    }
    for (let i = 1; i < g.length; i++) assert.ok(g[i]! > g[i - 1]!, `back-off grows: ${g.join(', ')} ms`);
  }
  for (const x of r.received) verifyReceipt(x, ep.secret);
  assert.equal(r.received.length, 2 * (SCHEDULE.length + 1), 'one request per attempt');
  const shown = (await api.get(`/v1/events/${rows[0]!.event_id}/deliveries`)).body.data[0];
  assert.equal(shown.status, 'failed');
  assert.equal(shown.attempt_count, SCHEDULE.length + 1);
  assert.equal(shown.next_attempt_at, null);
  figures(t, 'schedule exhausted', { attempts: rows.map((d) => d.tries.length), waitsMs: gaps });
});

test('410 Gone disables the endpoint: its deliveries fail and nothing more is sent to it', async (t) => {
  const { app, api, merchantId } = await merchant();
  const r = await receiver(t);
  r.respond(410);
  const ep = await endpoint(api, `${r.base}/gone`);
  // Six deliveries are pending before the first answer comes back.
  await app.deps.deliveryWorker.stop();
  for (let i = 0; i < 3; i++) await pay(api);
  app.deps.deliveryWorker.start();
  await eventually('endpoint disabled', async () => (await api.get(`/v1/webhook_endpoints/${ep.id}`)).body.status === 'disabled');
  const rows = await allFinal(app, merchantId);
  assert.equal(rows.length, 6);
  for (const d of rows) {
    assert.equal(d.status, 'failed');
    assert.ok(d.tries.length <= 1, 'never retried');
    for (const a of d.tries) assert.ok(a.status_code === 410 || a.error === 'endpoint disabled or deleted', JSON.stringify(a));
  }
  assert.ok(rows.some((d) => d.tries[0]?.status_code === 410));
  const sent = r.received.length;
  assert.ok(sent >= 1 && sent <= 6);

  const later = await pay(api);
  const old = (await allEvents(api)).at(-1)!;
  assert.equal((await api.post(`/v1/events/${old.id}/redeliver`)).status, 200);
  await sleep(300);
  while ((await app.deps.deliveryWorker.runOnce()) > 0);
  assert.equal(r.received.length, sent, 'nothing more reached the disabled endpoint');
  for (const e of await allEvents(api, `&object_id=${later.id}`)) {
    assert.deepEqual((await api.get(`/v1/events/${e.id}/deliveries`)).body.data, [], 'no delivery to a disabled endpoint');
  }
  figures(t, '410', { requests: sent, deliveries: rows.length });
});
