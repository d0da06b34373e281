// Webhook delivery. Every settled sandbox payment and top-up (card, mobile money, wallet; succeeded
// and failed) reaches a registered endpoint and the object's callback_url, signed per Standard
// Webhooks and verified with the `standardwebhooks` library; the event id is the webhook-id, stable
// across retries; subscriptions filter; the events API, deliveries, redeliver, endpoint CRUD and
// secret rotation behave as docs/api.md §8 says.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { revealMerchantSigningSecret } from '../../src/webhooks/secrets.ts';
import { createTestMerchant, type TestApp } from '../helpers/app.ts';
import { cardMethod, mobileMethod, uniqueRef, walletMethod } from '../helpers/factories.ts';
import { type Receiver, startReceiver } from './receiver.ts';
import {
  type Api,
  allEvents,
  eventually,
  figures,
  injectApi,
  useFileApp,
  usePrivatePostgres,
  verifies,
  verifyReceipt,
  webhookId,
} from './support.ts';

usePrivatePostgres();
const fileApp = useFileApp({ env: { PURSE_WEBHOOK_RETRY_SCHEDULE_S: '0.05,0.05,0.1' } });

const DECLINED = '4000000000000002';

interface Setup {
  app: TestApp;
  api: Api;
  merchantId: string;
  receiver: Receiver;
  /** The merchant's default secret: what callback_url deliveries are signed with. */
  callbackSecret: string;
  callbackUrl: string;
}

/** A new merchant and receiver on the file's app (its settlement and delivery workers run). */
async function setup(t: TestContext): Promise<Setup> {
  const app = fileApp();
  const merchant = await createTestMerchant(app, 'Webhook merchant');
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const callbackSecret = (await revealMerchantSigningSecret(app.deps.db.db, app.deps.encryptionKey, app.deps.clock, merchant.merchantId))!;
  assert.ok(callbackSecret.startsWith('whsec_'));
  return {
    app,
    api: injectApi(app, merchant.auth),
    merchantId: merchant.merchantId,
    receiver,
    callbackSecret,
    callbackUrl: `${receiver.base}/callback`,
  };
}

async function createEndpoint(api: Api, url: string, events?: string[]): Promise<{ id: string; secret: string; [k: string]: unknown }> {
  const res = await api.post('/v1/webhook_endpoints', { url, ...(events ? { events } : {}) });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.match(res.body.id, /^whe_/);
  assert.match(res.body.secret, /^whsec_/);
  return res.body;
}

