// Group commit (src/db/group-commit.ts): each request's own outcome inside a shared batch, arrival
// order on one wallet, and nothing answered before COMMIT. Each check is run by
// test/negative-control.ts against a batcher broken on purpose, and fails there.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { atFileEnd, usePrivatePostgres } from '../webhooks/support.ts';
import {
  GROUP_COMMIT_ENV,
  mergedClaimsAndCompletions,
  mergedOutflows,
  mergedStatement,
  mergedTransfers,
  mixedBatch,
  noAnswerBeforeCommit,
  outflowFundsInOrder,
  sameWalletInOrder,
} from './group-commit.ts';

// A database of its own on PostgreSQL: the scenarios count batches on this app's metrics and rows by reference.
const ready = usePrivatePostgres();
let app: TestApp;

before(async () => {
  await ready();
  app = await buildTestApp(null, { env: GROUP_COMMIT_ENV });
});

atFileEnd(async () => {
  await app.close();
  await app.deps.close();
});

test('one batch mixing a success, a replay, a reference conflict, insufficient funds and a frozen wallet: each its own outcome', async (t) => {
  const verdict = await mixedBatch(app);
  t.diagnostic(JSON.stringify(verdict.seen));
  assert.ok(verdict.ok, JSON.stringify(verdict.seen));
});

test('payments from different wallets and merchants in one statement: each its own charge, events, deliveries, posting and credit', async (t) => {
  const verdict = await mergedStatement(app);
  t.diagnostic(JSON.stringify(verdict.seen));
  assert.ok(verdict.ok, JSON.stringify(verdict.seen));
});

test('card payments and top-ups through merged claims and completions: replays, conflicts, one wallet credited twice', async (t) => {
  const verdict = await mergedClaimsAndCompletions(app);
  t.diagnostic(JSON.stringify(verdict.seen));
  assert.ok(verdict.ok, JSON.stringify(verdict.seen));
});

test('payments from one wallet in one batch are applied in arrival order against the running balance', async (t) => {
  const verdict = await sameWalletInOrder(app);
  t.diagnostic(JSON.stringify(verdict.seen));
  assert.ok(verdict.ok, JSON.stringify(verdict.seen));
});

test('nothing is answered before COMMIT, and a batch that loses its connection answers nothing and stores nothing', async (t) => {
  const verdict = await noAnswerBeforeCommit(app);
  t.diagnostic(JSON.stringify(verdict.seen));
  assert.ok(verdict.ok, JSON.stringify(verdict.seen));
});

test('refunds and payouts of two merchants in one statement: each its own decision, one wallet credited twice, a stale lookup refused', async (t) => {
  const verdict = await mergedOutflows(app);
  t.diagnostic(JSON.stringify(verdict.seen));
  assert.ok(verdict.ok, JSON.stringify(verdict.seen));
});

test('outflows more than the funds in one batch: each runs alone, in arrival order', async (t) => {
  const verdict = await outflowFundsInOrder(app);
  t.diagnostic(JSON.stringify(verdict.seen));
  assert.ok(verdict.ok, JSON.stringify(verdict.seen));
});

test('transfers in one batch: a wallet in one transfer per statement, a credit seen by the transfer after it', async (t) => {
  const verdict = await mergedTransfers(app);
  t.diagnostic(JSON.stringify(verdict.seen));
  assert.ok(verdict.ok, JSON.stringify(verdict.seen));
});
