// The double spend through transfers: a wallet holding 10.00, 100 concurrent transfers of 1.00
// to another wallet. Exactly 10 succeed, 90 fail insufficient_funds, the source ends at 0 and
// the destination at 10.00. Meaningful mostly on PostgreSQL (16 connections race on the rows);
// its negative control is the transfer run of test/negative-control.ts.
import { test } from 'node:test';
import { injectClient, inParallel, reportFigures } from '../concurrency/support.ts';
import { assertExactTransferStorm, runTransferStorm } from '../concurrency/transfer-storm.ts';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';
import { testDatabaseUrl } from '../helpers/database.ts';
import { assertLedgerHealthy } from '../helpers/factories.ts';

const database = testDatabaseUrl() ? 'postgres' : 'pglite';

test('transfer storm: 100 concurrent 1.00 transfers from a wallet holding 10.00', async (t) => {
  const app = await buildTestApp(t);
  const merchant = await createTestMerchant(app, 'Transfer storm');
  const figures = await runTransferStorm(injectClient(app, merchant.auth), { covered: 10, attempts: 100, amount: '1.00' });
  reportFigures(t, `transfer storm (${database}, inject)`, { ...figures });
  assertExactTransferStorm(figures);
  await assertLedgerHealthy(app);
});

test('transfers both ways between two wallets at once: no deadlock, the totals hold', async (t) => {
  const app = await buildTestApp(t);
  const merchant = await createTestMerchant(app, 'Transfer both ways');
  const client = injectClient(app, merchant.auth);
  // One transfer of a storm that covers 50: leaves 49.00 and 1.00 in the two wallets.
  const a = await runTransferStorm(client, { covered: 50, attempts: 1, amount: '1.00' });
  const both = await inParallel(60, 60, (i) =>
    client.request('POST', '/v1/transfers', {
      reference: `both-${process.pid}-${Date.now()}-${i}`,
      amount: '1.00',
      currency: 'KES',
      source_wallet_id: i % 2 === 0 ? a.sourceId : a.destinationId,
      destination_wallet_id: i % 2 === 0 ? a.destinationId : a.sourceId,
    }),
  );
  const unexpected = both.filter((r) => r.status !== 201);
  if (unexpected.length > 0) throw new Error(`non-201 answers: ${JSON.stringify(unexpected.slice(0, 3).map((r) => r.body))}`);
  const [src, dst] = await Promise.all([a.sourceId, a.destinationId].map((id) => client.request('GET', `/v1/wallets/${id}`)));
  const total = Number(src!.body.balance) + Number(dst!.body.balance);
  if (total !== 50) throw new Error(`money appeared or vanished: ${src!.body.balance} + ${dst!.body.balance}`);
  await assertLedgerHealthy(app);
});
