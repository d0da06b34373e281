// Each act of the list leaves exactly one audit record, written with the act: webhook endpoint
// changes, wallet freezes, refunds and payouts (the last two inside the merged money statement).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { fundedWallet, get, paymentBody, post, uniqueRef } from '../helpers/factories.ts';

async function actions(app: TestApp, m: TestMerchant): Promise<{ action: string; target: { type: string; id: string } }[]> {
  const res = await get(app, m, '/v1/audit_events?limit=100');
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data.reverse();
}

async function verified(app: TestApp, m: TestMerchant): Promise<void> {
  const [verdict] = await app.deps.services.audit.verify([m.merchantId]);
  assert.equal(verdict!.ok, true, JSON.stringify(verdict));
}

test('webhook endpoint created, updated, secret rotated, deleted; the default secret rotated: one record each', async (t) => {
  const app = await buildTestApp(t);
  const m = await createTestMerchant(app);
  const created = await post(app, m, '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/audit' });
  const id = created.json().id;
  await app.inject({ method: 'PATCH', url: `/v1/webhook_endpoints/${id}`, headers: m.auth, payload: { description: 'orders' } });
  await post(app, m, `/v1/webhook_endpoints/${id}/rotate_secret`, {});
  await app.inject({ method: 'DELETE', url: `/v1/webhook_endpoints/${id}`, headers: m.auth });
  await app.inject({ method: 'DELETE', url: `/v1/webhook_endpoints/${id}`, headers: m.auth }); // gone: 404, no record
  await post(app, m, '/v1/webhook_secret/rotate', {});
  const list = (await actions(app, m)).filter((e) => e.action !== 'merchant.created');
  assert.deepEqual(
    list.map((e) => [e.action, e.target.id]),
    [
      ['webhook_endpoint.created', id],
      ['webhook_endpoint.updated', id],
      ['webhook_endpoint.secret_rotated', id],
      ['webhook_endpoint.deleted', id],
      ['webhook_secret.rotated', m.merchantId],
    ],
  );
  const text = JSON.stringify(list);
  assert.equal(text.includes('whsec_'), false, 'no signing secret in the log');
  await verified(app, m);
});

test('wallet frozen and unfrozen: one record each; an unknown wallet leaves none', async (t) => {
  const app = await buildTestApp(t);
  const m = await createTestMerchant(app);
  const wallet = await fundedWallet(app, m, '5.00');
  assert.equal((await post(app, m, `/v1/wallets/${wallet}/freeze`, {})).statusCode, 200);
  assert.equal((await post(app, m, `/v1/wallets/${wallet}/unfreeze`, {})).statusCode, 200);
  const other = await createTestMerchant(app, 'Other');
  assert.equal((await post(app, other, `/v1/wallets/${wallet}/freeze`, {})).statusCode, 404);
  const list = (await actions(app, m)).filter((e) => e.action.startsWith('wallet.'));
  assert.deepEqual(
    list.map((e) => [e.action, e.target.type, e.target.id]),
    [
      ['wallet.frozen', 'wallet', wallet],
      ['wallet.unfrozen', 'wallet', wallet],
    ],
  );
  assert.deepEqual(
    (await actions(app, other)).map((e) => e.action),
    ['merchant.created'],
  );
  await verified(app, m);
});

test('refunds and payouts: one record each, written by the merged money statement; refused ones leave none', async (t) => {
  const app = await buildTestApp(t);
  const m = await createTestMerchant(app);
  const wallet = await fundedWallet(app, m, '50.00');
  const payment = await post(app, m, '/v1/payments', paymentBody({ reference: uniqueRef('audit') }));
  assert.equal(payment.statusCode, 201, payment.body);
  const paymentId = payment.json().id;
  const refund = await post(app, m, '/v1/refunds', { reference: uniqueRef('audit'), payment_id: paymentId, amount: '1.00' });
  assert.equal(refund.statusCode, 201, refund.body);
  const tooLarge = await post(app, m, '/v1/refunds', { reference: uniqueRef('audit'), payment_id: paymentId, amount: '9999.00' });
  assert.equal(tooLarge.statusCode, 400, 'refused: no record');
  const replay = await post(app, m, '/v1/refunds', { reference: refund.json().reference, payment_id: paymentId, amount: '1.00' });
  assert.equal(replay.statusCode, 200, 'a replay is not a new act');
  const payout = await post(app, m, '/v1/payouts', {
    reference: uniqueRef('audit'),
    amount: '2.00',
    currency: 'KES',
    destination: { type: 'wallet', wallet: { wallet_id: wallet } },
  });
  assert.equal(payout.statusCode, 201, payout.body);
  // Concurrent refunds of one payment, merged by the group commit into few statements: one record each, chained in order.
  const many = await Promise.all(
    Array.from({ length: 6 }, () => post(app, m, '/v1/refunds', { reference: uniqueRef('audit'), payment_id: paymentId, amount: '0.50' })),
  );
  for (const r of many) assert.equal(r.statusCode, 201, r.body);
  const list = (await actions(app, m)).filter((e) => e.action === 'refund.created' || e.action === 'payout.created');
  const ids = [refund.json().id, payout.json().id, ...many.map((r) => r.json().id)];
  assert.deepEqual(list.map((e) => e.target.id).sort(), [...ids].sort());
  const first = list.find((e) => e.target.id === refund.json().id) as unknown as Record<string, unknown>;
  assert.deepEqual(first.changes, { amount: '1.00', currency: 'KES', payment_id: paymentId });
  assert.equal(first.request_id, refund.headers['request-id']);
  await verified(app, m);
});
