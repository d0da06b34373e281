// Payouts racing for a merchant's funds (docs/money-safety.md rule 12), through a listening
// server so that on PostgreSQL (TEST_DATABASE_URL) the requests race on the pool's connections;
// PGlite runs them one at a time and the counts must hold all the same. Funds of 10.00, 50
// concurrent 1.00 payouts: exactly 10 are not failed, 40 are 201 failed insufficient_funds, the
// available funds end at 0.00. Its negative control is the payout run of test/negative-control.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertExactPayoutStorm, runPayoutStorm } from '../concurrency/payout-storm.ts';
import { fundsOf, listAll, settled } from '../concurrency/refund-storm.ts';
import { listeningClient, reportFigures } from '../concurrency/support.ts';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';
import { testDatabaseUrl } from '../helpers/database.ts';
import { assertLedgerHealthy } from '../helpers/factories.ts';
import { usePrivatePostgres } from '../webhooks/support.ts';

const database = testDatabaseUrl() ? 'postgres' : 'pglite';

// A database of its own on PostgreSQL, as the refund storm has: another file's outflow worker
// must not settle this file's pending payouts (CI once saw all 10 settled before the count).
usePrivatePostgres();

test('payout storm: 50 concurrent 1.00 payouts (wallet and mobile money) against funds of 10.00', async (t) => {
  const app = await buildTestApp(t);
  const drive = async () => {
    await app.deps.worker.runOnce();
    await app.deps.outflowWorker.runOnce();
  };
  const merchant = await createTestMerchant(app, 'Payout storm');
  const client = await listeningClient(app, merchant.auth);
  const figures = await runPayoutStorm(client, { covered: 10, attempts: 50, amount: '1.00', destinations: 'mixed', settle: true, drive });
  reportFigures(t, `payout storm (${database}, http, mixed)`, { ...figures });
  assertExactPayoutStorm(figures);
  assert.equal(figures.listedPending, 0, 'settled: every mobile-money payout answered');
  assert.equal(figures.reserved, 0n);
  await assertLedgerHealthy(app);
});

test('payout storm, mobile money only: the pending payouts hold the funds', async (t) => {
  // A test app runs no background worker (main.ts starts it): the payouts stay pending until `drive` settles them.
  const app = await buildTestApp(t);
  const drive = async () => {
    await app.deps.worker.runOnce();
    await app.deps.outflowWorker.runOnce();
  };
  const merchant = await createTestMerchant(app, 'Payout storm, mobile money');
  const client = await listeningClient(app, merchant.auth);
  const figures = await runPayoutStorm(client, { covered: 10, attempts: 50, amount: '1.00', destinations: 'mobile_money' });
  reportFigures(t, `payout storm (${database}, http, mobile money, unsettled)`, { ...figures });
  assertExactPayoutStorm(figures);
  assert.equal(figures.listedPending, 10, 'nothing settled them: all 10 pending');
  assert.equal(figures.reserved, 1_000n, 'the pending payouts hold 10.00 in reserve');

  for (const p of await listAll(client, '/v1/payouts')) {
    if (p.status === 'pending') assert.equal((await settled(client, `/v1/payouts/${p.id}`, drive)).status, 'succeeded');
  }
  assert.deepEqual(await fundsOf(client), { available: 0n, reserved: 0n });
  await assertLedgerHealthy(app);
});
