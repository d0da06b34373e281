// Live card payments through the card acquirer connector, over real HTTP against the fake
// acquirer (test/fakes/acquirer.ts): declines, 3-D Secure through the acquirer's page, manual
// capture, cancel, refunds, lost answers and webhooks. Counted at the fake: never two
// authorisations, captures or refunds for one Purse operation. Every flow ends with a verified
// ledger.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeAcquirer, fakeAcquirerEnv, signatureHeader, startFakeAcquirer } from '../fakes/acquirer.ts';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { assertLedgerHealthy, cardMethod, get, paymentBody, post, waitFor } from '../helpers/factories.ts';
import { runCaptureStorm } from './capture-storm.ts';

const PUBLIC = 'http://127.0.0.1:9';
const RETURN_URL = 'https://shop.example/paid';

let fake: FakeAcquirer;
let app: TestApp;
let m: TestMerchant;

before(async () => {
  fake = await startFakeAcquirer({ searchLagMs: 0 });
  app = await buildTestApp(null, { env: { ...fakeAcquirerEnv(fake, PUBLIC), PURSE_WORKER: 'false', PURSE_PROVIDER_TIMEOUT_MS: '2000' } });
  m = await createTestMerchant(app, 'Live card merchant', true);
  await app.deps.db.db.updateTable('merchants').set({ raw_card_data: true }).where('id', '=', m.merchantId).execute();
});

after(async () => {
  await assertLedgerHealthy(app);
  await app.close();
  await app.deps.close();
  await fake.close();
});

async function pay(overrides: Record<string, unknown> = {}) {
  const res = await post(app, m, '/v1/payments', paymentBody(overrides));
  assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
  return res.json();
}

const read = async (id: string) => (await get(app, m, `/v1/payments/${id}`)).json();

/** Runs the settlement worker until the payment leaves `status` (or the time runs out). */
async function settleFrom(id: string, status: string) {
  return waitFor(async () => {
    await app.deps.worker.runOnce();
    const p = await read(id);
    return p.status !== status ? p : null;
  }, 8_000);
}

describe('authorisations', () => {
  test('a frictionless card succeeds through the acquirer: one request, one authorisation, the amount received', async () => {
    const before = fake.requests.length;
    const payment = await pay();
    assert.deepEqual(
      fake.requests.slice(before).map((r) => r.endpoint),
      ['create_intent'],
      'the answer carries the charge (expand[]=latest_charge): no second round trip',
    );
    assert.equal(payment.status, 'succeeded', JSON.stringify(payment));
    assert.match(payment.provider_reference, /^pi_/);
    assert.equal(payment.amount_received, '100.00');
    assert.equal(fake.counts(payment.id).authorisations, 1);
    const intent = fake.intent(payment.provider_reference) as { amount: number; currency: string; metadata: Record<string, string> };
    assert.equal(intent.amount, 10000);
    assert.equal(intent.currency, 'kes');
    assert.equal(intent.metadata.purse_payment_id, payment.id);
  });

  test('UGX is zero-decimal at the acquirer', async () => {
    const payment = await pay({ amount: '1500', currency: 'UGX' });
    assert.equal(payment.status, 'succeeded');
    assert.equal((fake.intent(payment.provider_reference) as { amount: number }).amount, 1500);
  });

  for (const [number, code] of [
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000000069', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc'],
    ['4000000000009979', 'lost_or_stolen_card'],
    ['4100000000000019', 'fraudulent'],
    ['4000000000000119', 'processing_error'],
  ] as const) {
    test(`a 402 decline of ${number} fails ${code}`, async () => {
      const payment = await pay({ payment_method: cardMethod({ number }) });
      assert.equal(payment.status, 'failed', JSON.stringify(payment));
      assert.equal(payment.failure.code, code);
      assert.equal(fake.counts(payment.id).authorisations, 1);
    });
  }
});

