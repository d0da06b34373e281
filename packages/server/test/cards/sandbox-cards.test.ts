// Card states in the sandbox (docs/api.md, cards): 3-D Secure through Purse's URLs and the
// sandbox's challenge page, manual capture (partial and whole), cancel, raw card data for live
// merchants. Every flow ends with a verified ledger.
import assert from 'node:assert/strict';
import { after, before, describe, type TestContext, test } from 'node:test';
import { buildTestApp, createTestMerchant, manualClock, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { assertLedgerHealthy, cardMethod, get, mobileMethod, paymentBody, post } from '../helpers/factories.ts';
import { eventually } from '../helpers/processes.ts';

const CHALLENGE_SUCCEEDS = '4000000000003220';
const CHALLENGE_DECLINES = '4000008400001629';
const FRICTIONLESS = '4000000000003055';
const RETURN_URL = 'https://shop.example/paid?order=7';

let app: TestApp;
let m: TestMerchant;

before(async () => {
  app = await buildTestApp(null, { env: { PURSE_WORKER: 'false', PURSE_PUBLIC_URL: 'http://127.0.0.1:9' } });
  m = await createTestMerchant(app, 'Card merchant');
});

after(async () => {
  await assertLedgerHealthy(app);
  await app.close();
  await app.deps.close();
});

async function pay(overrides: Record<string, unknown>) {
  const res = await post(app, m, '/v1/payments', paymentBody(overrides));
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

/** A browser step against this app: the path of an absolute Purse URL, answered by inject. */
async function browse(url: string, init: { method?: 'GET' | 'POST'; form?: string } = {}) {
  const { pathname, search } = new URL(url);
  return app.inject({
    method: init.method ?? 'GET',
    url: pathname + search,
    ...(init.form ? { payload: init.form, headers: { 'content-type': 'application/x-www-form-urlencoded' } } : {}),
  });
}

async function balanceOf(currency = 'KES'): Promise<string> {
  const res = await get(app, m, '/v1/balance');
  const row = res.json().available.find((b: { currency: string }) => b.currency === currency);
  return row?.amount ?? '0.00';
}

async function eventsOf(id: string): Promise<string[]> {
  const res = await get(app, m, `/v1/events?object_id=${id}&limit=100`);
  return res
    .json()
    .data.map((e: { type: string }) => e.type)
    .reverse();
}

/** Walks the payer through the challenge: next_action → challenge page → answer → Purse's return → merchant. */
async function challenge(payment: { next_action: { redirect_to_url: { url: string } } }, result: 'complete' | 'fail') {
  const start = await browse(payment.next_action.redirect_to_url.url);
  assert.equal(start.statusCode, 303, start.body);
  const page = await browse(String(start.headers.location));
  assert.equal(page.statusCode, 200, page.body);
  assert.match(page.body, /Complete/);
  assert.equal(page.headers['referrer-policy'], 'no-referrer');
  const answered = await browse(String(start.headers.location), { method: 'POST', form: `result=${result}` });
  assert.equal(answered.statusCode, 303, answered.body);
  const back = await browse(String(answered.headers.location));
  assert.equal(back.statusCode, 303, back.body);
  return String(back.headers.location);
}

describe('3-D Secure', () => {
  test('a challenge completed: requires_action, then succeeded; the browser lands on return_url with payment_id', async () => {
    const payment = await pay({ payment_method: cardMethod({ number: CHALLENGE_SUCCEEDS }), return_url: RETURN_URL });
    assert.equal(payment.status, 'requires_action');
    assert.equal(payment.next_action.type, 'redirect_to_url');
    assert.match(payment.next_action.redirect_to_url.url, /^http:\/\/127\.0\.0\.1:9\/3ds\/pay_/);
    assert.equal(payment.next_action.redirect_to_url.return_url, RETURN_URL);
    assert.equal(payment.amount_received, '0.00');
    const landed = await challenge(payment, 'complete');
    assert.equal(landed, `https://shop.example/paid?order=7&payment_id=${payment.id}`);
    const after = (await get(app, m, `/v1/payments/${payment.id}`)).json();
    assert.equal(after.status, 'succeeded');
    assert.equal(after.amount_received, '100.00');
    assert.equal(after.next_action, null);
    assert.deepEqual(after.payment_method.card.three_d_secure, { result: 'authenticated' });
    // A second return changes nothing.
    const again = await browse(`${payment.next_action.redirect_to_url.url}/return`);
    assert.equal(again.headers.location, landed);
    assert.deepEqual(await eventsOf(payment.id), ['payment.created', 'payment.requires_action', 'payment.succeeded']);
  });

  test('a challenge then a decline fails card_declined; the Fail button fails authentication_failed', async () => {
    const declined = await pay({ payment_method: cardMethod({ number: CHALLENGE_DECLINES }), return_url: RETURN_URL });
    await challenge(declined, 'complete');
    const d = (await get(app, m, `/v1/payments/${declined.id}`)).json();
    assert.equal(d.status, 'failed');
    assert.equal(d.failure.code, 'card_declined');
    const failed = await pay({ payment_method: cardMethod({ number: CHALLENGE_SUCCEEDS }), return_url: RETURN_URL });
    await challenge(failed, 'fail');
    const f = (await get(app, m, `/v1/payments/${failed.id}`)).json();
    assert.equal(f.status, 'failed');
    assert.equal(f.failure.code, 'authentication_failed');
  });

  test('a top-up by a challenged card: requires_action with next_action; completed, the wallet is credited, the browser lands with topup_id', async () => {
    const wallet = await post(app, m, '/v1/wallets', { currency: 'KES' });
    const walletId = wallet.json().id;
    const res = await post(app, m, '/v1/topups', {
      reference: `top-3ds-${Date.now()}`,
      amount: '30.00',
      currency: 'KES',
      wallet_id: walletId,
      source: cardMethod({ number: CHALLENGE_SUCCEEDS }),
      return_url: RETURN_URL,
    });
    assert.equal(res.statusCode, 201, res.body);
    const topup = res.json();
    assert.equal(topup.status, 'requires_action');
    assert.match(topup.next_action.redirect_to_url.url, /^http:\/\/127\.0\.0\.1:9\/3ds\/top_/);
    assert.equal((await get(app, m, `/v1/wallets/${walletId}`)).json().balance, '0.00');
    const landed = await challenge(topup, 'complete');
    assert.equal(landed, `https://shop.example/paid?order=7&topup_id=${topup.id}`);
    const done = (await get(app, m, `/v1/topups/${topup.id}`)).json();
    assert.equal(done.status, 'succeeded');
    assert.equal(done.next_action, null);
    assert.deepEqual(done.source.card.three_d_secure, { result: 'authenticated' });
    assert.equal((await get(app, m, `/v1/wallets/${walletId}`)).json().balance, '30.00');
  });

  test('frictionless: succeeded at once, authenticated', async () => {
    const payment = await pay({ payment_method: cardMethod({ number: FRICTIONLESS }) });
    assert.equal(payment.status, 'succeeded');
    assert.deepEqual(payment.payment_method.card.three_d_secure, { result: 'authenticated' });
  });

  test('a forged authentication URL is a 404 page and changes nothing', async () => {
    const payment = await pay({ payment_method: cardMethod({ number: CHALLENGE_SUCCEEDS }) });
    const forged = await browse(`http://127.0.0.1:9/3ds/${payment.id}/${'A'.repeat(32)}/return`);
    assert.equal(forged.statusCode, 404);
    assert.equal((await get(app, m, `/v1/payments/${payment.id}`)).json().status, 'requires_action');
  });
});

describe('manual capture and cancel', () => {
  test('authorise, capture part: succeeded with amount_received; only that reaches the balance and can be refunded', async () => {
    const before = Number(await balanceOf());
    const payment = await pay({ capture_method: 'manual' });
    assert.equal(payment.status, 'requires_capture');
    assert.equal(payment.amount_capturable, '100.00');
    assert.ok(payment.capture_before);
    assert.equal(Number(await balanceOf()), before, 'an authorisation is a hold, not money');
    const captured = await post(app, m, `/v1/payments/${payment.id}/capture`, { amount: '60.00' });
    assert.equal(captured.statusCode, 200, captured.body);
    assert.equal(captured.json().status, 'succeeded');
    assert.equal(captured.json().amount_received, '60.00');
    assert.equal(captured.json().amount_capturable, '0.00');
    assert.equal(Number(await balanceOf()), before + 60);
    // The same capture again answers the payment; a cancel now is refused.
    const again = await post(app, m, `/v1/payments/${payment.id}/capture`, { amount: '60.00' });
    assert.equal(again.statusCode, 200);
    const cancel = await post(app, m, `/v1/payments/${payment.id}/cancel`, {});
    assert.equal(cancel.statusCode, 409);
    assert.equal(cancel.json().error.code, 'payment_invalid_state');
    const tooMuch = await post(app, m, '/v1/refunds', { reference: `r-${payment.id}`, payment_id: payment.id, amount: '60.01' });
    assert.equal(tooMuch.statusCode, 400, tooMuch.body);
    assert.equal(tooMuch.json().error.code, 'amount_too_large');
    assert.deepEqual(await eventsOf(payment.id), ['payment.created', 'payment.requires_capture', 'payment.captured']);
  });

  test('a capture above amount_capturable is 400 and changes nothing; a whole capture takes everything', async () => {
    const payment = await pay({ capture_method: 'manual' });
    const over = await post(app, m, `/v1/payments/${payment.id}/capture`, { amount: '100.01' });
    assert.equal(over.statusCode, 400);
    assert.equal(over.json().error.code, 'amount_too_large');
    const whole = await post(app, m, `/v1/payments/${payment.id}/capture`, {});
    assert.equal(whole.json().amount_received, '100.00');
  });

  test('cancel from requires_capture: canceled, nothing received; repeated it answers the same; capture then 409', async () => {
    const before = await balanceOf();
    const payment = await pay({ capture_method: 'manual' });
    const canceled = await post(app, m, `/v1/payments/${payment.id}/cancel`, { reason: 'duplicate' });
    assert.equal(canceled.statusCode, 200, canceled.body);
    assert.equal(canceled.json().status, 'canceled');
    assert.equal(canceled.json().cancellation_reason, 'duplicate');
    assert.ok(canceled.json().completed_at);
    const again = await post(app, m, `/v1/payments/${payment.id}/cancel`, {});
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().status, 'canceled');
    const capture = await post(app, m, `/v1/payments/${payment.id}/capture`, {});
    assert.equal(capture.statusCode, 409);
    assert.equal(await balanceOf(), before);
    assert.deepEqual(await eventsOf(payment.id), ['payment.created', 'payment.requires_capture', 'payment.canceled']);
  });

  test('cancel from requires_action releases the challenge', async () => {
    const payment = await pay({ payment_method: cardMethod({ number: CHALLENGE_SUCCEEDS }) });
    const canceled = await post(app, m, `/v1/payments/${payment.id}/cancel`, {});
    assert.equal(canceled.json().status, 'canceled');
    const start = await browse(payment.next_action.redirect_to_url.url);
    assert.equal(start.statusCode, 200, 'no challenge to go to: a page of Purse');
  });

  test('capture or cancel of an automatic, a mobile-money or an unknown payment is refused', async () => {
    const automatic = await pay({});
    assert.equal((await post(app, m, `/v1/payments/${automatic.id}/capture`, {})).statusCode, 409);
    assert.equal((await post(app, m, `/v1/payments/${automatic.id}/cancel`, {})).statusCode, 409);
    assert.equal((await post(app, m, '/v1/payments/pay_01jd6x8v1ffq8v2k3m4n5p6q7r/capture', {})).statusCode, 404);
    const other = await createTestMerchant(app, 'Other');
    const held = await pay({ capture_method: 'manual' });
    assert.equal((await post(app, other, `/v1/payments/${held.id}/capture`, {})).statusCode, 404);
    const mm = await post(app, m, '/v1/payments', paymentBody({ payment_method: mobileMethod(), capture_method: 'manual' }));
    assert.equal(mm.statusCode, 400);
    assert.equal(mm.json().error.param, 'capture_method');
  });

  test('20 concurrent captures of one authorisation: one capture, one posting, one event', async () => {
    const payment = await pay({ capture_method: 'manual' });
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(app, m, `/v1/payments/${payment.id}/capture`, {})));
    for (const a of answers) assert.ok(a.statusCode === 200 || a.statusCode === 409, a.body);
    const events = await eventsOf(payment.id);
    assert.equal(events.filter((e) => e === 'payment.captured').length, 1);
    const postings = await app.deps.db.db
      .selectFrom('ledger_transactions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('source_id', '=', payment.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(postings.n), 1);
  });
});

