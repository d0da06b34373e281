// Refunds (docs/api.md §14): full and partial, several per payment, by the payment's means (a
// wallet at once, a card through the provider at once, mobile money later); the database caps
// them at the payment's amount; the money comes out of the merchant's available balance.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import {
  assertLedgerHealthy,
  fundedWallet,
  get,
  mobileMethod,
  paymentBody,
  post,
  settle,
  uniqueRef,
  walletMethod,
} from '../helpers/factories.ts';

let app: TestApp;
let m: TestMerchant;
let other: TestMerchant;

before(async () => {
  app = await buildTestApp(null, { env: { PURSE_WORKER: 'false' } });
  m = await createTestMerchant(app, 'Refunds merchant');
  other = await createTestMerchant(app, 'Other merchant');
});

after(async () => {
  await assertLedgerHealthy(app);
  await app.close();
  await app.deps.close();
});

async function paid(body: Record<string, unknown> = {}, merchant = m) {
  const res = await post(app, merchant, '/v1/payments', paymentBody(body));
  assert.equal(res.statusCode, 201, res.body);
  const payment = res.json();
  if (payment.status === 'pending') return settle(app, merchant, `/v1/payments/${payment.id}`);
  return payment;
}

type Settled = { status: string; failure: { code: string } | null };
const settled = async (merchant: TestMerchant, path: string) => (await settle(app, merchant, path)) as unknown as Settled;

const refund = (paymentId: string, extra: Record<string, unknown> = {}, merchant = m) =>
  post(app, merchant, '/v1/refunds', { reference: uniqueRef('re'), payment_id: paymentId, ...extra });

const balanceOf = async (merchant: TestMerchant) => {
  const body = (await get(app, merchant, '/v1/balance')).json();
  const pick = (list: Array<{ currency: string; amount: string }>) => list.find((x) => x.currency === 'KES')?.amount ?? '0.00';
  return { available: pick(body.available), reserved: pick(body.reserved) };
};

