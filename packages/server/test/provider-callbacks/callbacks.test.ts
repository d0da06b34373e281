// POST /provider-callbacks/:provider through app.inject: the sandbox signs, Purse verifies on the
// raw bytes, then asks the sandbox for the status and settles once as its books say. Pending
// charges use the never-settling sandbox number (…005), so only the tests (acting as the provider:
// they settle its books, then call back) or a sandbox control can move them, whatever worker runs.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { SandboxCallbackBody } from '../../src/connectors/sandbox/callbacks.ts';
import { newId } from '../../src/shared/ids.ts';
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

/** As the provider: its books change first (what a callback then only announces). */
async function settleAtProvider(id: string, outcome: 'succeeded' | 'failed', code: SandboxCallbackBody['failure_code'] = 'payer_declined') {
  assert.equal(await app.deps.sandboxConnector.force(id, outcome, outcome === 'failed' ? code! : null), true, 'the provider knows it');
}

async function sendSigned(body: SandboxCallbackBody) {
  const signed = app.deps.sandboxConnector.signCallback(body);
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
  test('a signed success the books confirm settles a pending payment once: one posting, one succeeded event', async () => {
    const payment = await pendingPayment();
    await settleAtProvider(payment.id, 'succeeded');
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

  test('a signed failure the books confirm fails a pending payment with their code and no posting', async () => {
    const payment = await pendingPayment();
    await settleAtProvider(payment.id, 'failed', 'insufficient_funds');
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
    await settleAtProvider(res.json().id, 'succeeded');
    assert.equal((await sendSigned(success(res.json()))).statusCode, 200);
    assert.equal((await get(app, merchant, `/v1/wallets/${walletId}`)).json().balance, '40.00');
    await assertLedgerHealthy(app);
  });

  test("the sandbox's own callback (callbackFor) carries its books' outcome", async () => {
    const payment = await pendingPayment();
    assert.equal(await app.deps.sandboxConnector.callbackFor(payment.id), null, 'nothing to send while pending at the provider');
    // A new id: a fixed one may be in the provider's books of a shared PostgreSQL test database
    // (test/provider-callbacks/sandbox-faults.test.ts sends one as its idempotency key).
    assert.equal(await app.deps.sandboxConnector.callbackFor(newId('payment')), null, 'nor for what it never saw');
    // The provider settles in its books (as the sandbox helpers do), then calls back.
    assert.equal(await app.deps.sandboxConnector.force(payment.id, 'failed', 'insufficient_funds'), true);
    const signed = await app.deps.sandboxConnector.callbackFor(payment.id);
    assert.ok(signed);
    assert.equal((await send(signed.rawBody, signed.headers)).statusCode, 200);
    const after = await snapshot(payment.id);
    assert.equal(after.charge.status, 'failed');
    assert.equal(after.charge.failure_code, 'insufficient_funds');
  });

  test('needs no Bearer token; a content type with charset is fine', async () => {
    const payment = await pendingPayment();
    const signed = app.deps.sandboxConnector.signCallback(success(payment));
    const res = await send(signed.rawBody, { ...signed.headers, 'content-type': 'application/json; charset=utf-8' });
    assert.equal(res.statusCode, 200, res.body);
  });
});

describe('duplicates and contradictions', () => {
  test('the same success five times, concurrently: all 200, one posting, one succeeded event', async () => {
    const payment = await pendingPayment();
    await settleAtProvider(payment.id, 'succeeded');
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

  test('a failure callback after success, the books still succeeded: 200, nothing changes, nothing kept', async () => {
    const payment = await pendingPayment();
    await settleAtProvider(payment.id, 'succeeded');
    assert.equal((await sendSigned(success(payment))).statusCode, 200);
    const settled = await snapshot(payment.id);
    assert.equal((await sendSigned(failure(payment))).statusCode, 200);
    assert.deepEqual(await snapshot(payment.id), settled, 'the books win over the body');
  });

  test('failure after success, confirmed by the books: 200, stays succeeded, the failure kept in late_outcome', async () => {
    const payment = await pendingPayment();
    await settleAtProvider(payment.id, 'succeeded');
    assert.equal((await sendSigned(success(payment))).statusCode, 200);
    const settled = await snapshot(payment.id);
    // The provider reverses it in its books, then calls back.
    await settleAtProvider(payment.id, 'failed', 'payer_declined');
    const res = await sendSigned(failure(payment));
    assert.equal(res.statusCode, 200, res.body);
    const after = await snapshot(payment.id);
    assert.equal(after.charge.status, 'succeeded');
    assert.deepEqual(after.charge.completed_at, settled.charge.completed_at);
    assert.deepEqual(after.events, [...settled.events, 'payment.late_outcome']);
    assert.equal(after.postings, 1);
    const late = after.charge.late_outcome as { status: string; failure_code: string; received_at: string };
    assert.equal(late.status, 'failed');
    assert.equal(late.failure_code, 'payer_declined');
    assert.ok(late.received_at);
    await assertLedgerHealthy(app);
  });

  test('late success after expiry: stays failed/expired, no posting, the success kept in late_outcome', async () => {
    const payment = await pendingPayment();
    const expired = await post(app, merchant, `/v1/sandbox/payments/${payment.id}/fail`, { failure_code: 'expired' });
    assert.equal(expired.statusCode, 200, expired.body);
    // A success callback while the books still say expired changes nothing and is not kept.
    assert.equal((await sendSigned(success(payment))).statusCode, 200);
    assert.equal((await snapshot(payment.id)).charge.late_outcome, null);
    await settleAtProvider(payment.id, 'succeeded');
    assert.equal((await sendSigned(success(payment))).statusCode, 200);
    const after = await snapshot(payment.id);
    assert.equal(after.charge.status, 'failed');
    assert.equal(after.charge.failure_code, 'expired');
    assert.equal(after.postings, 0);
    assert.deepEqual(after.events, ['payment.created', 'payment.failed', 'payment.late_outcome']);
    assert.equal((after.charge.late_outcome as { status: string }).status, 'succeeded');
    await assertLedgerHealthy(app);
  });
});

describe("a callback is a hint: the provider's status decides", () => {
  test('success claimed while the books say pending: 200, stays pending, no event, no posting', async () => {
    const payment = await pendingPayment();
    const before = await snapshot(payment.id);
    for (const body of [success(payment), failure(payment, 'insufficient_funds')]) {
      assert.equal((await sendSigned(body)).statusCode, 200);
    }
    assert.deepEqual(await snapshot(payment.id), before);
    assert.equal((await get(app, merchant, `/v1/payments/${payment.id}`)).json().status, 'pending');
  });

  test("success claimed while the books say failed: the payment fails with the books' code, no posting", async () => {
    const payment = await pendingPayment();
    await settleAtProvider(payment.id, 'failed', 'limit_exceeded');
    assert.equal((await sendSigned(success(payment))).statusCode, 200);
    const after = await snapshot(payment.id);
    assert.equal(after.charge.status, 'failed');
    assert.equal(after.charge.failure_code, 'limit_exceeded');
    assert.equal(after.charge.late_outcome, null);
    assert.equal(after.postings, 0);
    assert.deepEqual(after.events, ['payment.created', 'payment.failed']);
    await assertLedgerHealthy(app);
  });

  test('failure claimed while the books say succeeded: the top-up succeeds and credits the wallet', async () => {
    const walletId = await createWallet(app, merchant);
    const res = await post(app, merchant, '/v1/topups', {
      reference: uniqueRef('cbh'),
      amount: '12.50',
      currency: 'KES',
      wallet_id: walletId,
      source: mobileMethod(NEVER_SETTLES),
    });
    assert.equal(res.statusCode, 201, res.body);
    await settleAtProvider(res.json().id, 'succeeded');
    assert.equal((await sendSigned(failure(res.json(), 'payer_declined'))).statusCode, 200);
    assert.equal((await get(app, merchant, `/v1/topups/${res.json().id}`)).json().status, 'succeeded');
    assert.equal((await get(app, merchant, `/v1/wallets/${walletId}`)).json().balance, '12.50');
    await assertLedgerHealthy(app);
  });

  test('a charge the provider has no record of: 200, nothing changes (the worker keeps asking)', async () => {
    const payment = await pendingPayment();
    await app.deps.db.db.deleteFrom('sandbox_provider_charges').where('idempotency_key', '=', payment.id).execute();
    const before = await snapshot(payment.id);
    assert.equal((await sendSigned(success(payment))).statusCode, 200);
    assert.deepEqual(await snapshot(payment.id), before);
  });

  test('the status call fails: 503 with retry-after, nothing changes; the same callback later settles', async (t) => {
    const payment = await pendingPayment();
    await settleAtProvider(payment.id, 'succeeded');
    const sandbox = app.deps.sandboxConnector;
    const original = sandbox.getStatus;
    sandbox.getStatus = async () => {
      throw new Error('provider unreachable');
    };
    t.after(() => {
      sandbox.getStatus = original;
    });
    const before = await snapshot(payment.id);
    const refused = await sendSigned(success(payment));
    assert.equal(refused.statusCode, 503, refused.body);
    assert.equal(refused.json().error.code, 'service_unavailable');
    assert.equal(refused.headers['retry-after'], '2');
    assert.deepEqual(await snapshot(payment.id), before);
    sandbox.getStatus = original;
    assert.equal((await sendSigned(success(payment))).statusCode, 200);
    assert.equal((await snapshot(payment.id)).charge.status, 'succeeded');
  });

  test('the status call gets the provider deadline as an AbortSignal', async (t) => {
    const payment = await pendingPayment();
    const sandbox = app.deps.sandboxConnector;
    const original = sandbox.getStatus;
    const signals: AbortSignal[] = [];
    sandbox.getStatus = async (request, signal) => {
      if (request.idempotencyKey === payment.id) signals.push(signal);
      return original(request, signal);
    };
    t.after(() => {
      sandbox.getStatus = original;
    });
    assert.equal((await sendSigned(success(payment))).statusCode, 200);
    assert.equal(signals.length, 1);
    assert.ok(signals[0] instanceof AbortSignal);
    assert.equal(signals[0]!.aborted, false, 'a fresh deadline per call');
  });
});

describe('errors', () => {
  test('missing, wrong, tampered, repeated or malformed signatures: 401, nothing changes', async () => {
    const payment = await pendingPayment();
    const before = await snapshot(payment.id);
    const signed = app.deps.sandboxConnector.signCallback(success(payment));
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
    for (const id of [newId('payment'), 'not-an-id', 'wal_01jd6x8v1ffq8v2k3m4n5p6q7r']) {
      const res = await sendSigned({ idempotency_key: id, provider_reference: 'sbx_x', status: 'succeeded' });
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.json().error.code, 'resource_not_found');
    }
  });

  test('unknown provider: 404, even with a sandbox signature', async () => {
    const payment = await pendingPayment();
    const signed = app.deps.sandboxConnector.signCallback(success(payment));
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
