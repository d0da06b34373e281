// Refunds racing for one payment (docs/money-safety.md rule 11), through a listening server so
// that on PostgreSQL (TEST_DATABASE_URL) the requests race on the pool's connections; PGlite runs
// them one at a time and the counts must hold all the same. A 10.00 payment, 30 concurrent 1.00
// refunds: exactly 10 are accepted, 20 are 400 amount_too_large, amount_refunded is 10.00.
// Its negative control is the refund run of test/negative-control.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertExactRefundStorm, fundsOf, listAll, runRefundStorm, settled } from '../concurrency/refund-storm.ts';
import { listeningClient, reportFigures } from '../concurrency/support.ts';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';
import { testDatabaseUrl } from '../helpers/database.ts';
import { assertLedgerHealthy } from '../helpers/factories.ts';
import { usePrivatePostgres } from '../webhooks/support.ts';

const database = testDatabaseUrl() ? 'postgres' : 'pglite';

// A database of its own on PostgreSQL: another file's worker must not settle this file's pending refunds.
usePrivatePostgres();

test('refund storm: 30 concurrent 1.00 card refunds of a 10.00 payment', async (t) => {
  const app = await buildTestApp(t);
  const merchant = await createTestMerchant(app, 'Refund storm');
  const client = await listeningClient(app, merchant.auth);
  const figures = await runRefundStorm(client, { means: 'card', paymentAmount: '10.00', amount: '1.00', attempts: 30 });
  reportFigures(t, `refund storm (${database}, http, card)`, { ...figures });
  assert.equal(figures.covered, 10);
  assertExactRefundStorm(figures, '10.00');
  assert.equal(figures.pendingAnswers, 0, 'a card refund is answered at once');
  assert.equal(figures.listedPending, 0);
  await assertLedgerHealthy(app);
});

test('refund storm: 30 concurrent 1.00 refunds of a 10.00 wallet payment, back into the wallet', async (t) => {
  const app = await buildTestApp(t);
  const merchant = await createTestMerchant(app, 'Refund storm, wallet');
  const client = await listeningClient(app, merchant.auth);
  const figures = await runRefundStorm(client, { means: 'wallet', paymentAmount: '10.00', amount: '1.00', attempts: 30 });
  reportFigures(t, `refund storm (${database}, http, wallet)`, { ...figures });
  assertExactRefundStorm(figures, '10.00');
  assert.equal(figures.pendingAnswers, 0, 'a wallet refund is final in its statement');
  assert.equal(figures.reserved, 0n);
  await assertLedgerHealthy(app);
});

test('refund storm, mobile money: pending refunds count against the payment', async (t) => {
  // A test app runs no background worker (main.ts starts it): every refund stays pending until `drive` settles it.
  const app = await buildTestApp(t);
  const drive = async () => {
    await app.deps.worker.runOnce();
    await app.deps.outflowWorker.runOnce();
  };
  const merchant = await createTestMerchant(app, 'Refund storm, mobile money');
  const client = await listeningClient(app, merchant.auth);
  // 4.00 refunded and pending before the storm: 6 of the 30 refunds of 1.00 fit.
  const figures = await runRefundStorm(client, {
    means: 'mobile_money',
    paymentAmount: '10.00',
    amount: '1.00',
    refundedFirst: '4.00',
    attempts: 30,
    drive,
  });
  reportFigures(t, `refund storm (${database}, http, mobile money, 4.00 pending first)`, { ...figures });
  assert.equal(figures.covered, 6);
  assertExactRefundStorm(figures, '10.00');
  assert.equal(figures.pendingAnswers, 6, 'every accepted mobile-money refund is pending');
  assert.equal(figures.listedPending, 7, 'the first refund and the 6 of the storm, all pending');
  assert.equal(figures.reserved, 1_000n, 'the pending refunds hold 10.00 in reserve');

  for (const r of await listAll(client, `/v1/refunds?payment_id=${figures.paymentId}`)) {
    const done = await settled(client, `/v1/refunds/${r.id}`, drive);
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
  }
  const after = await fundsOf(client);
  assert.equal(after.reserved, 0n, 'nothing held once the provider answered');
  assert.equal(after.available, figures.available, 'settling moves nothing more out of the available funds');
  const payment = await client.request('GET', `/v1/payments/${figures.paymentId}`);
  assert.equal(payment.body.amount_refunded, '10.00');
  await assertLedgerHealthy(app);
});
