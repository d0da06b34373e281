// The fake acquirer after authorisation: manual capture (full, partial, beyond what is capturable),
// cancel from each state, capture and cancel in the wrong state (400 payment_intent_unexpected_state),
// holds that lapse at capture_before, refunds, other accounts' objects, and the currency table.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createIntent, get, post } from './acquirer/test-support.ts';
import { exponentOf, type FakeAcquirer, startFakeAcquirer } from './acquirer.ts';

let fake: FakeAcquirer;
before(async () => {
  fake = await startFakeAcquirer({ refundSettleDelayMs: 30 });
});
after(() => fake.close());

const manual = (number = '4242424242424242', extra: Record<string, unknown> = {}) =>
  createIntent(fake, number, { capture_method: 'manual', ...extra }).then((r) => r.body);
const capture = (id: string, params: Record<string, unknown> = {}) => post(fake, `/v1/payment_intents/${id}/capture`, params);
const cancel = (id: string, params: Record<string, unknown> = {}) => post(fake, `/v1/payment_intents/${id}/cancel`, params);

function assertUnexpectedState(res: { status: number; body: any }, status: string) {
  assert.equal(res.status, 400);
  assert.equal(res.body.error.type, 'invalid_request_error');
  assert.equal(res.body.error.code, 'payment_intent_unexpected_state');
  assert.equal(res.body.error.payment_intent.status, status);
}

describe('capture', () => {
  test('manual: requires_capture with capture_before 7 days on, then a full capture succeeds', async () => {
    const pi = await manual('4242424242424242', { expand: ['latest_charge'] });
    assert.deepEqual([pi.status, pi.amount_capturable, pi.amount_received], ['requires_capture', 1050, 0]);
    assert.equal(pi.latest_charge.captured, false);
    assert.equal(pi.latest_charge.payment_method_details.card.capture_before, pi.created + 7 * 86_400);
    const res = await capture(pi.id, { expand: ['latest_charge'] });
    assert.equal(res.status, 200);
    assert.deepEqual([res.body.status, res.body.amount_received, res.body.amount_capturable], ['succeeded', 1050, 0]);
    assert.deepEqual([res.body.latest_charge.captured, res.body.latest_charge.amount_captured], [true, 1050]);
    assert.equal(fake.countsForIntent(pi.id).captures, 1);
  });

  test('partial: amount_to_capture ≤ amount_capturable; the rest is released', async () => {
    const pi = await manual();
    const res = await capture(pi.id, { amount_to_capture: 600, expand: ['latest_charge'] });
    assert.deepEqual([res.body.status, res.body.amount_received, res.body.amount_capturable], ['succeeded', 600, 0]);
    assert.deepEqual([res.body.latest_charge.amount_captured, res.body.latest_charge.amount_refunded], [600, 450]);
  });

  test('more than capturable, or 0, is refused and nothing changes', async () => {
    const pi = await manual();
    for (const amount of [1051, 0]) {
      const res = await capture(pi.id, { amount_to_capture: amount });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.param, 'amount_to_capture');
    }
    assert.equal((await get(fake, `/v1/payment_intents/${pi.id}`)).body.status, 'requires_capture');
  });

  test('only from requires_capture: succeeded, captured twice, canceled, declined and requires_action are 400 unexpected state', async () => {
    const automatic = (await createIntent(fake, '4242424242424242')).body;
    assertUnexpectedState(await capture(automatic.id), 'succeeded');
    const held = await manual();
    assert.equal((await capture(held.id)).status, 200);
    assertUnexpectedState(await capture(held.id), 'succeeded');
    const canceled = await manual();
    await cancel(canceled.id);
    assertUnexpectedState(await capture(canceled.id), 'canceled');
    const declined = (await createIntent(fake, '4000000000000002', { capture_method: 'manual' })).body.error.payment_intent;
    assertUnexpectedState(await capture(declined.id), 'requires_payment_method');
    const challenged = await manual('4000000000003220');
    assertUnexpectedState(await capture(challenged.id), 'requires_action');
    assert.equal(fake.countsForIntent(held.id).captures, 1);
  });
});

