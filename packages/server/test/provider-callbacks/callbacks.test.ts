// POST /provider-callbacks/:provider through app.inject: the sandbox signs, Purse verifies on the
// raw bytes, then settles once. Pending charges use the never-settling sandbox number (…005), so
// only the callbacks under test (or a sandbox helper) can move them, whatever worker is running.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { SandboxCallbackBody } from '../../src/connectors/sandbox/callbacks.ts';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { assertLedgerHealthy, createWallet, get, mobileMethod, post, uniqueRef } from '../helpers/factories.ts';

const NEVER_SETTLES = '+254712345005';

let app: TestApp;
let merchant: TestMerchant;

before(async () => {
  app = await buildTestApp(null);
  merchant = await createTestMerchant(app, 'Callback merchant');
});

after(async () => {
  await app.close();
  await app.deps.close();
});

async function pendingPayment(phone = NEVER_SETTLES): Promise<{ id: string; provider_reference: string }> {
  const res = await post(app, merchant, '/v1/payments', {
    reference: uniqueRef('cb'),
    amount: '25.00',
    currency: 'KES',
    payment_method: mobileMethod(phone),
  });
  assert.equal(res.statusCode, 201, res.body);
  assert.equal(res.json().status, 'pending');
  return res.json();
}

const success = (p: { id: string; provider_reference: string }): SandboxCallbackBody => ({
  idempotency_key: p.id,
  provider_reference: p.provider_reference,
  status: 'succeeded',
});
const failure = (
  p: { id: string; provider_reference: string },
  code: SandboxCallbackBody['failure_code'] = 'payer_declined',
): SandboxCallbackBody => ({
  idempotency_key: p.id,
  provider_reference: p.provider_reference,
  status: 'failed',
  failure_code: code,
});

async function send(rawBody: string, headers: Record<string, string>, provider = 'sandbox') {
  return app.inject({ method: 'POST', url: `/provider-callbacks/${provider}`, headers, payload: rawBody });
}

async function sendSigned(body: SandboxCallbackBody) {
  const signed = app.deps.registry.sandbox.signCallback(body);
  return send(signed.rawBody, signed.headers);
}

/** What the callback could have changed: the row, its events, its postings. */
async function snapshot(id: string) {
  const db = app.deps.db.db;
  const charge = await db
    .selectFrom('charges')
    .select(['status', 'failure_code', 'completed_at', 'late_outcome', 'updated_at'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const events = await db.selectFrom('events').select('type').where('object_id', '=', id).orderBy('id').execute();
  const postings = await db.selectFrom('ledger_transactions').select('id').where('source_id', '=', id).execute();
  return { charge, events: events.map((e) => e.type), postings: postings.length };
}

function assertSignatureRefused(res: Awaited<ReturnType<typeof send>>): void {
  assert.equal(res.statusCode, 401, res.body);
  const body = res.json();
  assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'request_id', 'type']);
  assert.equal(body.error.type, 'authentication_error');
  assert.equal(body.error.code, 'signature_invalid');
  assert.equal(body.error.request_id, res.headers['request-id']);
}

