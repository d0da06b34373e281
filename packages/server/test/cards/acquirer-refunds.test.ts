// Card refunds through the acquirer over real HTTP, with the fake acquirer delivering its signed
// webhooks to Purse's listening server: a refund pending then succeeded, a refund that succeeded
// and failed later (its late outcome gives the money back to the merchant's balance exactly
// once, however many times and in whatever order the events arrive), and the same failure
// reported concurrently. Every flow ends with a verified ledger.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyLedger } from '../../src/ledger/verify.ts';
import { type FakeAcquirer, fakeAcquirerEnv, startFakeAcquirer } from '../fakes/acquirer.ts';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { assertLedgerHealthy, cardMethod, paymentBody, uniqueRef, waitFor } from '../helpers/factories.ts';

let fake: FakeAcquirer;
let app: TestApp;
let m: TestMerchant;
let base: string;

before(async () => {
  fake = await startFakeAcquirer({ searchLagMs: 0, refundSettleDelayMs: 300 });
  app = await buildTestApp(null, {
    env: { ...fakeAcquirerEnv(fake, 'http://127.0.0.1:9'), PURSE_WORKER: 'false', PURSE_PROVIDER_TIMEOUT_MS: '2000' },
  });
  base = await app.listen({ port: 0, host: '127.0.0.1' });
  fake.webhooks.url = `${base}/provider-callbacks/acquirer`;
  m = await createTestMerchant(app, 'Live card merchant', true);
  await app.deps.db.db.updateTable('merchants').set({ raw_card_data: true }).where('id', '=', m.merchantId).execute();
});

after(async () => {
  await assertLedgerHealthy(app);
  await app.close();
  await app.deps.close();
  await fake.close();
});