describe('3-D Secure through the acquirer', () => {
  async function throughChallenge(outcome: 'complete' | 'fail') {
    const payment = await pay({ payment_method: cardMethod({ number: '4000000000003220' }), return_url: RETURN_URL });
    assert.equal(payment.status, 'requires_action', JSON.stringify(payment));
    const start = await app.inject({ method: 'GET', url: new URL(payment.next_action.redirect_to_url.url).pathname });
    assert.equal(start.statusCode, 303);
    const challengeUrl = String(start.headers.location);
    assert.ok(challengeUrl.startsWith(fake.url), challengeUrl);
    const page = await fetch(challengeUrl);
    assert.equal(page.status, 200);
    const answered = await fetch(challengeUrl, {
      method: 'POST',
      body: `outcome=${outcome}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    assert.equal(answered.status, 303);
    const back = new URL(String(answered.headers.get('location')));
    assert.equal(back.origin, PUBLIC);
    const landed = await app.inject({ method: 'GET', url: back.pathname + back.search });
    assert.equal(landed.statusCode, 303, landed.body);
    assert.equal(landed.headers.location, `${RETURN_URL}?payment_id=${payment.id}`);
    // Returned twice: nothing changes.
    const again = await app.inject({ method: 'GET', url: back.pathname + back.search });
    assert.equal(again.headers.location, landed.headers.location);
    return read(payment.id);
  }

  test('completed: succeeded, authenticated, one authorisation', async () => {
    const p = await throughChallenge('complete');
    assert.equal(p.status, 'succeeded');
    assert.deepEqual(p.payment_method.card.three_d_secure, { result: 'authenticated' });
    assert.equal(fake.counts(p.id).authorisations, 1);
  });

  test('failed at the challenge: failed authentication_failed', async () => {
    const p = await throughChallenge('fail');
    assert.equal(p.status, 'failed');
    assert.equal(p.failure.code, 'authentication_failed');
  });
});

describe('manual capture, cancel and refunds', () => {
  test('authorise, capture part, refund: one capture and one refund at the acquirer', async () => {
    const payment = await pay({ capture_method: 'manual' });
    assert.equal(payment.status, 'requires_capture', JSON.stringify(payment));
    assert.equal(payment.amount_capturable, '100.00');
    assert.ok(payment.capture_before);
    const captured = await post(app, m, `/v1/payments/${payment.id}/capture`, { amount: '60.00' });
    assert.equal(captured.statusCode, 200, captured.body);
    assert.equal(captured.json().status, 'succeeded');
    assert.equal(captured.json().amount_received, '60.00');
    assert.equal(fake.countsForIntent(payment.provider_reference).captures, 1);
    const refund = await post(app, m, '/v1/refunds', { reference: `r-${payment.id}`, payment_id: payment.id, amount: '60.00' });
    assert.equal(refund.statusCode, 201, refund.body);
    const settled = await waitFor(async () => {
      await app.deps.outflowWorker.runOnce();
      const r = (await get(app, m, `/v1/refunds/${refund.json().id}`)).json();
      return r.status !== 'pending' ? r : null;
    }, 8_000);
    assert.equal(settled.status, 'succeeded');
    assert.equal(fake.countsForIntent(payment.provider_reference).refunds, 1);
  });

  test('the capture storm: 20 concurrent captures of one authorisation, one capture request to the acquirer', async () => {
    const request = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
      const res = method === 'GET' ? await get(app, m, path) : await post(app, m, path, body);
      return { status: res.statusCode, json: res.json() };
    };
    const figures = await runCaptureStorm(request, fake);
    assert.equal(figures.captureRequests, 1, JSON.stringify(figures));
    assert.equal(figures.capturesAtAcquirer, 1);
    assert.equal(figures.status, 'succeeded');
  });

  test('cancel of a hold: canceled at the acquirer once; capture after is 409', async () => {
    const payment = await pay({ capture_method: 'manual' });
    const canceled = await post(app, m, `/v1/payments/${payment.id}/cancel`, {});
    assert.equal(canceled.json().status, 'canceled', canceled.body);
    assert.equal((await post(app, m, `/v1/payments/${payment.id}/cancel`, {})).statusCode, 200);
    assert.equal((await post(app, m, `/v1/payments/${payment.id}/capture`, {})).statusCode, 409);
    assert.equal(fake.countsForIntent(payment.provider_reference).cancels, 1);
  });

  test('a hold the acquirer lets lapse becomes canceled expired', async () => {
    const payment = await pay({ capture_method: 'manual' });
    fake.expireAuthorization(payment.provider_reference);
    await app.deps.db.db
      .updateTable('charges')
      .set({ next_check_at: new Date(0) })
      .where('id', '=', payment.id)
      .execute();
    const p = await settleFrom(payment.id, 'requires_capture');
    assert.equal(p.status, 'canceled');
    assert.equal(p.cancellation_reason, 'expired');
  });
});

describe('lost answers', () => {
  test('the authorisation answer lost: pending, then found at the acquirer; never a second authorisation', async () => {
    fake.inject('create_intent', 'lose_answer');
    const payment = await pay();
    assert.equal(payment.status, 'pending', JSON.stringify(payment));
    await app.deps.db.db
      .updateTable('charges')
      .set({ next_check_at: new Date(0), lease_until: null })
      .where('id', '=', payment.id)
      .execute();
    const p = await settleFrom(payment.id, 'pending');
    assert.equal(p.status, 'succeeded');
    assert.equal(fake.counts(payment.id).authorisations, 1);
  });

  test('the capture answer lost: the retry replays the key; one capture', async () => {
    const payment = await pay({ capture_method: 'manual' });
    fake.inject('capture_intent', 'lose_answer');
    const first = await post(app, m, `/v1/payments/${payment.id}/capture`, {});
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json().status, 'requires_capture', 'the outcome is not known yet');
    await app.deps.db.db
      .updateTable('charges')
      .set({ next_check_at: new Date(0), lease_until: null })
      .where('id', '=', payment.id)
      .execute();
    const p = await settleFrom(payment.id, 'requires_capture');
    assert.equal(p.status, 'succeeded');
    assert.equal(fake.countsForIntent(payment.provider_reference).captures, 1);
  });
});

describe('saved errors', () => {
  /** A held payment whose capture the acquirer answers 500 (`kind`): unknown outcome, made due for the worker at once. */
  async function captureAnswered500(kind: 'error_500_after' | 'error_500_before', body: Record<string, unknown>) {
    const payment = await pay({ capture_method: 'manual' });
    fake.inject('capture_intent', kind);
    const first = await post(app, m, `/v1/payments/${payment.id}/capture`, body);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json().status, 'requires_capture', 'the outcome is not known yet');
    await app.deps.db.db
      .updateTable('charges')
      .set({ next_check_at: new Date(0), lease_until: null })
      .where('id', '=', payment.id)
      .execute();
    return payment;
  }

  test('a capture the acquirer made and answered with a 500 it keeps under the key: read, not resent; one capture', async () => {
    const payment = await captureAnswered500('error_500_after', {});
    const p = await settleFrom(payment.id, 'requires_capture');
    assert.equal(p.status, 'succeeded');
    assert.equal(p.amount_received, '100.00');
    assert.equal(fake.countsForIntent(payment.provider_reference).captures, 1);
  });

  test('a capture answered 500 before the acquirer acted, kept under the key: after the read, a new key; one capture', async () => {
    const payment = await captureAnswered500('error_500_before', { amount: '70.00' });
    const p = await settleFrom(payment.id, 'requires_capture');
    assert.equal(p.status, 'succeeded');
    assert.equal(p.amount_received, '70.00');
    assert.equal(fake.countsForIntent(payment.provider_reference).captures, 1);
    const keys = fake.requests
      .filter((r) => r.path === `/v1/payment_intents/${payment.provider_reference}/capture`)
      .map((r) => r.idempotencyKey);
    assert.deepEqual(keys, [`${payment.id}:capture`, `${payment.id}:capture:2`]);
  });
});

describe('webhooks', () => {
  const send = (body: string, signature: string) =>
    app.inject({
      method: 'POST',
      url: '/provider-callbacks/acquirer',
      payload: body,
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    });

  test('a forged, stale or unsigned event is refused and changes nothing', async () => {
    const payment = await pay({ capture_method: 'manual' });
    const body = JSON.stringify({
      id: 'evt_forged',
      type: 'payment_intent.succeeded',
      data: {
        object: {
          id: payment.provider_reference,
          object: 'payment_intent',
          status: 'succeeded',
          metadata: { purse_payment_id: payment.id },
        },
      },
    });
    const now = Math.floor(Date.now() / 1000);
    assert.equal((await send(body, signatureHeader(body, ['whsec_wrong'], now))).statusCode, 401);
    assert.equal((await send(body, signatureHeader(body, [fake.webhookSecret], now - 3600))).statusCode, 401);
    assert.equal((await send(body, '')).statusCode, 401);
    // Signed correctly but contradicting the acquirer: confirmed with the GET, nothing changes.
    const signed = await send(body, signatureHeader(body, [fake.webhookSecret], now));
    assert.equal(signed.statusCode, 200, signed.body);
    assert.equal((await read(payment.id)).status, 'requires_capture');
  });

  test('a webhook confirmed while a capture is recorded leaves the capture due (not pushed to capture_before)', async () => {
    const payment = await pay({ capture_method: 'manual' });
    fake.inject('capture_intent', 'error_500_before', { remember: false });
    assert.equal((await post(app, m, `/v1/payments/${payment.id}/capture`, {})).statusCode, 200);
    const due = async () =>
      (await app.deps.db.db.selectFrom('charges').select('next_check_at').where('id', '=', payment.id).executeTakeFirstOrThrow())
        .next_check_at;
    const before = await due();
    const body = JSON.stringify({
      id: 'evt_late',
      type: 'payment_intent.amount_capturable_updated',
      data: { object: { id: payment.provider_reference, object: 'payment_intent', metadata: { purse_payment_id: payment.id } } },
    });
    const late = await send(body, signatureHeader(body, [fake.webhookSecret], Math.floor(Date.now() / 1000)));
    assert.equal(late.statusCode, 200, late.body);
    assert.deepEqual(await due(), before);
    const p = await settleFrom(payment.id, 'requires_capture');
    assert.equal(p.status, 'succeeded');
  });
});