describe('happy', () => {
  test('a signed success settles a pending payment once: one posting, one succeeded event', async () => {
    const payment = await pendingPayment();
    const res = await sendSigned(success(payment));
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { received: true });
    const after = await snapshot(payment.id);
    assert.equal(after.charge.status, 'succeeded');
    assert.equal(after.postings, 1);
    assert.deepEqual(after.events, ['payment.created', 'payment.succeeded']);
    assert.equal((await get(app, merchant, `/v1/payments/${payment.id}`)).json().status, 'succeeded');
    await assertLedgerHealthy(app);
  });

  test('a signed failure fails a pending payment with its code and no posting', async () => {
    const payment = await pendingPayment();
    assert.equal((await sendSigned(failure(payment, 'insufficient_funds'))).statusCode, 200);
    const view = (await get(app, merchant, `/v1/payments/${payment.id}`)).json();
    assert.equal(view.status, 'failed');
    assert.equal(view.failure.code, 'insufficient_funds');
    assert.equal((await snapshot(payment.id)).postings, 0);
  });

  test('a success callback for a pending top-up credits the wallet', async () => {
    const walletId = await createWallet(app, merchant);
    const res = await post(app, merchant, '/v1/topups', {
      reference: uniqueRef('cbt'),
      amount: '40.00',
      currency: 'KES',
      wallet_id: walletId,
      source: mobileMethod(NEVER_SETTLES),
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal((await sendSigned(success(res.json()))).statusCode, 200);
    assert.equal((await get(app, merchant, `/v1/wallets/${walletId}`)).json().balance, '40.00');
    await assertLedgerHealthy(app);
  });

  test("the sandbox's own callback (callbackFor) carries its books' outcome", async () => {
    const payment = await pendingPayment();
    assert.equal(await app.deps.registry.sandbox.callbackFor(payment.id), null, 'nothing to send while pending at the provider');
    assert.equal(await app.deps.registry.sandbox.callbackFor('pay_01jd6x8v1ffq8v2k3m4n5p6q7r'), null, 'nor for what it never saw');
    // The provider settles in its books (as the sandbox helpers do), then calls back.
    assert.equal(await app.deps.registry.sandbox.force(payment.id, 'failed', 'insufficient_funds'), true);
    const signed = await app.deps.registry.sandbox.callbackFor(payment.id);
    assert.ok(signed);
    assert.equal((await send(signed.rawBody, signed.headers)).statusCode, 200);
    const after = await snapshot(payment.id);
    assert.equal(after.charge.status, 'failed');
    assert.equal(after.charge.failure_code, 'insufficient_funds');
  });

  test('needs no Bearer token; a content type with charset is fine', async () => {
    const payment = await pendingPayment();
    const signed = app.deps.registry.sandbox.signCallback(success(payment));
    const res = await send(signed.rawBody, { ...signed.headers, 'content-type': 'application/json; charset=utf-8' });
    assert.equal(res.statusCode, 200, res.body);
  });
});

describe('duplicates and contradictions', () => {
  test('the same success five times, concurrently: all 200, one posting, one succeeded event', async () => {
    const payment = await pendingPayment();
    const results = await Promise.all(Array.from({ length: 5 }, () => sendSigned(success(payment))));
    assert.deepEqual(
      results.map((r) => r.statusCode),
      [200, 200, 200, 200, 200],
    );
    const again = await sendSigned(success(payment));
    assert.equal(again.statusCode, 200);
    const after = await snapshot(payment.id);
    assert.equal(after.postings, 1);
    assert.deepEqual(after.events, ['payment.created', 'payment.succeeded']);
    assert.equal(after.charge.late_outcome, null, 'an agreeing duplicate is not a late outcome');
    await assertLedgerHealthy(app);
  });

  test('failure after success: 200, stays succeeded, the failure kept in late_outcome', async () => {
    const payment = await pendingPayment();
    assert.equal((await sendSigned(success(payment))).statusCode, 200);
    const settled = await snapshot(payment.id);
    const res = await sendSigned(failure(payment));
    assert.equal(res.statusCode, 200, res.body);
    const after = await snapshot(payment.id);
    assert.equal(after.charge.status, 'succeeded');
    assert.deepEqual(after.charge.completed_at, settled.charge.completed_at);
    assert.deepEqual(after.events, settled.events);
    assert.equal(after.postings, 1);
    const late = after.charge.late_outcome as { status: string; failureCode: string; received_at: string };
    assert.equal(late.status, 'failed');
    assert.equal(late.failureCode, 'payer_declined');
    assert.ok(late.received_at);
    await assertLedgerHealthy(app);
  });

  test('late success after expiry: stays failed/expired, no posting, the success kept in late_outcome', async () => {
    const payment = await pendingPayment();
    const expired = await post(app, merchant, `/v1/sandbox/payments/${payment.id}/fail`, { failure_code: 'expired' });
    assert.equal(expired.statusCode, 200, expired.body);
    assert.equal((await sendSigned(success(payment))).statusCode, 200);
    const after = await snapshot(payment.id);
    assert.equal(after.charge.status, 'failed');
    assert.equal(after.charge.failure_code, 'expired');
    assert.equal(after.postings, 0);
    assert.deepEqual(after.events, ['payment.created', 'payment.failed']);
    assert.equal((after.charge.late_outcome as { status: string }).status, 'succeeded');
    await assertLedgerHealthy(app);
  });
});

describe('errors', () => {
  test('missing, wrong, tampered, repeated or malformed signatures: 401, nothing changes', async () => {
    const payment = await pendingPayment();
    const before = await snapshot(payment.id);
    const signed = app.deps.registry.sandbox.signCallback(success(payment));
    const otherKey = createHmac('sha256', 'not the sandbox key').update(signed.rawBody).digest('base64url');
    const tampered = JSON.stringify({ ...success(payment), provider_reference: 'sbx_other' });
    const cases: [string, string, Record<string, string>][] = [
      ['missing', signed.rawBody, { 'content-type': 'application/json' }],
      ['wrong key', signed.rawBody, { 'content-type': 'application/json', 'sandbox-signature': otherKey }],
      ['tampered body', tampered, signed.headers],
      ['empty', signed.rawBody, { ...signed.headers, 'sandbox-signature': '' }],
      [
        'base64 not base64url',
        signed.rawBody,
        { ...signed.headers, 'sandbox-signature': createHmac('sha256', 'x').update('y').digest('base64') },
      ],
      ['truncated', signed.rawBody, { ...signed.headers, 'sandbox-signature': signed.headers['sandbox-signature']!.slice(0, 20) }],
      [
        'repeated',
        signed.rawBody,
        { ...signed.headers, 'sandbox-signature': `${signed.headers['sandbox-signature']}, ${signed.headers['sandbox-signature']}` },
      ],
      ['garbage body, unsigned', '{not json', { 'content-type': 'application/json' }],
    ];
    for (const [name, rawBody, headers] of cases) {
      const res = await send(rawBody, headers);
      assert.equal(res.statusCode, 401, `${name}: ${res.body}`);
      assertSignatureRefused(res);
    }
    const noBody = await app.inject({ method: 'POST', url: '/provider-callbacks/sandbox' });
    assertSignatureRefused(noBody);
    assert.deepEqual(await snapshot(payment.id), before);
  });

  test('unknown charge: 404 resource_not_found, for a well-formed and an ill-formed id', async () => {
    for (const id of ['pay_01jd6x8v1ffq8v2k3m4n5p6q7r', 'not-an-id', 'wal_01jd6x8v1ffq8v2k3m4n5p6q7r']) {
      const res = await sendSigned({ idempotency_key: id, provider_reference: 'sbx_x', status: 'succeeded' });
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.json().error.code, 'resource_not_found');
    }
  });

  test('unknown provider: 404, even with a sandbox signature', async () => {
    const payment = await pendingPayment();
    const signed = app.deps.registry.sandbox.signCallback(success(payment));
    const res = await send(signed.rawBody, signed.headers, 'mpesa');
    assert.equal(res.statusCode, 404, res.body);
    assert.equal((await snapshot(payment.id)).charge.status, 'pending');
  });

  test('signed but not a callback: 400; wrong media type: 415; wrong method: 405', async () => {
    const payment = await pendingPayment();
    const sign = (raw: string) => ({
      'content-type': 'application/json',
      'sandbox-signature': createHmac('sha256', callbackKey()).update(raw).digest('base64url'),
    });
    const notJson = await send('{nope', sign('{nope'));
    assert.equal(notJson.statusCode, 400, notJson.body);
    assert.equal(notJson.json().error.code, 'invalid_json');
    const missing = JSON.stringify({ idempotency_key: payment.id, status: 'succeeded' });
    const res = await send(missing, sign(missing));
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error.code, 'parameter_missing');
    assert.equal(res.json().error.param, 'provider_reference');
    const noCode = JSON.stringify({ idempotency_key: payment.id, provider_reference: 'sbx_x', status: 'failed' });
    const bad = await send(noCode, sign(noCode));
    assert.equal(bad.statusCode, 400, bad.body);
    const text = await app.inject({
      method: 'POST',
      url: '/provider-callbacks/sandbox',
      headers: { 'content-type': 'text/plain' },
      payload: 'x',
    });
    assert.equal(text.statusCode, 415, text.body);
    const wrongMethod = await app.inject({ method: 'GET', url: '/provider-callbacks/sandbox' });
    assert.equal(wrongMethod.statusCode, 405, wrongMethod.body);
    assert.equal((await snapshot(payment.id)).charge.status, 'pending');
  });

  test('the sandbox key is derived from the service key (a provider outside the process can sign)', async () => {
    const payment = await pendingPayment();
    const raw = JSON.stringify(success(payment));
    const headers = {
      'content-type': 'application/json',
      'sandbox-signature': createHmac('sha256', callbackKey()).update(raw).digest('base64url'),
    };
    assert.equal((await send(raw, headers)).statusCode, 200);
  });
});

/** HMAC(hashKey, 'sandbox-callbacks'), computed here independently of the connector. */
function callbackKey(): Buffer {
  return createHmac('sha256', app.deps.hashKey).update('sandbox-callbacks').digest();
}