async function call(method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...m.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const available = async (currency = 'KES') => {
  const balance = (await call('GET', '/v1/balance')).body;
  return (balance.available.find((a: { currency: string }) => a.currency === currency)?.amount as string) ?? '0.00';
};

async function paid(number: string) {
  const res = await call('POST', '/v1/payments', paymentBody({ payment_method: cardMethod({ number }) }));
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.equal(res.body.status, 'succeeded');
  return res.body;
}

async function refund(paymentId: string, amount = '100.00') {
  const res = await call('POST', '/v1/refunds', { reference: uniqueRef('refund'), payment_id: paymentId, amount });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

const reversals = async (refundId: string) =>
  app.deps.db.db.selectFrom('ledger_transactions').select('id').where('source_id', '=', refundId).where('step', '=', 'reversal').execute();

const lateEvents = async (refundId: string) =>
  app.deps.db.db.selectFrom('events').select('id').where('object_id', '=', refundId).where('type', '=', 'refund.late_outcome').execute();

describe('card refunds through the acquirer', () => {
  test('4000000000007726: pending, then succeeded by the confirmed webhook; one refund at the acquirer', async () => {
    fake.webhooks.mode = 'out_of_order';
    const payment = await paid('4000000000007726');
    const created = await refund(payment.id);
    assert.equal(created.status, 'pending');
    const settled = await waitFor(async () => {
      const r = (await call('GET', `/v1/refunds/${created.id}`)).body;
      return r.status !== 'pending' ? r : null;
    }, 8_000);
    assert.equal(settled.status, 'succeeded');
    assert.equal(settled.late_outcome, null);
    assert.equal(fake.countsForIntent(payment.provider_reference).refunds, 1);
  });

  for (const mode of ['twice', 'out_of_order'] as const) {
    test(`4000000000005126 (webhooks ${mode}): succeeded, then failed late: the money is back exactly once`, async () => {
      fake.webhooks.mode = mode;
      const payment = await paid('4000000000005126');
      const before = await available();
      const created = await refund(payment.id, '40.00');
      assert.equal(created.status, 'succeeded', JSON.stringify(created));
      const reversed = await waitFor(async () => {
        const r = (await call('GET', `/v1/refunds/${created.id}`)).body;
        return r.late_outcome ? r : null;
      }, 8_000);
      await fake.webhooks.settled();
      // A final state never changes: the refund stays succeeded, its failure is its late outcome.
      assert.equal(reversed.status, 'succeeded');
      assert.equal(reversed.late_outcome.status, 'failed');
      assert.ok(reversed.late_outcome.failure_code);
      assert.equal(await available(), before, 'the refunded amount is back in the balance');
      assert.equal((await call('GET', `/v1/payments/${payment.id}`)).body.amount_refunded, '0.00');
      assert.equal((await reversals(created.id)).length, 1);
      assert.equal((await lateEvents(created.id)).length, 1);
      const movements = (await call('GET', `/v1/balance_transactions?source_type=refund&limit=100`)).body.data.filter(
        (t: { source_id: string }) => t.source_id === created.id,
      );
      assert.deepEqual(movements.map((t: { amount: string }) => t.amount).sort(), ['+40.00', '-40.00']);
      assert.equal(fake.countsForIntent(payment.provider_reference).refunds, 1);
      await assertLedgerHealthy(app);
    });
  }

  test('the same late failure reported 10 times at once: one reversal, one event, the money back once', async () => {
    fake.webhooks.mode = 'never';
    const payment = await paid('4242424242424242');
    const before = await available();
    const created = await refund(payment.id, '25.00');
    assert.equal(created.status, 'succeeded');
    const row = await app.deps.db.db.selectFrom('outflows').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    // The acquirer fails it (no event sent); Purse hears of it ten times at once, as from ten workers or webhooks.
    fake.failRefund(String(row.provider_reference));
    const outcome = { status: 'failed' as const, failureCode: 'expired_card' as const, providerReference: row.provider_reference };
    await Promise.all(Array.from({ length: 10 }, () => app.deps.outflowSettlement.applyOutcome(row, outcome)));
    assert.equal((await reversals(created.id)).length, 1);
    assert.equal((await lateEvents(created.id)).length, 1);
    assert.equal(await available(), before);
    assert.equal((await call('GET', `/v1/payments/${payment.id}`)).body.amount_refunded, '0.00');
    // The amount can be refunded again, and only once more.
    const again = await refund(payment.id, '100.00');
    assert.equal(again.status, 'succeeded');
    const over = await call('POST', '/v1/refunds', { reference: uniqueRef('refund'), payment_id: payment.id, amount: '0.01' });
    assert.equal(over.status, 400, JSON.stringify(over.body));
    assert.equal(over.body.error.code, 'amount_too_large');
    // verify sees a reversal that no late failure explains (here: the late outcome wiped).
    const db = app.deps.db.db;
    const kept = (await db.selectFrom('outflows').select('late_outcome').where('id', '=', created.id).executeTakeFirstOrThrow())
      .late_outcome;
    await db.updateTable('outflows').set({ late_outcome: null }).where('id', '=', created.id).execute();
    assert.deepEqual((await verifyLedger(db)).outflowPostingMismatches, [created.id]);
    await db
      .updateTable('outflows')
      .set({ late_outcome: JSON.stringify(kept) })
      .where('id', '=', created.id)
      .execute();
  });

  test('a repeated success of a succeeded refund changes nothing: no late outcome, no reversal', async () => {
    fake.webhooks.mode = 'never';
    const payment = await paid('4242424242424242');
    const created = await refund(payment.id, '10.00');
    const row = await app.deps.db.db.selectFrom('outflows').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    const before = await available();
    await app.deps.outflowSettlement.applyOutcome(row, { status: 'succeeded', providerReference: row.provider_reference });
    assert.equal((await reversals(created.id)).length, 0);
    assert.equal((await call('GET', `/v1/refunds/${created.id}`)).body.late_outcome, null);
    assert.equal(await available(), before);
  });
});
