// Two real server processes on one PostgreSQL, money writes crossing over shared wallets
// (test/concurrency/lock-order.ts): no deadlock between their group-commit batches, and no 5xx.
// The negative control (test/negative-control.ts, arrival-order locks) must see deadlocks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';
import { testDatabaseUrl } from '../helpers/database.ts';
import { assertLedgerHealthy } from '../helpers/factories.ts';
import { LOCK_ORDER_LOAD, runLockOrder } from './lock-order.ts';
import { reportFigures } from './support.ts';

const databaseUrl = testDatabaseUrl();

test('two processes, payments, transfers and refunds over shared wallets: no deadlock, no 5xx', {
  skip: databaseUrl ? false : 'needs PostgreSQL (TEST_DATABASE_URL)',
}, async (t) => {
  const app = await buildTestApp(t);
  const merchant = await createTestMerchant(app, 'Lock order');
  const figures = await runLockOrder(t, { databaseUrl: databaseUrl!, ...LOCK_ORDER_LOAD }, merchant.auth);
  reportFigures(t, 'lock order (postgres, http ×2, global order)', { ...figures });
  assert.equal(figures.deadlocks, 0, `PostgreSQL saw deadlocks: ${JSON.stringify(figures)}`);
  assert.equal(figures.answers500, 0);
  assert.equal(figures.answers5xx, 0, `5xx answers: ${figures.samples.join(' | ')}`);
  assert.equal((figures.statuses['201'] ?? 0) + (figures.statuses['200'] ?? 0), figures.requests, JSON.stringify(figures.statuses));
  await assertLedgerHealthy(app);
});