async function created(api: Api, path: string, body: Record<string, unknown>) {
  const res = await api.post(path, { reference: uniqueRef('wh'), currency: 'KES', ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

/** Polls the object until it leaves pending (the settlement worker runs). */
async function settled(api: Api, path: string) {
  return eventually(`${path} settles`, async () => {
    const res = await api.get(path);
    return res.body.status !== 'pending' ? res.body : null;
  });
}

/** No delivery of the merchant is pending any more. */
async function drained(app: TestApp, merchantId: string, timeoutMs = 10_000): Promise<void> {
  await eventually(
    'every delivery is final',
    async () => {
      const row = await app.deps.db.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('merchant_id', '=', merchantId)
        .where('status', '=', 'pending')
        .executeTakeFirstOrThrow();
      return Number(row.n) === 0;
    },
    timeoutMs,
  );
}

test('every settled payment and top-up (card, mobile money, wallet; succeeded and failed) reaches the endpoint and the callback_url, signed', async (t) => {
  const started = Date.now();
  const { app, api, merchantId, receiver, callbackSecret, callbackUrl } = await setup(t);
  const endpoint = await createEndpoint(api, `${receiver.base}/endpoint`);
  assert.deepEqual(endpoint.events, ['*']);
  assert.equal(endpoint.status, 'enabled');

  const wallet = (await api.post('/v1/wallets', { currency: 'KES' })).body.id as string;
  const cb = { callback_url: callbackUrl };
  const objects: { path: string; kind: 'payment' | 'topup'; label: string; expect: string; failure?: string }[] = [];
  const add = async (kind: 'payment' | 'topup', label: string, body: Record<string, unknown>, expect: string, failure?: string) => {
    const obj = await created(api, kind === 'payment' ? '/v1/payments' : '/v1/topups', { ...cb, ...body });
    objects.push({ path: `/v1/${kind}s/${obj.id}`, kind, label, expect, ...(failure ? { failure } : {}) });
  };
  await add('topup', 'topup card succeeded', { amount: '500.00', wallet_id: wallet, source: cardMethod() }, 'succeeded');
  await add(
    'topup',
    'topup card failed',
    { amount: '5.00', wallet_id: wallet, source: cardMethod({ number: DECLINED }) },
    'failed',
    'card_declined',
  );
  await add(
    'topup',
    'topup mobile money succeeded',
    { amount: '7.00', wallet_id: wallet, source: mobileMethod('+254712345000') },
    'succeeded',
  );
  await add(
    'topup',
    'topup mobile money failed',
    { amount: '8.00', wallet_id: wallet, source: mobileMethod('+254712345001') },
    'failed',
    'insufficient_funds',
  );
  await add('payment', 'payment card succeeded', { amount: '10.00', payment_method: cardMethod() }, 'succeeded');
  await add(
    'payment',
    'payment card failed',
    { amount: '11.00', payment_method: cardMethod({ number: DECLINED }) },
    'failed',
    'card_declined',
  );
  await add('payment', 'payment mobile money succeeded', { amount: '12.00', payment_method: mobileMethod('+254712345000') }, 'succeeded');
  await add(
    'payment',
    'payment mobile money failed',
    { amount: '13.00', payment_method: mobileMethod('+254712345002') },
    'failed',
    'payer_declined',
  );
  await add('payment', 'payment wallet succeeded', { amount: '14.00', payment_method: walletMethod(wallet) }, 'succeeded');
  await add(
    'payment',
    'payment wallet failed',
    { amount: '99999.00', payment_method: walletMethod(wallet) },
    'failed',
    'insufficient_funds',
  );

  const finals = new Map<string, any>();
  for (const o of objects) {
    const obj = await settled(api, o.path);
    assert.equal(obj.status, o.expect, o.label);
    assert.equal(obj.failure?.code, o.failure, o.label);
    finals.set(obj.id, obj);
  }

  // Two events per object (created, then the outcome), each received at both targets.
  const events = await eventually('two events per object', async () => {
    const list = await allEvents(api);
    return list.length === objects.length * 2 ? list : null;
  });
  const okAt = (path: string, id: string) => receiver.received.filter((r) => r.ok && r.path === path && webhookId(r) === id);
  await eventually('every event received at the endpoint and at the callback_url', () =>
    events.every((e) => okAt('/endpoint', e.id).length > 0 && okAt('/callback', e.id).length > 0),
  );
  await drained(app, merchantId);

  for (const o of objects) {
    const obj = finals.get(o.path.split('/').pop()!);
    const types = events
      .filter((e) => e.data.object.id === obj.id)
      .map((e) => e.type)
      .sort();
    assert.deepEqual(types, [`${o.kind}.created`, `${o.kind}.${o.expect}`].sort(), o.label);
    const outcome = events.find((e) => e.data.object.id === obj.id && e.type === `${o.kind}.${o.expect}`)!;
    assert.equal((outcome.data.object as any).status, o.expect, `${o.label}: the event carries the settled object`);
    assert.equal((outcome.data.object as any).callback_url, callbackUrl);
  }

  for (const r of receiver.received) {
    assert.equal(r.headers['content-type'], 'application/json', 'JSON body');
    assert.match(webhookId(r), /^evt_/);
    assert.match(r.headers['webhook-timestamp'] as string, /^\d{10}$/);
    assert.match(r.headers['webhook-signature'] as string, /^v1,[A-Za-z0-9+/=]+$/, 'one signature (no rotation)');
    const secret = r.path === '/endpoint' ? endpoint.secret : callbackSecret;
    const other = r.path === '/endpoint' ? callbackSecret : endpoint.secret;
    const body = verifyReceipt(r, secret);
    assert.equal(verifies(r, other), false, 'the endpoint secret and the merchant default secret are different keys');
    assert.equal(body.id, webhookId(r), 'webhook-id is the event id and the body id');
    const event = await api.get(`/v1/events/${body.id}`);
    assert.equal(event.status, 200);
    assert.deepEqual(body, event.body, 'the body is the event object');
  }
  figures(t, 'delivery matrix', {
    objects: objects.length,
    events: events.length,
    requests: receiver.received.length,
    endpoint: receiver.received.filter((r) => r.path === '/endpoint').length,
    callback: receiver.received.filter((r) => r.path === '/callback').length,
    verified: receiver.received.length,
    ms: Date.now() - started,
  });
});

test('retries keep the event id and the bytes; GET /v1/events/{id}/deliveries shows each attempt with status code and latency', async (t) => {
  const { app, api, merchantId, receiver, callbackSecret, callbackUrl } = await setup(t);
  const endpoint = await createEndpoint(api, `${receiver.base}/endpoint`);
  // The endpoint answers 500 twice per event, then 200; the callback answers 200. 30 ms each.
  const seen = new Map<string, number>();
  receiver.respondWith((r) => {
    if (r.path !== '/endpoint') return { status: 200, delayMs: 30 };
    const n = (seen.get(webhookId(r)) ?? 0) + 1;
    seen.set(webhookId(r), n);
    return { status: n <= 2 ? 500 : 200, delayMs: 30 };
  });
  const pay = await created(api, '/v1/payments', { amount: '25.00', payment_method: cardMethod(), callback_url: callbackUrl });
  assert.equal(pay.status, 'succeeded');
  const [succeeded] = await allEvents(api, '&type=payment.succeeded');
  assert.ok(succeeded);
  await eventually('delivered after two 500s', () =>
    receiver.received.some((r) => r.ok && r.path === '/endpoint' && webhookId(r) === succeeded.id),
  );
  await drained(app, merchantId);

  const attempts = receiver.received.filter((r) => r.path === '/endpoint' && webhookId(r) === succeeded.id);
  assert.equal(attempts.length, 3);
  assert.deepEqual(
    attempts.map((a) => a.status),
    [500, 500, 200],
  );
  for (const a of attempts) {
    assert.equal(a.body, attempts[0]!.body, 'the same bytes on every attempt');
    assert.equal(verifyReceipt(a, endpoint.secret).id, succeeded.id);
  }

  const deliveries = await api.get(`/v1/events/${succeeded.id}/deliveries`);
  assert.equal(deliveries.status, 200);
  assert.equal(deliveries.body.object, 'list');
  assert.equal(deliveries.body.data.length, 2, 'the endpoint and the callback_url');
  const toEndpoint = deliveries.body.data.find((d: any) => d.webhook_endpoint_id === endpoint.id);
  const toCallback = deliveries.body.data.find((d: any) => d.webhook_endpoint_id === null);
  assert.equal(toEndpoint.object, 'webhook_delivery');
  assert.equal(toEndpoint.event_id, succeeded.id);
  assert.equal(toEndpoint.url, `${receiver.base}/endpoint`);
  assert.equal(toEndpoint.status, 'delivered');
  assert.equal(toEndpoint.attempt_count, 3);
  assert.equal(toEndpoint.last_status_code, 200);
  assert.equal(toEndpoint.next_attempt_at, null);
  assert.ok(toEndpoint.delivered_at);
  assert.deepEqual(
    toEndpoint.attempts.map((a: any) => [a.status_code, a.error]),
    [
      [500, 'HTTP 500'],
      [500, 'HTTP 500'],
      [200, null],
    ],
  );
  for (const a of [...toEndpoint.attempts, ...toCallback.attempts]) {
    assert.ok(
      Number.isInteger(a.latency_ms) && a.latency_ms >= 25 && a.latency_ms < 5_000,
      `latency ${a.latency_ms} ms covers the receiver's 30 ms`,
    );
    assert.ok(!Number.isNaN(Date.parse(a.attempted_at)));
  }
  assert.equal(toCallback.url, callbackUrl);
  assert.equal(toCallback.status, 'delivered');
  assert.deepEqual(
    toCallback.attempts.map((a: any) => a.status_code),
    [200],
  );
  const cbReceipt = receiver.received.find((r) => r.path === '/callback' && webhookId(r) === succeeded.id)!;
  assert.equal(verifyReceipt(cbReceipt, callbackSecret).id, succeeded.id);
  figures(t, 'retries', {
    attempts: attempts.length,
    statuses: attempts.map((a) => a.status),
    latencies: toEndpoint.attempts.map((a: any) => a.latency_ms),
  });
});

test("an endpoint subscribed to ['payment.succeeded'] receives only those; one without events receives all", async (t) => {
  const { app, api, merchantId, receiver } = await setup(t);
  const only = await createEndpoint(api, `${receiver.base}/only`, ['payment.succeeded']);
  assert.deepEqual(only.events, ['payment.succeeded']);
  const all = await createEndpoint(api, `${receiver.base}/all`);
  const wallet = (await api.post('/v1/wallets', { currency: 'KES' })).body.id;
  await created(api, '/v1/payments', { amount: '1.00', payment_method: cardMethod() });
  await created(api, '/v1/payments', { amount: '2.00', payment_method: cardMethod({ number: DECLINED }) });
  await created(api, '/v1/topups', { amount: '3.00', wallet_id: wallet, source: cardMethod() });
  const events = await allEvents(api);
  assert.equal(events.length, 6);
  await eventually(
    'the all-events endpoint has all six',
    () => new Set(receiver.received.filter((r) => r.ok && r.path === '/all').map(webhookId)).size === 6,
  );
  await drained(app, merchantId);
  const onlyReceived = receiver.received.filter((r) => r.path === '/only');
  assert.equal(onlyReceived.length, 1);
  assert.equal(verifyReceipt(onlyReceived[0]!, only.secret).type, 'payment.succeeded');
  for (const r of receiver.received.filter((x) => x.path === '/all')) verifyReceipt(r, all.secret);
  figures(t, 'subscriptions', {
    events: events.length,
    only: onlyReceived.length,
    all: receiver.received.filter((r) => r.path === '/all').length,
  });
});

test('GET /v1/events filters by type and object_id; GET /v1/events/{id}; another merchant gets 404', async (t) => {
  const { app, api } = await setup(t);
  const ok = await created(api, '/v1/payments', { amount: '5.00', payment_method: cardMethod() });
  const ko = await created(api, '/v1/payments', { amount: '6.00', payment_method: cardMethod({ number: DECLINED }) });
  const events = await allEvents(api);
  assert.equal(events.length, 4);
  const ids = events.map((e) => e.id);
  assert.deepEqual([...ids].sort().reverse(), ids, 'newest first');
  const listed = await api.get('/v1/events');
  assert.equal(listed.body.object, 'list');
  assert.equal(listed.body.has_more, false);

  const succeeded = await allEvents(api, '&type=payment.succeeded');
  assert.deepEqual(
    succeeded.map((e) => [e.type, e.data.object.id]),
    [['payment.succeeded', ok.id]],
  );
  const ofKo = await allEvents(api, `&object_id=${ko.id}`);
  assert.deepEqual(ofKo.map((e) => e.type).sort(), ['payment.created', 'payment.failed']);
  assert.deepEqual(await allEvents(api, `&type=payment.failed&object_id=${ok.id}`), []);
  assert.equal((await api.get('/v1/events?type=payment.refunded')).status, 400);
  const page = await api.get('/v1/events?limit=1');
  assert.equal(page.body.data.length, 1);
  assert.equal(page.body.has_more, true);

  const one = await api.get(`/v1/events/${succeeded[0]!.id}`);
  assert.equal(one.status, 200);
  assert.equal(one.body.object, 'event');
  assert.equal(one.body.livemode, false);
  assert.match(one.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(one.body.data.object.id, ok.id);
  assert.equal(one.body.data.object.status, 'succeeded');
  assert.deepEqual(one.body, succeeded[0]!, 'the same object as in the list');

  const other = await createTestMerchant(app, 'Other merchant');
  const otherApi = injectApi(app, other.auth);
  const strip = (body: any) => ({ ...body, error: { ...body.error, request_id: undefined } });
  const unknown = await otherApi.get('/v1/events/evt_01jd6x8v1ffq8v2k3m4n5p6q7r');
  assert.equal(unknown.status, 404);
  for (const path of [`/v1/events/${ok.id}`, `/v1/events/${one.body.id}`, `/v1/events/${one.body.id}/deliveries`]) {
    const res = await otherApi.get(path);
    assert.equal(res.status, 404, path);
    assert.deepEqual(strip(res.body), strip(unknown.body), `${path}: identical to an unknown id`);
  }
  const redeliver = await otherApi.post(`/v1/events/${one.body.id}/redeliver`);
  assert.equal(redeliver.status, 404);
  assert.deepEqual(strip(redeliver.body), strip(unknown.body));
  assert.deepEqual(await allEvents(otherApi), [], "another merchant's list holds none of them");
  assert.deepEqual(await allEvents(otherApi, `&object_id=${ok.id}`), []);
  for (const bad of ['../x', `evt_${'a'.repeat(400)}`, "evt_'--"]) {
    assert.equal((await otherApi.get(`/v1/events/${encodeURIComponent(bad)}`)).status, 404, bad);
  }
});

test('POST /v1/events/{id}/redeliver sends the event again to the endpoint and the callback_url', async (t) => {
  const { app, api, merchantId, receiver, callbackUrl, callbackSecret } = await setup(t);
  const endpoint = await createEndpoint(api, `${receiver.base}/endpoint`);
  const pay = await created(api, '/v1/payments', { amount: '9.00', payment_method: cardMethod(), callback_url: callbackUrl });
  const [event] = await allEvents(api, `&type=payment.succeeded&object_id=${pay.id}`);
  const count = (path: string) => receiver.received.filter((r) => r.ok && r.path === path && webhookId(r) === event!.id).length;
  await eventually('first delivery', () => count('/endpoint') === 1 && count('/callback') === 1);
  await drained(app, merchantId);

  const res = await api.post(`/v1/events/${event!.id}/redeliver`);
  assert.equal(res.status, 200);
  assert.equal(res.body.data.length, 2);
  await eventually('sent again', () => count('/endpoint') === 2 && count('/callback') === 2);
  await drained(app, merchantId);
  const again = receiver.received.filter((r) => webhookId(r) === event!.id);
  for (const r of again) verifyReceipt(r, r.path === '/endpoint' ? endpoint.secret : callbackSecret);
  assert.equal(new Set(again.map((r) => r.body)).size, 1, 'the same bytes');
  const deliveries = (await api.get(`/v1/events/${event!.id}/deliveries`)).body.data;
  for (const d of deliveries) {
    assert.equal(d.status, 'delivered');
    assert.deepEqual(
      d.attempts.map((a: any) => a.status_code),
      [200, 200],
    );
  }
});

test('redeliver does not reset an exhausted schedule: one attempt per redelivery, then failed again', async (t) => {
  const { app, api, merchantId, receiver } = await setup(t);
  receiver.respond(500);
  await createEndpoint(api, `${receiver.base}/failing`);
  const pay = await created(api, '/v1/payments', { amount: '4.00', payment_method: cardMethod() });
  const [event] = await allEvents(api, `&type=payment.succeeded&object_id=${pay.id}`);
  const attemptsOf = async () => {
    const [delivery] = (await api.get(`/v1/events/${event!.id}/deliveries`)).body.data;
    return delivery as { status: string; attempt_count: number };
  };
  // The schedule 0.05,0.05,0.1: a first attempt and three retries.
  await eventually('the schedule runs out', async () => (await attemptsOf()).status === 'failed');
  assert.equal((await attemptsOf()).attempt_count, 4);
  for (const expected of [5, 6]) {
    assert.equal((await api.post(`/v1/events/${event!.id}/redeliver`)).status, 200);
    await drained(app, merchantId);
    const after = await attemptsOf();
    assert.deepEqual([after.status, after.attempt_count], ['failed', expected]);
  }
  // Nothing more is sent on its own afterwards.
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.equal((await attemptsOf()).attempt_count, 6);
  assert.equal(receiver.received.filter((r) => r.path === '/failing' && webhookId(r) === event!.id).length, 6);
});

test('endpoints: list, get, delete; a deleted endpoint receives nothing more and its pending deliveries fail', async (t) => {
  const { app, api, merchantId, receiver } = await setup(t);
  // The delivery worker stops for this test, so deliveries are still pending when /one is deleted.
  await app.deps.deliveryWorker.stop();
  t.after(() => app.deps.deliveryWorker.start());
  const one = await createEndpoint(api, `${receiver.base}/one`);
  const two = await createEndpoint(api, `${receiver.base}/two`, ['payment.created', 'payment.succeeded']);
  const list = await api.get('/v1/webhook_endpoints');
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.data.map((e: any) => e.id).sort(), [one.id, two.id].sort());
  for (const e of list.body.data) assert.equal('secret' in e, false, 'the secret is shown only at creation');
  const got = await api.get(`/v1/webhook_endpoints/${one.id}`);
  assert.equal(got.status, 200);
  assert.equal(got.body.url, one.url);
  assert.equal(got.body.object, 'webhook_endpoint');
  assert.equal('secret' in got.body, false);

  const other = injectApi(app, (await createTestMerchant(app, 'Other')).auth);
  assert.equal((await other.get(`/v1/webhook_endpoints/${one.id}`)).status, 404);
  assert.equal((await other.del(`/v1/webhook_endpoints/${one.id}`)).status, 404);
  assert.deepEqual((await other.get('/v1/webhook_endpoints')).body.data, []);

  // The delivery worker is stopped: the deliveries of this payment are pending when /one goes.
  const first = await created(api, '/v1/payments', { amount: '4.00', payment_method: cardMethod() });
  const firstEvents = await allEvents(api, `&object_id=${first.id}`);
  const del = await api.del(`/v1/webhook_endpoints/${one.id}`);
  assert.equal(del.status, 200);
  assert.deepEqual(del.body, { id: one.id, object: 'webhook_endpoint', deleted: true });
  assert.equal((await api.get(`/v1/webhook_endpoints/${one.id}`)).status, 404);
  assert.equal((await api.del(`/v1/webhook_endpoints/${one.id}`)).status, 404);
  assert.deepEqual(
    (await api.get('/v1/webhook_endpoints')).body.data.map((e: any) => e.id),
    [two.id],
  );
  for (const e of firstEvents) {
    const ds = (await api.get(`/v1/events/${e.id}/deliveries`)).body.data;
    const toOne = ds.find((d: any) => d.webhook_endpoint_id === one.id);
    assert.equal(toOne.status, 'failed', 'a pending delivery of a deleted endpoint fails');
    assert.equal(toOne.last_error, 'endpoint deleted');
  }

  const second = await created(api, '/v1/payments', { amount: '4.50', payment_method: cardMethod() });
  while ((await app.deps.deliveryWorker.runOnce()) > 0);
  await drained(app, merchantId);
  assert.equal(receiver.received.filter((r) => r.path === '/one').length, 0, 'the deleted endpoint received nothing');
  assert.equal(receiver.received.filter((r) => r.path === '/two' && r.ok).length, 4, 'the other endpoint received both payments');
  for (const e of await allEvents(api, `&object_id=${second.id}`)) {
    const ds = (await api.get(`/v1/events/${e.id}/deliveries`)).body.data;
    assert.deepEqual(
      ds.map((d: any) => d.webhook_endpoint_id),
      [two.id],
      'no delivery is created for a deleted endpoint',
    );
  }
  // Redelivering an old event does not revive the deleted endpoint.
  assert.equal((await api.post(`/v1/events/${firstEvents[0]!.id}/redeliver`)).status, 200);
  while ((await app.deps.deliveryWorker.runOnce()) > 0);
  assert.equal(receiver.received.filter((r) => r.path === '/one').length, 0);
});

test('rotate_secret: a new secret; deliveries carry two signatures and verify with the new and the old secret', async (t) => {
  const { app, api, merchantId, receiver } = await setup(t);
  const endpoint = await createEndpoint(api, `${receiver.base}/endpoint`);
  const before = await created(api, '/v1/payments', { amount: '3.00', payment_method: cardMethod() });
  await eventually('delivery before rotation', () => receiver.received.filter((r) => r.ok).length === 2);
  await drained(app, merchantId);
  for (const r of receiver.received) {
    assert.equal((r.headers['webhook-signature'] as string).split(' ').length, 1);
    verifyReceipt(r, endpoint.secret);
  }

  const rotated = await api.post(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`);
  assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
  assert.equal(rotated.body.id, endpoint.id);
  assert.match(rotated.body.secret, /^whsec_/);
  assert.notEqual(rotated.body.secret, endpoint.secret);
  assert.equal('secret' in (await api.get(`/v1/webhook_endpoints/${endpoint.id}`)).body, false);
  const other = injectApi(app, (await createTestMerchant(app, 'Other')).auth);
  assert.equal((await other.post(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`)).status, 404);

  const afterPay = await created(api, '/v1/payments', { amount: '3.50', payment_method: cardMethod() });
  const ids = new Set((await allEvents(api, `&object_id=${afterPay.id}`)).map((e) => e.id));
  await eventually('delivery after rotation', () => receiver.received.filter((r) => r.ok && ids.has(webhookId(r))).length === 2);
  for (const r of receiver.received.filter((x) => ids.has(webhookId(x)))) {
    const signatures = (r.headers['webhook-signature'] as string).split(' ');
    assert.equal(signatures.length, 2, 'two signatures during the overlap');
    for (const s of signatures) assert.match(s, /^v1,[A-Za-z0-9+/=]+$/);
    assert.equal(verifyReceipt(r, rotated.body.secret).id, webhookId(r), 'verifies with the new secret');
    assert.equal(verifyReceipt(r, endpoint.secret).id, webhookId(r), 'verifies with the old secret');
    assert.equal(verifies(r, `whsec_${Buffer.alloc(24, 7).toString('base64')}`), false, 'not with any other secret');
  }
  // Rotation holds for redeliveries of events created before it.
  const [old] = await allEvents(api, `&type=payment.succeeded&object_id=${before.id}`);
  assert.equal((await api.post(`/v1/events/${old!.id}/redeliver`)).status, 200);
  await eventually('redelivered', () => receiver.received.filter((r) => webhookId(r) === old!.id).length === 2);
  const redelivered = receiver.received.filter((r) => webhookId(r) === old!.id)[1]!;
  assert.ok(verifies(redelivered, rotated.body.secret) && verifies(redelivered, endpoint.secret));
});
