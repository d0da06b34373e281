// Late provider outcomes become visible: a mobile-money charge expires (failed `expired`), then
// the provider's books say it succeeded and a signed callback says so. The outcome is never
// applied (status, ledger, wallet unchanged); it is shown as `late_outcome` and announced by one
// `<object>.late_outcome` event whose payload is the object as GET reads it. A second late
// callback (same or different outcome) changes nothing and adds no event. Charges use the
// never-settling sandbox number, so only the test (acting as the provider) moves them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SandboxCallbackBody } from '../../src/connectors/sandbox/callbacks.ts';
import { EVENT_TYPES } from '../../src/events/store.ts';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { assertLedgerHealthy, createWallet, get, mobileMethod, post, uniqueRef } from '../helpers/factories.ts';

const NEVER_SETTLES = '+254712345005';
// Nothing listens there: deliveries are only counted, never expected to succeed.
const CALLBACK_URL = 'http://127.0.0.1:9/late-outcomes';

let app: TestApp;
let merchant: TestMerchant;

before(async () => {
  app = await buildTestApp(null);
  merchant = await createTestMerchant(app, 'Late outcome merchant');
  const endpoint = await post(app, merchant, '/v1/webhook_endpoints', {
    url: 'http://127.0.0.1:9/endpoint',
    events: ['payment.late_outcome', 'topup.late_outcome'],
  });
  assert.equal(endpoint.statusCode, 201, endpoint.body);
});

after(async () => {
  await app.close();
  await app.deps.close();
});

interface Charge {
  id: string;
  provider_reference: string;
}

const body = (c: Charge, status: 'succeeded' | 'failed'): SandboxCallbackBody =>
  status === 'succeeded'
    ? { idempotency_key: c.id, provider_reference: c.provider_reference, status }
    : { idempotency_key: c.id, provider_reference: c.provider_reference, status, failure_code: 'payer_declined' };

/** As the provider: its books change, then it calls back (signed). */
async function providerSays(c: Charge, status: 'succeeded' | 'failed') {
  assert.equal(await app.deps.sandboxConnector.force(c.id, status, status === 'failed' ? 'payer_declined' : null), true);
  const signed = app.deps.sandboxConnector.signCallback(body(c, status));
  const res = await app.inject({ method: 'POST', url: '/provider-callbacks/sandbox', headers: signed.headers, payload: signed.rawBody });
  assert.equal(res.statusCode, 200, res.body);
}

async function eventsOf(id: string) {
  return app.deps.db.db.selectFrom('events').select(['id', 'type', 'data']).where('object_id', '=', id).orderBy('id').execute();
}

async function deliveriesOf(eventId: string) {
  return app.deps.db.db.selectFrom('webhook_deliveries').select(['endpoint_id', 'url']).where('event_id', '=', eventId).execute();
}

async function postings(id: string) {
  return (await app.deps.db.db.selectFrom('ledger_transactions').select('id').where('source_id', '=', id).execute()).length;
}

/**
 * The whole story for one object: expire it, a late success, a second late callback. `path` is
 * `payments` or `topups`, `kind` the event prefix.
 */
async function lateSuccessAfterExpiry(
  path: 'payments' | 'topups',
  kind: 'payment' | 'topup',
  created: Charge,
  moneyCheck: () => Promise<void>,
) {
  const expired = await post(app, merchant, `/v1/sandbox/${path}/${created.id}/fail`, { failure_code: 'expired' });
  assert.equal(expired.statusCode, 200, expired.body);
  assert.equal(expired.json().late_outcome, null, 'no late outcome yet');
  const final = (await get(app, merchant, `/v1/${path}/${created.id}`)).json();
  assert.equal(final.status, 'failed');
  assert.equal(final.late_outcome, null);

  await providerSays(created, 'succeeded');

  const shown = (await get(app, merchant, `/v1/${path}/${created.id}`)).json();
  assert.equal(shown.status, 'failed', 'a late outcome is never applied');
  assert.equal(shown.failure.code, 'expired');
  assert.equal(shown.completed_at, final.completed_at);
  assert.deepEqual(Object.keys(shown.late_outcome).sort(), ['failure_code', 'provider_reference', 'received_at', 'status']);
  assert.equal(shown.late_outcome.status, 'succeeded');
  assert.equal(shown.late_outcome.failure_code, null);
  assert.equal(shown.late_outcome.provider_reference, created.provider_reference);
  assert.ok(!Number.isNaN(Date.parse(shown.late_outcome.received_at)));
  assert.equal(await postings(created.id), 0, 'no posting for a late success');
  await moneyCheck();

  const events = await eventsOf(created.id);
  assert.deepEqual(
    events.map((e) => e.type),
    [`${kind}.created`, `${kind}.failed`, `${kind}.late_outcome`],
  );
  const late = events[2];
  assert.ok(late);
  assert.deepEqual((late.data as { object: unknown }).object, shown, 'the payload is the object as it now reads');
  const viaApi = await get(app, merchant, `/v1/events?type=${kind}.late_outcome&object_id=${created.id}`);
  assert.equal(viaApi.statusCode, 200, viaApi.body);
  assert.deepEqual(
    viaApi.json().data.map((e: { id: string }) => e.id),
    [late.id],
  );
  const deliveries = await deliveriesOf(late.id);
  assert.equal(deliveries.length, 2, 'the subscribed endpoint and the callback_url');
  assert.deepEqual(deliveries.map((d) => d.url).sort(), ['http://127.0.0.1:9/endpoint', CALLBACK_URL]);

  // A second late callback, agreeing or not: the first late outcome stays, no second event.
  await providerSays(created, 'succeeded');
  await providerSays(created, 'failed');
  await providerSays(created, 'succeeded');
  const again = (await get(app, merchant, `/v1/${path}/${created.id}`)).json();
  assert.deepEqual(again, shown, 'nothing changes, not even updated_at');
  assert.deepEqual(
    (await eventsOf(created.id)).map((e) => e.type),
    [`${kind}.created`, `${kind}.failed`, `${kind}.late_outcome`],
  );
  assert.equal(await postings(created.id), 0);
  await moneyCheck();
  await assertLedgerHealthy(app);
}

