// Checkout sessions over HTTP (docs/api.md, hosted checkout): every field, defaults, bad input
// (nothing stored), reference semantics, isolation between merchants, lists, expire.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { checkoutApp, client, eventTypes, expireByTime, merchantClient, sessionBody } from './support.ts';

const KEYS = [
  'id',
  'object',
  'reference',
  'status',
  'payment_status',
  'url',
  'amount',
  'currency',
  'payment_method_types',
  'capture_method',
  'success_url',
  'cancel_url',
  'payment_id',
  'payment_link',
  'customer',
  'description',
  'metadata',
  'livemode',
  'expires_at',
  'created_at',
  'completed_at',
];

test('create with every field, retrieve, defaults', async (t) => {
  const { api, app } = await checkoutApp(t);
  const body = sessionBody({
    amount: '10.5',
    payment_method_types: ['card'],
    capture_method: 'manual',
    customer: { name: 'Ama', email: 'ama@example.com', phone_number: '+254712345678' },
    description: 'Order 7',
    metadata: { order: '7' },
    expires_in: 600,
  });
  const res = await api.post('/v1/checkout_sessions', body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const s = res.body;
  assert.deepEqual(Object.keys(s), KEYS);
  assert.match(s.id, /^cs_[0-9a-z]{26}$/);
  assert.equal(res.headers.get('location'), `/v1/checkout_sessions/${s.id}`);
  assert.equal(s.object, 'checkout_session');
  assert.equal(s.status, 'open');
  assert.equal(s.payment_status, 'unpaid');
  assert.equal(s.amount, '10.50');
  assert.deepEqual(s.payment_method_types, ['card']);
  assert.equal(s.capture_method, 'manual');
  assert.deepEqual(s.customer, { name: 'Ama', email: 'ama@example.com', phone_number: '+254712345678' });
  assert.equal(s.description, 'Order 7');
  assert.deepEqual(s.metadata, { order: '7' });
  assert.equal(s.livemode, false);
  assert.equal(s.payment_id, null);
  assert.equal(s.completed_at, null);
  assert.equal(Date.parse(s.expires_at) - Date.parse(s.created_at), 600_000);
  // The page's URL: this process, /pay/ and 43 characters that name nothing of the session.
  const url = new URL(s.url);
  assert.match(url.pathname, /^\/pay\/[A-Za-z0-9_-]{43}$/);
  for (const secret of [s.id, s.id.slice(3), body.reference, 'KES', '1050']) assert.ok(!s.url.includes(secret), `url reveals ${secret}`);
  assert.equal(url.origin, app.deps.config.publicBaseUrl ?? `http://127.0.0.1:${app.deps.config.port}`);

  const got = await api.get(`/v1/checkout_sessions/${s.id}`);
  assert.equal(got.status, 200);
  assert.deepEqual(got.body, s);

  const plain = await api.post('/v1/checkout_sessions', sessionBody());
  assert.equal(plain.status, 201);
  assert.deepEqual(plain.body.payment_method_types, ['card', 'mobile_money']);
  assert.equal(plain.body.capture_method, 'automatic');
  assert.equal(plain.body.customer, null);
  assert.equal(plain.body.description, null);
  assert.deepEqual(plain.body.metadata, {});
  assert.equal(Date.parse(plain.body.expires_at) - Date.parse(plain.body.created_at), 3_600_000);
  assert.notEqual(plain.body.url, s.url);
});

const BAD: Array<[string, Record<string, unknown>, string, string]> = [
  ['no reference', { reference: undefined }, 'parameter_missing', 'reference'],
  ['empty reference', { reference: '' }, 'parameter_invalid', 'reference'],
  ['reference of 117 characters', { reference: 'r'.repeat(117) }, 'parameter_invalid', 'reference'],
  ['reference with a control character', { reference: 'a\u0007b' }, 'parameter_invalid', 'reference'],
  ['reference with surrounding spaces', { reference: ' a ' }, 'parameter_invalid', 'reference'],
  ['amount as a number', { amount: 10 }, 'parameter_invalid', 'amount'],
  ['amount zero', { amount: '0' }, 'parameter_invalid', 'amount'],
  ['amount with three decimals', { amount: '1.005' }, 'parameter_invalid', 'amount'],
  ['lower-case currency', { currency: 'kes' }, 'parameter_invalid', 'currency'],
  ['unknown currency', { currency: 'XYZ' }, 'currency_not_supported', 'currency'],
  ['no payment_method_types', { payment_method_types: [] }, 'parameter_invalid', 'payment_method_types'],
  ['wallet as a checkout means', { payment_method_types: ['wallet'] }, 'parameter_invalid', 'payment_method_types.0'],
  ['a means twice', { payment_method_types: ['card', 'card'] }, 'parameter_invalid', 'payment_method_types'],
  ['manual capture with mobile money', { capture_method: 'manual' }, 'parameter_invalid', 'capture_method'],
  ['unknown capture_method', { capture_method: 'later' }, 'parameter_invalid', 'capture_method'],
  ['no success_url', { success_url: undefined }, 'parameter_missing', 'success_url'],
  ['success_url not a URL', { success_url: 'paid' }, 'parameter_invalid', 'success_url'],
  ['success_url of another scheme', { success_url: 'javascript:alert(1)' }, 'parameter_invalid', 'success_url'],
  ['cancel_url with credentials', { cancel_url: 'https://a:b@shop.example/' }, 'parameter_invalid', 'cancel_url'],
  ['expires_in below 300', { expires_in: 299 }, 'parameter_invalid', 'expires_in'],
  ['expires_in above 86400', { expires_in: 86_401 }, 'parameter_invalid', 'expires_in'],
  ['expires_in as a string', { expires_in: '600' }, 'parameter_invalid', 'expires_in'],
  ['customer email not an email', { customer: { email: 'nope' } }, 'parameter_invalid', 'customer.email'],
  ['metadata nested', { metadata: { a: { b: 'c' } } }, 'parameter_invalid', 'metadata.a'],
  ['read-only status', { status: 'complete' }, 'parameter_unknown', 'status'],
  ['unknown field', { payment_method: { type: 'card' } }, 'parameter_unknown', 'payment_method'],
];

test('bad input: 400 with the field named, and nothing stored', async (t) => {
  const { api, app, merchant } = await checkoutApp(t);
  for (const [name, change, code, param] of BAD) {
    const body: Record<string, unknown> = { ...sessionBody(), ...change };
    for (const [k, v] of Object.entries(change)) if (v === undefined) delete body[k];
    const res = await api.post('/v1/checkout_sessions', body);
    assert.equal(res.status, 400, `${name}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.error.code, code, name);
    assert.equal(res.body.error.param, param, name);
  }
  const stored = await sql<{
    n: number;
  }>`SELECT count(*)::int AS n FROM checkout_sessions WHERE merchant_id = ${merchant.merchantId}`.execute(app.deps.db.db);
  assert.equal(stored.rows[0]?.n, 0);
});

test('reference: the same request replays, another request is 409, another merchant may reuse it', async (t) => {
  const { api, app, base } = await checkoutApp(t);
  const body = sessionBody({ metadata: { a: '1' } });
  const first = await api.post('/v1/checkout_sessions', body);
  assert.equal(first.status, 201);
  const again = await api.post('/v1/checkout_sessions', { ...body, currency: 'KES', amount: '10.5' });
  assert.equal(again.status, 200);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(again.body, first.body);
  const other = await api.post('/v1/checkout_sessions', { ...body, amount: '11.00' });
  assert.equal(other.status, 409);
  assert.equal(other.body.error.code, 'reference_conflict');
  assert.equal(other.body.error.existing_id, first.body.id);
  assert.match(other.body.error.message, /amount/);
  const { api: api2 } = await merchantClient(app, base, 'Second');
  const theirs = await api2.post('/v1/checkout_sessions', body);
  assert.equal(theirs.status, 201);
  assert.notEqual(theirs.body.id, first.body.id);
});

test("isolation: another merchant's session answers like an unknown one", async (t) => {
  const { api, app, base } = await checkoutApp(t);
  const mine = (await api.post('/v1/checkout_sessions', sessionBody())).body;
  const { api: intruder } = await merchantClient(app, base, 'Intruder');
  const unknownId = `cs_${'0'.repeat(26)}`;
  for (const path of [
    `/v1/checkout_sessions/${mine.id}`,
    `/v1/checkout_sessions/${unknownId}`,
    '/v1/checkout_sessions/..%2F',
    '/v1/checkout_sessions/%00',
  ]) {
    const res = await intruder.get(path);
    assert.equal(res.status, 404, path);
    assert.equal(res.body.error.code, 'resource_not_found');
    assert.equal(res.body.error.message, 'No such object.');
  }
  const expire = await intruder.post(`/v1/checkout_sessions/${mine.id}/expire`);
  assert.equal(expire.status, 404);
  const list = await intruder.get('/v1/checkout_sessions');
  assert.deepEqual(list.body.data, []);
  const foreignCursor = await intruder.get(`/v1/checkout_sessions?starting_after=${mine.id}`);
  assert.deepEqual(foreignCursor.body.data, []);
  assert.equal((await api.get(`/v1/checkout_sessions/${mine.id}`)).body.status, 'open');
});

test('list: newest first, filters, cursors, bad queries', async (t) => {
  const { api } = await checkoutApp(t);
  const made = [];
  for (let i = 0; i < 3; i++) made.push((await api.post('/v1/checkout_sessions', sessionBody())).body);
  const page = await api.get('/v1/checkout_sessions?limit=2');
  assert.equal(page.body.object, 'list');
  assert.deepEqual(
    page.body.data.map((s: { id: string }) => s.id),
    [made[2].id, made[1].id],
  );
  assert.equal(page.body.has_more, true);
  const next = await api.get(`/v1/checkout_sessions?limit=2&starting_after=${made[1].id}`);
  assert.deepEqual(
    next.body.data.map((s: { id: string }) => s.id),
    [made[0].id],
  );
  const byRef = await api.get(`/v1/checkout_sessions?reference=${made[1].reference}`);
  assert.deepEqual(
    byRef.body.data.map((s: { id: string }) => s.id),
    [made[1].id],
  );
  await api.post(`/v1/checkout_sessions/${made[0].id}/expire`);
  const expired = await api.get('/v1/checkout_sessions?status=expired');
  assert.deepEqual(
    expired.body.data.map((s: { id: string }) => s.id),
    [made[0].id],
  );
  for (const q of ['limit=0', 'limit=101', 'status=paid', 'created_gte=yesterday', 'colour=red']) {
    const res = await api.get(`/v1/checkout_sessions?${q}`);
    assert.equal(res.status, 400, q);
  }
});

test('expire: once, with checkout_session.expired; again answers the same; a body field is unknown', async (t) => {
  const { api } = await checkoutApp(t);
  const s = (await api.post('/v1/checkout_sessions', sessionBody())).body;
  const bad = await api.post(`/v1/checkout_sessions/${s.id}/expire`, { now: true });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'parameter_unknown');
  const first = await api.post(`/v1/checkout_sessions/${s.id}/expire`);
  assert.equal(first.status, 200);
  assert.equal(first.body.status, 'expired');
  assert.ok(first.body.completed_at);
  const second = await api.post(`/v1/checkout_sessions/${s.id}/expire`, {});
  assert.deepEqual(second.body, first.body);
  assert.deepEqual(await eventTypes(api, s.id), ['checkout_session.expired']);
  const event = (await api.get(`/v1/events?object_id=${s.id}`)).body.data[0];
  assert.equal(event.data.object.status, 'expired');
  assert.equal(event.data.object.id, s.id);
});

test('expiry by time: the session reads expired and the worker sends the event once', async (t) => {
  const { api, app } = await checkoutApp(t);
  const s = (await api.post('/v1/checkout_sessions', sessionBody({ expires_in: 300 }))).body;
  await expireByTime(app, s.id);
  app.deps.checkoutWorker.start();
  const deadline = Date.now() + 5_000;
  while ((await eventTypes(api, s.id)).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const got = await api.get(`/v1/checkout_sessions/${s.id}`);
  assert.equal(got.body.status, 'expired');
  assert.deepEqual(await eventTypes(api, s.id), ['checkout_session.expired']);
});

test('auth: every checkout route wants a token', async (t) => {
  const { base } = await checkoutApp(t);
  const anon = client(base, { auth: {} } as never);
  for (const res of [await anon.get('/v1/checkout_sessions'), await anon.post('/v1/checkout_sessions', sessionBody())]) {
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'token_missing');
  }
});