describe('raw card data', () => {
  test('a live merchant is refused card numbers unless the operator allows them', async () => {
    const live = await createTestMerchant(app, 'Live shop', true);
    const refused = await post(app, live, '/v1/payments', paymentBody());
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().error.code, 'raw_card_data_not_allowed');
    await app.deps.db.db.updateTable('merchants').set({ raw_card_data: true }).where('id', '=', live.merchantId).execute();
    // The permission is read with the token's row: the change applies once the auth cache (2 s) has let go.
    const allowedAt = Date.now();
    const allowed = await eventually(
      'the permission applies',
      async () => {
        const answer = await post(app, live, '/v1/payments', paymentBody());
        return answer.statusCode === 201 ? answer : answer.json().error.code === 'raw_card_data_not_allowed' ? null : answer;
      },
      5_000,
      100,
    );
    assert.ok(Date.now() - allowedAt < 3_000, 'within the 2 s of the auth cache');
    assert.equal(allowed.statusCode, 201, allowed.body);
    assert.equal(allowed.json().failure.code, 'provider_error', 'no acquirer configured');
  });
});

describe('time: abandoned challenges and lapsed holds', () => {
  async function timedApp(t: TestContext) {
    const clock = manualClock();
    const timed = await buildTestApp(t, { clock, env: { PURSE_WORKER: 'false', PURSE_PUBLIC_URL: 'http://127.0.0.1:9' } });
    const merchant = await createTestMerchant(timed, 'Timed card merchant');
    return { timed, merchant, clock };
  }

  test('a challenge nobody finishes fails authentication_failed at expires_at, and is cancelled at the acquirer', async (t) => {
    const { timed, merchant, clock } = await timedApp(t);
    const created = await post(
      timed,
      merchant,
      '/v1/payments',
      paymentBody({ payment_method: cardMethod({ number: CHALLENGE_SUCCEEDS }) }),
    );
    const payment = created.json();
    assert.equal(payment.status, 'requires_action');
    await timed.deps.worker.runOnce();
    assert.equal((await get(timed, merchant, `/v1/payments/${payment.id}`)).json().status, 'requires_action', 'not before expires_at');
    clock.set(new Date(Date.parse(payment.next_action.expires_at) + 1_000));
    await timed.deps.worker.runOnce();
    const after = (await get(timed, merchant, `/v1/payments/${payment.id}`)).json();
    assert.equal(after.status, 'failed');
    assert.equal(after.failure.code, 'authentication_failed');
    // The payer arriving late finds nothing to complete.
    const atSandbox = await timed.deps.sandboxConnector.getStatus(
      { idempotencyKey: payment.id, providerReference: null },
      AbortSignal.timeout(1000),
    );
    assert.equal(atSandbox.status, 'canceled');
    await assertLedgerHealthy(timed);
  });

  test('a hold not captured by capture_before becomes canceled expired; a capture after is 409', async (t) => {
    const { timed, merchant, clock } = await timedApp(t);
    const payment = (await post(timed, merchant, '/v1/payments', paymentBody({ capture_method: 'manual' }))).json();
    assert.equal(payment.status, 'requires_capture');
    clock.set(new Date(Date.parse(payment.capture_before) + 1_000));
    await timed.deps.worker.runOnce();
    // Seven days on, the merchant's token has expired: ask the services directly.
    const auth = { merchantId: merchant.merchantId, livemode: false, rawCardData: false, apiKeyId: 'key_test', scopes: ['all' as const] };
    const after = await timed.deps.services.charges.getCharge(auth, 'payment', payment.id);
    assert.equal(after.status, 'canceled');
    assert.equal((after as { cancellation_reason: string }).cancellation_reason, 'expired');
    assert.equal((after as { amount_received: string }).amount_received, '0.00');
    await assert.rejects(timed.deps.services.cardOperations.capture(auth, payment.id, {}), { code: 'payment_invalid_state' });
    await assertLedgerHealthy(timed);
  });
});
