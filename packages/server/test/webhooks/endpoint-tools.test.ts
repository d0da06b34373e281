// Developer tools for webhooks: PATCH an endpoint (re-enable after a 410), send a test event to one
// endpoint, and read or rotate the merchant's default secret (the one that signs callback_url
// deliveries) through the API, with Cache-Control: no-store on every answer that carries a secret.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestMerchant } from '../helpers/app.ts';
import { cardMethod, uniqueRef } from '../helpers/factories.ts';
import { startReceiver } from './receiver.ts';
import { type Api, eventually, injectApi, useFileApp, usePrivatePostgres, verifyReceipt, webhookId } from './support.ts';

usePrivatePostgres();
const fileApp = useFileApp({ env: { PURSE_WEBHOOK_RETRY_SCHEDULE_S: '0.05,0.05,0.1' } });

async function merchant() {
  const app = fileApp();
  const m = await createTestMerchant(app, 'Webhook tools merchant');
  return { app, auth: m.auth, api: injectApi(app, m.auth) };
}

async function patch(app: ReturnType<typeof fileApp>, auth: { authorization: string }, url: string, payload: unknown) {
  const res = await app.inject({ method: 'PATCH', url, headers: auth, payload: payload as object });
  return { status: res.statusCode, body: res.json() };
}

async function createEndpoint(api: Api, url: string, events?: string[]) {
  const res = await api.post('/v1/webhook_endpoints', { url, ...(events ? { events } : {}) });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string; secret: string; status: string };
}