describe('refunds', () => {
  test('a card payment refunded in two parts, then nothing is left', async () => {
    const payment = await paid({ amount: '100.00' });
    const first = await refund(payment.id, { amount: '30.00', reason: 'requested_by_customer' });
    assert.equal(first.statusCode, 201, first.body);
    const r1 = first.json();
    assert.match(r1.id, /^re_[0-9a-z]{26}$/);
    assert.equal(first.headers.location, `/v1/refunds/${r1.id}`);
    assert.equal(r1.status, 'succeeded');
    assert.equal(r1.amount, '30.00');
    assert.equal(r1.reason, 'requested_by_customer');
    assert.deepEqual(r1.destination, { type: 'card', card: { brand: 'visa', last4: '4242' } });
    assert.equal((await get(app, m, `/v1/payments/${payment.id}`)).json().amount_refunded, '30.00');

    const rest = await refund(payment.id);
    assert.equal(rest.statusCode, 201, rest.body);
    assert.equal(rest.json().amount, '70.00');
    const again = await refund(payment.id, { amount: '0.01' });
    assert.equal(again.statusCode, 400, again.body);
    assert.equal(again.json().error.code, 'amount_too_large');
    assert.equal(again.json().error.param, 'amount');
    const none = await refund(payment.id);
    assert.equal(none.json().error.code, 'payment_not_refundable');

    const list = (await get(app, m, `/v1/refunds?payment_id=${payment.id}`)).json();
    assert.deepEqual(
      list.data.map((r: { id: string }) => r.id),
      [rest.json().id, r1.id],
    );
    const types = (await get(app, m, `/v1/events?object_id=${r1.id}`)).json().data.map((e: { type: string }) => e.type);
    assert.deepEqual(types.sort(), ['refund.created', 'refund.succeeded']);
  });

  test('a wallet payment is refunded into its wallet in the same statement', async () => {
    const walletId = await fundedWallet(app, m, '50.00');
    const payment = await paid({ amount: '20.00', payment_method: walletMethod(walletId) });
    assert.equal(payment.status, 'succeeded');
    const res = await refund(payment.id, { amount: '5.00' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().status, 'succeeded');
    assert.deepEqual(res.json().destination, { type: 'wallet', wallet: { wallet_id: walletId } });
    assert.equal((await get(app, m, `/v1/wallets/${walletId}`)).json().balance, '35.00');
    const lines = (await get(app, m, `/v1/wallets/${walletId}/transactions`)).json().data;
    assert.equal(lines[0].source_type, 'refund');
    assert.equal(lines[0].amount, '+5.00');
    assert.equal(lines[0].balance_after, '35.00');
  });

  test('mobile money: pending and reserved, then succeeded; a failed one gives everything back', async () => {
    const before = await balanceOf(m);
    const payment = await paid({ amount: '40.00', payment_method: mobileMethod('+254712345010') });
    assert.equal(payment.status, 'succeeded');
    const created = await refund(payment.id, { amount: '10.00' });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().status, 'pending');
    assert.deepEqual(created.json().destination, { type: 'mobile_money', mobile_money: { phone_number: '+254712345010', provider: null } });
    const held = await balanceOf(m);
    assert.equal(held.reserved, '10.00');
    const done = await settled(m, `/v1/refunds/${created.json().id}`);
    assert.equal(done.status, 'succeeded');
    assert.equal((await balanceOf(m)).reserved, '0.00');

    const second = await refund(payment.id, { amount: '30.00' });
    assert.equal(second.json().status, 'pending');
    const failed = await post(app, m, `/v1/sandbox/refunds/${second.json().id}/fail`, {});
    assert.equal(failed.statusCode, 200, failed.body);
    assert.equal(failed.json().status, 'failed');
    assert.equal(failed.json().failure.code, 'provider_error');
    assert.equal((await get(app, m, `/v1/payments/${payment.id}`)).json().amount_refunded, '10.00');
    const after = await balanceOf(m);
    assert.equal(after.reserved, '0.00');
    // 40 in, 10 refunded: 30 more than before.
    assert.equal(Number(after.available) - Number(before.available), 30);
    await assertLedgerHealthy(app);
  });

  test('only a succeeded payment; not more than the available balance', async () => {
    const pending = await post(app, m, '/v1/payments', paymentBody({ payment_method: mobileMethod('+254712345005') }));
    const res = await refund(pending.json().id);
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, 'payment_not_refundable');

    const poor = await createTestMerchant(app, 'Poor merchant');
    const payment = await paid({ amount: '10.00' }, poor);
    const payout = await post(app, poor, '/v1/payouts', {
      reference: uniqueRef('po'),
      amount: '8.00',
      currency: 'KES',
      destination: { type: 'mobile_money', mobile_money: { phone_number: '+254712345000' } },
    });
    assert.equal(payout.json().status, 'pending', payout.body);
    const short = await refund(payment.id, { amount: '5.00' }, poor);
    assert.equal(short.statusCode, 201, short.body);
    assert.equal(short.json().status, 'failed');
    assert.equal(short.json().failure.code, 'insufficient_funds');
    assert.equal((await get(app, poor, `/v1/payments/${payment.id}`)).json().amount_refunded, '0.00');
  });

  test("another merchant's payment and refund read like unknown ones", async () => {
    const payment = await paid({ amount: '10.00' });
    const res = await refund(payment.id, {}, other);
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, 'resource_missing');
    const mine = (await refund(payment.id, { amount: '1.00' })).json();
    assert.equal((await get(app, other, `/v1/refunds/${mine.id}`)).statusCode, 404);
    assert.equal((await get(app, m, `/v1/refunds/${mine.id}`)).statusCode, 200);
  });

  test('the same reference replays; a different request is 409', async () => {
    const payment = await paid({ amount: '10.00' });
    const body = { reference: uniqueRef('re'), payment_id: payment.id, amount: '2.00' };
    const first = await post(app, m, '/v1/refunds', body);
    const second = await post(app, m, '/v1/refunds', body);
    assert.equal(second.statusCode, 200);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(second.json().id, first.json().id);
    const changed = await post(app, m, '/v1/refunds', { ...body, amount: '3.00' });
    assert.equal(changed.statusCode, 409);
    assert.equal(changed.json().error.code, 'reference_conflict');
  });
});