describe('cancel', () => {
  test('from requires_capture (the hold is released), requires_action and requires_payment_method', async () => {
    const held = await manual();
    const res = await cancel(held.id, { cancellation_reason: 'requested_by_customer', expand: ['latest_charge'] });
    assert.equal(res.status, 200);
    assert.deepEqual([res.body.status, res.body.cancellation_reason, res.body.amount_capturable], ['canceled', 'requested_by_customer', 0]);
    assert.equal(typeof res.body.canceled_at, 'number');
    assert.equal(res.body.latest_charge.amount_refunded, 1050);
    const challenged = await manual('4000000000003220');
    assert.equal((await cancel(challenged.id)).body.status, 'canceled');
    const declined = (await createIntent(fake, '4000000000009995')).body.error.payment_intent;
    assert.equal((await cancel(declined.id, { cancellation_reason: 'abandoned' })).body.cancellation_reason, 'abandoned');
    assert.equal(fake.countsForIntent(held.id).cancels, 1);
  });

  test('not from succeeded or canceled: 400 unexpected state; an unknown reason is a parameter error', async () => {
    const paid = (await createIntent(fake, '4242424242424242')).body;
    assertUnexpectedState(await cancel(paid.id), 'succeeded');
    const held = await manual();
    await cancel(held.id);
    assertUnexpectedState(await cancel(held.id), 'canceled');
    assert.equal(fake.countsForIntent(held.id).cancels, 1);
    const bad = await cancel((await manual()).id, { cancellation_reason: 'bored' });
    assert.deepEqual([bad.status, bad.body.error.param], [400, 'cancellation_reason']);
  });
});

describe('holds', () => {
  test('an authorisation not captured by capture_before is canceled automatic; capturing it then is 400', async () => {
    const pi = await manual();
    fake.advanceTime(7 * 86_400_000 - 60_000);
    assert.equal((await get(fake, `/v1/payment_intents/${pi.id}`)).body.status, 'requires_capture');
    fake.advanceTime(120_000);
    const read = (await get(fake, `/v1/payment_intents/${pi.id}`, { expand: ['latest_charge'] })).body;
    assert.deepEqual([read.status, read.cancellation_reason, read.amount_capturable], ['canceled', 'automatic', 0]);
    assert.equal(read.latest_charge.amount_refunded, 1050);
    assertUnexpectedState(await capture(pi.id), 'canceled');
    assert.equal(fake.countsForIntent(pi.id).holdExpiries, 1);
  });

  test('expireAuthorization lapses one hold now; it refuses an intent that holds nothing', async () => {
    const pi = await manual();
    fake.expireAuthorization(pi.id);
    assert.equal((await get(fake, `/v1/payment_intents/${pi.id}`)).body.cancellation_reason, 'automatic');
    assert.throws(() => fake.expireAuthorization(pi.id));
  });
});

describe('objects of other accounts and unknown ids', () => {
  test('404 resource_missing, whether unknown or another secret key’s', async () => {
    const otherKey = fake.addAccount();
    const pi = (await createIntent(fake, '4242424242424242')).body;
    for (const res of [
      await get(fake, '/v1/payment_intents/pi_nope'),
      await get(fake, `/v1/payment_intents/${pi.id}`, {}, { secretKey: otherKey }),
    ]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'resource_missing');
    }
    assert.equal((await post(fake, `/v1/payment_intents/${pi.id}/cancel`, {}, { secretKey: otherKey })).status, 404);
    assert.equal((await post(fake, '/v1/refunds', { payment_intent: pi.id }, { secretKey: otherKey })).status, 404);
  });
});