describe('late provider outcomes', () => {
  test('payment: expired, then the provider reports success: shown, announced once, never applied', async () => {
    const res = await post(app, merchant, '/v1/payments', {
      reference: uniqueRef('late'),
      amount: '25.00',
      currency: 'KES',
      payment_method: mobileMethod(NEVER_SETTLES),
      callback_url: CALLBACK_URL,
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().status, 'pending');
    assert.equal(res.json().late_outcome, null);
    await lateSuccessAfterExpiry('payments', 'payment', res.json(), async () => {});
  });

  test('top-up: expired, then the provider reports success: the wallet is not credited', async () => {
    const walletId = await createWallet(app, merchant);
    const res = await post(app, merchant, '/v1/topups', {
      reference: uniqueRef('late-top'),
      amount: '40.00',
      currency: 'KES',
      wallet_id: walletId,
      source: mobileMethod(NEVER_SETTLES),
      callback_url: CALLBACK_URL,
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().late_outcome, null);
    await lateSuccessAfterExpiry('topups', 'topup', res.json(), async () => {
      assert.equal((await get(app, merchant, `/v1/wallets/${walletId}`)).json().balance, '0.00');
    });
  });

  test('a late failure after success: shown with its failure code, the money stays', async () => {
    const res = await post(app, merchant, '/v1/payments', {
      reference: uniqueRef('late-fail'),
      amount: '10.00',
      currency: 'KES',
      payment_method: mobileMethod(NEVER_SETTLES),
    });
    assert.equal(res.statusCode, 201, res.body);
    const payment: Charge = res.json();
    await providerSays(payment, 'succeeded');
    assert.equal((await get(app, merchant, `/v1/payments/${payment.id}`)).json().status, 'succeeded');
    await providerSays(payment, 'failed');
    const shown = (await get(app, merchant, `/v1/payments/${payment.id}`)).json();
    assert.equal(shown.status, 'succeeded');
    assert.equal(shown.failure, null);
    assert.equal(shown.late_outcome.status, 'failed');
    assert.equal(shown.late_outcome.failure_code, 'payer_declined');
    assert.equal(await postings(payment.id), 1);
    assert.deepEqual(
      (await eventsOf(payment.id)).map((e) => e.type),
      ['payment.created', 'payment.succeeded', 'payment.late_outcome'],
    );
    await assertLedgerHealthy(app);
  });

  test('a row stored before late outcomes were shown (the raw connector object) reads in the same shape', async () => {
    const res = await post(app, merchant, '/v1/payments', {
      reference: uniqueRef('legacy'),
      amount: '5.00',
      currency: 'KES',
      payment_method: mobileMethod(NEVER_SETTLES),
    });
    assert.equal(res.statusCode, 201, res.body);
    const legacy = {
      status: 'failed',
      providerReference: 'SBX-legacy',
      failureCode: 'payer_declined',
      received_at: '2025-01-02T03:04:05.000Z',
    };
    await app.deps.db.db
      .updateTable('charges')
      .set({ late_outcome: JSON.stringify(legacy) })
      .where('id', '=', res.json().id)
      .execute();
    assert.deepEqual((await get(app, merchant, `/v1/payments/${res.json().id}`)).json().late_outcome, {
      status: 'failed',
      provider_reference: 'SBX-legacy',
      failure_code: 'payer_declined',
      received_at: '2025-01-02T03:04:05.000Z',
    });
  });
});

describe('late outcomes in the contract', () => {
  test('EVENT_TYPES lists payment.late_outcome and topup.late_outcome', () => {
    for (const type of ['payment.late_outcome', 'topup.late_outcome']) assert.ok((EVENT_TYPES as readonly string[]).includes(type), type);
  });

  test('the OpenAPI document describes late_outcome on payments and top-ups, and the event types', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const name of ['Payment', 'Topup']) {
      const schema = doc.components.schemas[name];
      assert.ok(schema.required.includes('late_outcome'), `${name} requires late_outcome`);
      const late = schema.properties.late_outcome;
      assert.ok(late.description, `${name}.late_outcome is described`);
      const object = late.anyOf.find((s: { type?: string }) => s.type === 'object');
      assert.deepEqual([...object.required].sort(), ['failure_code', 'provider_reference', 'received_at', 'status']);
    }
    const spec = JSON.stringify(doc.paths['/v1/events'].get.parameters);
    assert.ok(spec.includes('payment.late_outcome') && spec.includes('topup.late_outcome'), 'GET /v1/events?type= takes them');
  });
});