describe('payouts', () => {
  test('to a wallet at once; to mobile money pending, then settled; 004 is payee_not_found', async () => {
    await paid({ amount: '200.00' });
    const walletId = await fundedWallet(app, m, '1.00');
    const start = await balanceOf(m);
    const toWallet = await post(app, m, '/v1/payouts', {
      reference: uniqueRef('po'),
      amount: '25.00',
      currency: 'KES',
      destination: { type: 'wallet', wallet: { wallet_id: walletId } },
    });
    assert.equal(toWallet.statusCode, 201, toWallet.body);
    assert.match(toWallet.json().id, /^po_/);
    assert.equal(toWallet.json().status, 'succeeded');
    assert.equal((await get(app, m, `/v1/wallets/${walletId}`)).json().balance, '26.00');

    const mm = await post(app, m, '/v1/payouts', {
      reference: uniqueRef('po'),
      amount: '15.00',
      currency: 'KES',
      destination: { type: 'mobile_money', mobile_money: { phone_number: '+254712345000' } },
    });
    assert.equal(mm.json().status, 'pending', mm.body);
    assert.equal((await balanceOf(m)).reserved, '15.00');
    const done = await settled(m, `/v1/payouts/${mm.json().id}`);
    assert.equal(done.status, 'succeeded');

    const nobody = await post(app, m, '/v1/payouts', {
      reference: uniqueRef('po'),
      amount: '5.00',
      currency: 'KES',
      destination: { type: 'mobile_money', mobile_money: { phone_number: '+254712345004' } },
    });
    const failed = await settled(m, `/v1/payouts/${nobody.json().id}`);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.failure?.code, 'payee_not_found');
    const end = await balanceOf(m);
    assert.equal(Number(start.available) - Number(end.available), 40);
    assert.equal(end.reserved, '0.00');
    await assertLedgerHealthy(app);
  });

  test('not enough: 201 failed insufficient_funds, nothing moves', async () => {
    const poor = await createTestMerchant(app, 'Empty merchant');
    const res = await post(app, poor, '/v1/payouts', {
      reference: uniqueRef('po'),
      amount: '1.00',
      currency: 'KES',
      destination: { type: 'mobile_money', mobile_money: { phone_number: '+254712345000' } },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().status, 'failed');
    assert.equal(res.json().failure.code, 'insufficient_funds');
    const balance = (await get(app, poor, '/v1/balance')).json();
    assert.deepEqual(balance.available, [{ currency: 'KES', amount: '0.00' }]);
  });
});

describe('late outcomes', () => {
  test('a payout the provider reports succeeded after it failed: shown, announced once, never applied', async () => {
    await paid({ amount: '30.00' });
    const created = await post(app, m, '/v1/payouts', {
      reference: uniqueRef('po'),
      amount: '7.00',
      currency: 'KES',
      destination: { type: 'mobile_money', mobile_money: { phone_number: '+254712345005' } },
    });
    const payout = created.json();
    assert.equal(payout.status, 'pending', created.body);
    const failed = await post(app, m, `/v1/sandbox/payouts/${payout.id}/fail`, {});
    assert.equal(failed.json().status, 'failed', failed.body);
    const before = await balanceOf(m);
    // As the provider: its books now say succeeded, and it calls back (signed). Twice.
    for (let i = 0; i < 2; i++) {
      await app.deps.sandboxConnector.force(payout.id, 'succeeded', null);
      const signed = app.deps.sandboxConnector.signCallback({
        idempotency_key: payout.id,
        provider_reference: payout.provider_reference,
        status: 'succeeded',
      });
      const res = await app.inject({
        method: 'POST',
        url: '/provider-callbacks/sandbox',
        headers: signed.headers,
        payload: signed.rawBody,
      });
      assert.equal(res.statusCode, 200, res.body);
    }
    const after = (await get(app, m, `/v1/payouts/${payout.id}`)).json();
    assert.equal(after.status, 'failed');
    assert.equal(after.late_outcome.status, 'succeeded');
    assert.deepEqual(await balanceOf(m), before, 'a late outcome moves no money');
    const events = (await get(app, m, `/v1/events?object_id=${payout.id}`)).json().data;
    const late = events.filter((e: { type: string }) => e.type === 'payout.late_outcome');
    assert.equal(late.length, 1);
    assert.deepEqual(late[0].data.object, after);
  });
});