describe('refunds', () => {
  test('partial then the rest; more than is left, or after a full refund, is refused', async () => {
    const pi = (await createIntent(fake, '4242424242424242')).body;
    const first = await post(fake, '/v1/refunds', { payment_intent: pi.id, amount: 400, metadata: { purse_refund_id: 'rf_1' } });
    assert.equal(first.status, 200);
    assert.match(first.body.id, /^re_/);
    assert.deepEqual(
      [first.body.object, first.body.status, first.body.amount, first.body.payment_intent],
      ['refund', 'succeeded', 400, pi.id],
    );
    assert.equal(first.body.metadata.purse_refund_id, 'rf_1');
    const tooMuch = await post(fake, '/v1/refunds', { payment_intent: pi.id, amount: 651 });
    assert.deepEqual([tooMuch.status, tooMuch.body.error.code], [400, 'amount_too_large']);
    const rest = await post(fake, '/v1/refunds', { charge: pi.latest_charge });
    assert.equal(rest.body.amount, 650);
    const again = await post(fake, '/v1/refunds', { payment_intent: pi.id });
    assert.deepEqual([again.status, again.body.error.code], [400, 'charge_already_refunded']);
    assert.equal((await get(fake, `/v1/refunds/${first.body.id}`)).body.amount, 400);
    assert.equal((await get(fake, `/v1/charges/${pi.latest_charge}`)).body.amount_refunded, 1050);
    assert.equal(fake.countsForIntent(pi.id).refunds, 2);
  });

  test('only what was received is refundable: an uncaptured or declined intent is refused', async () => {
    const held = await manual();
    const res = await post(fake, '/v1/refunds', { payment_intent: held.id });
    assert.deepEqual([res.status, res.body.error.code], [400, 'charge_not_refundable']);
    const missing = await post(fake, '/v1/refunds', { amount: 5 });
    assert.deepEqual([missing.status, missing.body.error.code], [400, 'parameter_missing']);
  });

  test('4000000000007726: pending, then succeeded; settleRefund does it to any pending refund', async () => {
    const pi = (await createIntent(fake, '4000000000007726')).body;
    const refund = (await post(fake, '/v1/refunds', { payment_intent: pi.id })).body;
    assert.equal(refund.status, 'pending');
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.equal((await get(fake, `/v1/refunds/${refund.id}`)).body.status, 'succeeded');
    const slow = await startFakeAcquirer({ refundInitialStatus: 'pending' });
    try {
      const other = (await createIntent(slow, '4242424242424242')).body;
      const pending = (await post(slow, '/v1/refunds', { payment_intent: other.id })).body;
      assert.equal(pending.status, 'pending');
      slow.settleRefund(pending.id);
      assert.equal((await get(slow, `/v1/refunds/${pending.id}`)).body.status, 'succeeded');
    } finally {
      await slow.close();
    }
  });
});

describe('currencies', () => {
  test('the exponent table: zero-decimal (UGX, JPY), two (KES, TZS, GHS, USD), three (KWD); overridable', async () => {
    assert.deepEqual(
      ['ugx', 'jpy', 'rwf', 'kes', 'tzs', 'ghs', 'usd', 'kwd'].map((c) => exponentOf(c)),
      [0, 0, 0, 2, 2, 2, 2, 3],
    );
    assert.equal(exponentOf('ugx', { ugx: 2 }), 2);
    const ugx = (await createIntent(fake, '4000000000003220', { amount: 1500, currency: 'ugx' })).body;
    assert.match(await (await fetch(ugx.next_action.redirect_to_url.url)).text(), /UGX 1500 /);
  });

  test('amount rules: at least 1, at most 8 digits, ISK in whole units, three-decimal ending in 0', async () => {
    const cases: [number, string, string | undefined][] = [
      [0, 'usd', 'amount_too_small'],
      [123456789, 'usd', 'amount_too_large'],
      [150, 'isk', 'invalid_charge_amount_no_decimal_compatible'],
      [1005, 'kwd', undefined],
    ];
    for (const [amount, currency, code] of cases) {
      const res = await createIntent(fake, '4242424242424242', { amount, currency });
      assert.deepEqual([res.status, res.body.error.code, res.body.error.param], [400, code, 'amount'], `${amount} ${currency}`);
    }
    assert.equal((await createIntent(fake, '4242424242424242', { amount: 200, currency: 'isk' })).status, 200);
    assert.equal((await createIntent(fake, '4242424242424242', { amount: 123456789, currency: 'jpy' })).status, 200);
  });
});
