// The double spend (money-safety rule 5). A wallet covers exactly 100 payments; 1,000 wallet payments with
// unique references race for it. Exactly 100 succeed, the balance never goes below zero.
// Meaningful mostly on PostgreSQL (TEST_DATABASE_URL: 16 connections race on the wallet row);
// on PGlite the transactions run one at a time, and the counts must hold all the same.
// Its negative control (a broken debit must fail this check) is test/negative-control.ts.
import { test } from 'node:test';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';
import { testDatabaseUrl } from '../helpers/database.ts';
import { assertLedgerHealthy } from '../helpers/factories.ts';
import { assertExactDoubleSpend, runDoubleSpend } from './double-spend.ts';
import { injectClient, reportFigures } from './support.ts';

const database = testDatabaseUrl() ? 'postgres' : 'pglite';

test('double spend: 1,000 parallel wallet payments against a wallet that covers 100', async (t) => {
  const app = await buildTestApp(t);
  const merchant = await createTestMerchant(app, 'Double spend');
  const figures = await runDoubleSpend(injectClient(app, merchant.auth), { covered: 100, attempts: 1_000, concurrency: 100 });
  reportFigures(t, `double spend (${database}, inject)`, { ...figures });
  assertExactDoubleSpend(figures);
  await assertLedgerHealthy(app);
});