test('PATCH edits url, events, description and status; only the fields given; another merchant gets 404', async (t) => {
  const { app, auth, api } = await merchant();
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const endpoint = await createEndpoint(api, `${receiver.base}/a`, ['payment.succeeded']);

  const edited = await patch(app, auth, `/v1/webhook_endpoints/${endpoint.id}`, {
    description: 'orders',
    events: ['refund.succeeded', '*'],
  });
  assert.equal(edited.status, 200, JSON.stringify(edited.body));
  assert.equal(edited.body.description, 'orders');
  assert.deepEqual(edited.body.events, ['*']);
  assert.equal(edited.body.url, `${receiver.base}/a`, 'the url is kept when not given');
  assert.equal('secret' in edited.body, false);

  const moved = await patch(app, auth, `/v1/webhook_endpoints/${endpoint.id}`, { url: `${receiver.base}/b`, description: null });
  assert.equal(moved.status, 200);
  assert.equal(moved.body.url, `${receiver.base}/b`);
  assert.equal(moved.body.description, null);

  const paused = await patch(app, auth, `/v1/webhook_endpoints/${endpoint.id}`, { status: 'disabled' });
  assert.equal(paused.body.status, 'disabled');
  assert.equal((await api.get(`/v1/webhook_endpoints/${endpoint.id}`)).body.status, 'disabled');

  for (const [body, param] of [
    [{}, null],
    [{ url: 'ftp://example.com/x' }, 'url'],
    [{ status: 'deleted' }, 'status'],
    [{ secret: 'whsec_x' }, 'secret'],
    [{ events: ['payment.nothing'] }, 'events'],
  ] as const) {
    const res = await patch(app, auth, `/v1/webhook_endpoints/${endpoint.id}`, body);
    assert.equal(res.status, 400, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
    if (param) assert.match(String(res.body.error.param), new RegExp(`^${param}`));
  }
  assert.equal((await api.get(`/v1/webhook_endpoints/${endpoint.id}`)).body.url, `${receiver.base}/b`, 'refused edits change nothing');

  const other = await createTestMerchant(app, 'Other');
  assert.equal((await patch(app, other.auth, `/v1/webhook_endpoints/${endpoint.id}`, { status: 'enabled' })).status, 404);
  assert.equal((await patch(app, auth, '/v1/webhook_endpoints/whe_01jd6x8v1ffq8v2k3m4n5p6q7r', { status: 'enabled' })).status, 404);
  assert.equal((await api.get(`/v1/webhook_endpoints/${endpoint.id}`)).body.status, 'disabled');
});

test('an endpoint disabled by 410 is enabled again with PATCH and receives the next event', async (t) => {
  const { app, auth, api } = await merchant();
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  receiver.respond(410);
  const endpoint = await createEndpoint(api, `${receiver.base}/gone`);
  const first = await api.post('/v1/payments', { reference: uniqueRef(), amount: '1.00', currency: 'KES', payment_method: cardMethod() });
  assert.equal(first.status, 201);
  await eventually('disabled by 410', async () => (await api.get(`/v1/webhook_endpoints/${endpoint.id}`)).body.status === 'disabled');

  receiver.respond(200);
  const enabled = await patch(app, auth, `/v1/webhook_endpoints/${endpoint.id}`, { status: 'enabled' });
  assert.equal(enabled.status, 200);
  assert.equal(enabled.body.status, 'enabled');
  const second = await api.post('/v1/payments', { reference: uniqueRef(), amount: '2.00', currency: 'KES', payment_method: cardMethod() });
  await eventually('delivered after re-enabling', () =>
    receiver.received.some((r) => r.status === 200 && JSON.parse(r.body).data.object.id === second.body.id),
  );
  const got = receiver.received.find((r) => r.status === 200)!;
  assert.equal(verifyReceipt(got, endpoint.secret).data.object.id, second.body.id);
});

test('POST /test sends a signed webhook_endpoint.test event to that endpoint only, whatever its events', async (t) => {
  const { app, auth, api } = await merchant();
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const target = await createEndpoint(api, `${receiver.base}/target`, ['payout.failed']);
  const bystander = await createEndpoint(api, `${receiver.base}/bystander`);

  const sent = await api.post(`/v1/webhook_endpoints/${target.id}/test`);
  assert.equal(sent.status, 201, JSON.stringify(sent.body));
  assert.equal(sent.body.type, 'webhook_endpoint.test');
  assert.equal(sent.body.data.object.id, target.id);
  assert.equal('secret' in sent.body.data.object, false, 'the event never carries the secret');
  await eventually('test event delivered', () => receiver.received.some((r) => webhookId(r) === sent.body.id && r.status === 200));
  const got = receiver.received.filter((r) => webhookId(r) === sent.body.id);
  assert.deepEqual(
    got.map((r) => r.path),
    ['/target'],
    'only the endpoint tested',
  );
  assert.equal(verifyReceipt(got[0]!, target.secret).type, 'webhook_endpoint.test');
  assert.ok(bystander.id);

  const event = await api.get(`/v1/events/${sent.body.id}`);
  assert.equal(event.status, 200);
  // The receiver answers before the worker records the attempt: wait for the record.
  await eventually(
    'the attempt recorded',
    async () => (await api.get(`/v1/events/${sent.body.id}/deliveries`)).body.data[0]?.status === 'delivered',
  );
  const deliveries = await api.get(`/v1/events/${sent.body.id}/deliveries`);
  assert.equal(deliveries.body.data.length, 1);
  assert.equal(deliveries.body.data[0].attempts[0].status_code, 200);

  await patch(app, auth, `/v1/webhook_endpoints/${target.id}`, { status: 'disabled' });
  const refused = await api.post(`/v1/webhook_endpoints/${target.id}/test`);
  assert.equal(refused.status, 400);
  assert.match(refused.body.error.message, /enable it/);
  const other = await createTestMerchant(app, 'Other');
  assert.equal((await injectApi(app, other.auth).post(`/v1/webhook_endpoints/${bystander.id}/test`)).status, 404);
});

test('GET /v1/webhook_secret shows the callback_url secret; rotate answers a new one; both no-store; deliveries verify with it', async (t) => {
  const { app, auth, api } = await merchant();
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const read = await app.inject({ method: 'GET', url: '/v1/webhook_secret', headers: auth });
  assert.equal(read.statusCode, 200, read.body);
  assert.equal(read.headers['cache-control'], 'no-store');
  const secret = read.json().secret as string;
  assert.match(secret, /^whsec_/);
  assert.equal((await api.get('/v1/webhook_secret')).body.secret, secret, 'stable between reads');

  const pay = await api.post('/v1/payments', {
    reference: uniqueRef(),
    amount: '1.00',
    currency: 'KES',
    payment_method: cardMethod(),
    callback_url: `${receiver.base}/callback`,
  });
  assert.equal(pay.status, 201);
  await eventually('callback delivered', () => receiver.received.some((r) => r.path === '/callback'));
  assert.equal(verifyReceipt(receiver.received.find((r) => r.path === '/callback')!, secret).data.object.id, pay.body.id);

  const rotated = await app.inject({ method: 'POST', url: '/v1/webhook_secret/rotate', headers: auth, payload: {} });
  assert.equal(rotated.statusCode, 200, rotated.body);
  assert.equal(rotated.headers['cache-control'], 'no-store');
  const fresh = rotated.json().secret as string;
  assert.notEqual(fresh, secret);
  assert.equal((await api.get('/v1/webhook_secret')).body.secret, fresh);

  const other = await createTestMerchant(app, 'Other');
  assert.notEqual((await injectApi(app, other.auth).get('/v1/webhook_secret')).body.secret, fresh, 'each merchant has its own');
  const endpoint = await app.inject({
    method: 'POST',
    url: '/v1/webhook_endpoints',
    headers: auth,
    payload: { url: `${receiver.base}/e` },
  });
  assert.equal(endpoint.headers['cache-control'], 'no-store', 'the create answer carries a secret');
  const rot = await app.inject({
    method: 'POST',
    url: `/v1/webhook_endpoints/${endpoint.json().id}/rotate_secret`,
    headers: auth,
    payload: {},
  });
  assert.equal(rot.headers['cache-control'], 'no-store');
});

test('routes that take no body accept an empty one sent with Content-Type: application/json; routes with a body still refuse it', async () => {
  const { app, auth, api } = await merchant();
  const endpoint = await createEndpoint(api, 'http://127.0.0.1:9/hooks');
  const headers = { ...auth, 'content-type': 'application/json' };
  const rotated = await app.inject({ method: 'POST', url: `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, headers, payload: '' });
  assert.equal(rotated.statusCode, 200, rotated.body);
  const deleted = await app.inject({ method: 'DELETE', url: `/v1/webhook_endpoints/${endpoint.id}`, headers, payload: '' });
  assert.equal(deleted.statusCode, 200, deleted.body);
  assert.equal(deleted.json().deleted, true);
  const create = await app.inject({ method: 'POST', url: '/v1/webhook_endpoints', headers, payload: '' });
  assert.equal(create.statusCode, 400);
  assert.equal(create.json().error.code, 'invalid_json');
});
