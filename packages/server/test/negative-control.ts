// The negative controls: each money-safety test run against Purse with one rule broken on
// purpose, which must make it fail (proof that the test can fail). Against PostgreSQL.
//
// - The storms of docs/money-safety.md rules 5, 11 and 12: test/concurrency/double-spend.test.ts
//   (wallet payments), test/transfers/storm.test.ts (transfers), test/outflows/refund-storm.test.ts
//   (refunds of one payment) and test/outflows/payout-storm.test.ts (payouts from the merchant's
//   funds), each against the money writes rewritten to decide on a stale read
//   (test/negative-controls/broken-writes.ts), with the group commit's lanes off so that
//   statements of one wallet or merchant run concurrently. Each must lose updates, i.e. let MORE
//   than the covered number through. Refunds and payouts are counted from the outflows (answers,
//   and the lists), not from amount_refunded or the balance columns, which the broken writes
//   overwrite; a 5xx (a CHECK that stopped a write) is not a success.
// - The group-commit scenarios (test/db/group-commit.ts), each against the batch executor broken
//   the way it checks (test/negative-controls/batchers.ts: no per-statement fallback, reversed
//   order, answers before COMMIT), and merged outflows each checked against the whole funds
//   instead of their sum (broken-writes.ts unsplitOutflows).
// - The capture storm (test/cards/capture-storm.ts): 20 concurrent captures of one card
//   authorisation against the fake acquirer, with the claim that records an operation replaced
//   by a check-then-act (test/negative-controls/broken-claims.ts). It must send MORE than one
//   capture request to the acquirer.
// - The checkout completion storm (test/checkout/completion-storm.ts): 20 concurrent submissions
//   of one hosted checkout session and 5 syncs, with the completion's conditional update replaced
//   by a check-then-act (test/negative-controls/broken-completion.ts). It must write MORE than one
//   checkout_session.completed event.
// - The last-owner race (test/users/last-owner-race.ts): 12 merchants with two owners each, who
//   at once demote (or remove) each other, with the rule's conditional update under the owners'
//   row locks replaced by a check-then-act (test/negative-controls/broken-owner-rule.ts: count the
//   other active owners, pause 25 ms, write unconditionally). It must leave at least one merchant
//   without an active owner. These three are in test/negative-control-races.ts.
//
// - The lock order (test/concurrency/lock-order.ts): two real server processes
//   (test/helpers/serve.ts) with payments, transfers and refunds crossing over shared wallets,
//   against the group commit taking its row locks in arrival order and not running a deadlocked
//   batch again (test/negative-controls/batchers.ts arrivalOrderLocks). PostgreSQL must see
//   deadlocks (pg_stat_database), where the real group commit sees none.
//
// `npm run test:negative-control -- lock-order` runs that control alone; `-- last-owner`, the
// last-owner race alone.
//
// - The plans scenario (test/db/plans.ts): every hot path on a database analyzed while empty,
//   then grown, with the delivery worker's index (webhook_deliveries_due) dropped before the
//   bursts. It must see a sequential scan of a growing table (proof that the no-scan test can fail).
//
// The broken variants are wired through buildTestApp (buildDeps options); a production start has
// no way to choose one.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run test:negative-control
//
// Not a *.test.ts file: `npm test` does not run it. It creates its own database and drops it.
// Exit 0 only when every control failed as expected; 1 otherwise.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { isHealthy, verifyLedger } from '../src/ledger/verify.ts';
import { runDoubleSpend } from './concurrency/double-spend.ts';
import { LOCK_ORDER_LOAD, runLockOrder } from './concurrency/lock-order.ts';
import { runPayoutStorm } from './concurrency/payout-storm.ts';
import { runRefundStorm } from './concurrency/refund-storm.ts';
import { type ApiClient, figuresLine, httpClient } from './concurrency/support.ts';
import { runTransferStorm } from './concurrency/transfer-storm.ts';
import {
  GROUP_COMMIT_ENV,
  mixedBatch,
  noAnswerBeforeCommit,
  outflowFundsInOrder,
  sameWalletInOrder,
  type Verdict,
} from './db/group-commit.ts';
import { runPlans, unexpectedScans } from './db/plans.ts';
import { buildTestApp, createTestMerchant, type TestApp, type TestAppOptions } from './helpers/app.ts';
import { capturesControl, completionControl, lastOwnerControl } from './negative-control-races.ts';
import { answerBeforeCommit, noFallback, reversed } from './negative-controls/batchers.ts';
import { lostUpdateOutflows, lostUpdateTransfers, lostUpdateWalletPayments, unsplitOutflows } from './negative-controls/broken-writes.ts';

const COVERED = 100;
const ATTEMPTS = 1_000;
/** Requests in flight against the listening server; the pool has 16 connections (openTestDb). */
const CONCURRENCY = 64;
/** The transfer storm of test/transfers/storm.test.ts: a source covering 10 transfers, 100 at once. */
const TRANSFERS_COVERED = 10;
const TRANSFER_ATTEMPTS = 100;
/**
 * The wallet refund storm of test/outflows/refund-storm.test.ts (a 10.00 wallet payment, refunds
 * of 1.00 back into the wallet), with more attempts. Wallet refunds hold nothing in reserve: a card
 * refund is held for the instant of its provider call, and in the broken mode that trips the
 * CHECK (reserved <= debited) on merchant_balances (debited written back too low) for most
 * requests (500s), so the card run shows the race only now and then.
 */
const REFUNDS_COVERED = 10;
const REFUND_ATTEMPTS = 100;
/** The payout storm of test/outflows/payout-storm.test.ts (funds of 10.00, payouts of 1.00 to a wallet), with more attempts. */
const PAYOUTS_COVERED = 10;
const PAYOUT_ATTEMPTS = 100;

const serverDir = fileURLToPath(new URL('..', import.meta.url));
const adminUrl = process.env.DATABASE_URL;

function makeTemplate(...args: string[]): string {
  return execFileSync(process.execPath, ['--import', 'tsx', 'test/helpers/make-template.ts', ...args], {
    cwd: serverDir,
    env: { ...process.env, DATABASE_URL: adminUrl },
    encoding: 'utf8',
  }).trim();
}

/** The wallet-payment storm: true when more than the covered payments succeeded. */
async function paymentsControl(app: TestApp, client: ApiClient): Promise<boolean> {
  const figures = await runDoubleSpend(client, { covered: COVERED, attempts: ATTEMPTS, concurrency: CONCURRENCY });
  const ledger = await verifyLedger(app.deps.db.db);
  process.stdout.write(
    `${figuresLine('negative control (postgres, http, debit of a stale balance)', {
      ...figures,
      ledgerHealthy: isHealthy(ledger),
      walletMismatches: ledger.walletMismatches,
    })}\n`,
  );
  if (figures.successes > COVERED) {
    process.stdout.write(
      `negative control: FAILED AS EXPECTED: ${figures.successes} of ${ATTEMPTS} payments succeeded against a wallet that covers ${COVERED} ` +
        `(lost updates: ${figures.successes - COVERED}); the double-spend test can fail.\n`,
    );
    return true;
  }
  process.stdout.write(
    `negative control: DID NOT FAIL: ${figures.successes} successes (expected more than ${COVERED}); the race did not show, so this run proves nothing.\n`,
  );
  return false;
}

/** The transfer storm: true when more than the covered transfers succeeded. */
async function transfersControl(app: TestApp, client: ApiClient): Promise<boolean> {
  const figures = await runTransferStorm(client, { covered: TRANSFERS_COVERED, attempts: TRANSFER_ATTEMPTS, concurrency: CONCURRENCY });
  const ledger = await verifyLedger(app.deps.db.db);
  process.stdout.write(
    `${figuresLine('negative control, transfers (postgres, http, debit of a stale balance)', {
      ...figures,
      ledgerHealthy: isHealthy(ledger),
      walletMismatches: ledger.walletMismatches,
    })}\n`,
  );
  if (figures.successes > TRANSFERS_COVERED) {
    process.stdout.write(
      `negative control: transfers FAILED AS EXPECTED: ${figures.successes} of ${TRANSFER_ATTEMPTS} transfers succeeded from a wallet ` +
        `that covers ${TRANSFERS_COVERED} (destination credited ${figures.destinationBalance} minor units); the transfer storm test can fail.\n`,
    );
    return true;
  }
  process.stdout.write(
    `negative control: transfers DID NOT FAIL: ${figures.successes} successes (expected more than ${TRANSFERS_COVERED}); this run proves nothing.\n`,
  );
  return false;
}

/** The refund storm: true when refunds that are not failed add up to more than the payment. */
async function refundsControl(app: TestApp, client: ApiClient): Promise<boolean> {
  const figures = await runRefundStorm(client, {
    means: 'wallet',
    paymentAmount: '10.00',
    amount: '1.00',
    attempts: REFUND_ATTEMPTS,
    concurrency: CONCURRENCY,
  });
  const ledger = await verifyLedger(app.deps.db.db);
  process.stdout.write(
    `${figuresLine('negative control, refunds (postgres, http, refund cap on a stale read)', {
      ...figures,
      ledgerHealthy: isHealthy(ledger),
      overRefunded: ledger.overRefunded,
    })}\n`,
  );
  if (figures.successes > REFUNDS_COVERED) {
    process.stdout.write(
      `negative control: refunds FAILED AS EXPECTED: ${figures.successes} refunds of 1.00 accepted on a 10.00 wallet payment ` +
        `(listed not failed: ${figures.listedNotFailed}, summing ${figures.listedNotFailedSum} minor units, while amount_refunded reads ` +
        `${figures.amountRefunded}; 5xx: ${figures.serverErrors}); the refund storm test can fail.\n`,
    );
    return true;
  }
  process.stdout.write(
    `negative control: refunds DID NOT FAIL: ${figures.successes} successes (expected more than ${REFUNDS_COVERED}; 5xx: ${figures.serverErrors}); this run proves nothing.\n`,
  );
  return false;
}

/** The payout storm (to a wallet: no reserve, so the reserved <= debited CHECK stays out of it): true when more than the funds went out. */
async function payoutsControl(app: TestApp, client: ApiClient): Promise<boolean> {
  const figures = await runPayoutStorm(client, {
    covered: PAYOUTS_COVERED,
    attempts: PAYOUT_ATTEMPTS,
    concurrency: CONCURRENCY,
    amount: '1.00',
    destinations: 'wallet',
  });
  const ledger = await verifyLedger(app.deps.db.db);
  process.stdout.write(
    `${figuresLine('negative control, payouts (postgres, http, funds on a stale read)', {
      ...figures,
      ledgerHealthy: isHealthy(ledger),
      fundsMismatches: ledger.fundsMismatches,
    })}\n`,
  );
  if (figures.successes > PAYOUTS_COVERED) {
    process.stdout.write(
      `negative control: payouts FAILED AS EXPECTED: ${figures.successes} payouts of 1.00 accepted against funds of 10.00 ` +
        `(the wallet received ${figures.walletBalance} minor units; GET /v1/balance reads available ${figures.available}; 5xx: ${figures.serverErrors}); ` +
        `the payout storm test can fail.\n`,
    );
    return true;
  }
  process.stdout.write(
    `negative control: payouts DID NOT FAIL: ${figures.successes} successes (expected more than ${PAYOUTS_COVERED}; 5xx: ${figures.serverErrors}); this run proves nothing.\n`,
  );
  return false;
}

/**
 * Group commit (test/db/group-commit.test.ts): each scenario against the batcher broken the way
 * it checks for. True when every one of them saw the breakage (its check failed).
 */
async function groupCommitControls(): Promise<boolean> {
  const controls: [string, TestAppOptions['wiring'], (app: TestApp) => Promise<Verdict>][] = [
    ['no fallback', { executeBatch: noFallback }, mixedBatch],
    ['reversed', { executeBatch: reversed }, sameWalletInOrder],
    ['answer before commit', { executeBatch: answerBeforeCommit }, noAnswerBeforeCommit],
    ['reversed', { executeBatch: reversed }, outflowFundsInOrder],
    ['outflows unsplit', { writes: { outflows: unsplitOutflows } }, outflowFundsInOrder],
  ];
  let all = true;
  for (const [control, wiring, scenario] of controls) {
    const app = await buildTestApp(null, { env: GROUP_COMMIT_ENV, wiring });
    try {
      const verdict = await scenario(app);
      const broke = !verdict.ok;
      all &&= broke;
      process.stdout.write(
        `negative control: group commit ${control}: ${broke ? 'FAILED AS EXPECTED' : 'DID NOT FAIL (proves nothing)'}: ${JSON.stringify(verdict.seen)}\n`,
      );
    } finally {
      await app.close();
      await app.deps.close();
    }
  }
  return all;
}

const LOCK_ORDER_ROUNDS = 4;

/** Two processes with arrival-order locks, on a database of their own: true when PostgreSQL saw deadlocks. */
async function lockOrderControl(): Promise<boolean> {
  const url = makeTemplate('create-postgres');
  const previous = process.env.TEST_DATABASE_URL;
  const cleanups: (() => Promise<void> | void)[] = [];
  try {
    process.env.TEST_DATABASE_URL = url;
    const app = await buildTestApp(null);
    cleanups.push(async () => {
      await app.close();
      await app.deps.close();
    });
    const merchant = await createTestMerchant(app, 'Negative control, lock order');
    // A deadlock needs two batches to meet in opposite orders: likely under load, but a quiet
    // machine once ran all 3,000 requests without one. Up to LOCK_ORDER_ROUNDS rounds, each on
    // fresh wallets; one round with a deadlock is the proof (the real test sees none in its round).
    let figures: Awaited<ReturnType<typeof runLockOrder>> | undefined;
    for (let round = 1; round <= LOCK_ORDER_ROUNDS && (figures?.deadlocks ?? 0) === 0; round++) {
      figures = await runLockOrder(
        { after: (fn) => cleanups.push(fn) },
        { databaseUrl: url, executor: 'arrival-order-locks', ...LOCK_ORDER_LOAD },
        merchant.auth,
      );
      const label = `negative control, lock order (postgres, http ×2, locks in arrival order), round ${round}`;
      process.stdout.write(`${figuresLine(label, { ...figures })}\n`);
    }
    if (!figures) throw new Error('no lock-order round ran');
    const broke = figures.deadlocks > 0;
    process.stdout.write(
      broke
        ? `negative control: lock order FAILED AS EXPECTED: ${figures.deadlocks} deadlocks between the two processes' batches ` +
            `(answers 5xx: ${figures.answers5xx}); the lock-order test can fail.\n`
        : 'negative control: lock order DID NOT FAIL: no deadlock; this run proves nothing.\n',
    );
    return broke;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
    if (previous === undefined) delete process.env.TEST_DATABASE_URL;
    else process.env.TEST_DATABASE_URL = previous;
    makeTemplate('drop-postgres', url);
  }
}

/** The plans scenario without the delivery worker's index: true when some operation scanned a growing table. */
async function plansControl(): Promise<boolean> {
  const url = makeTemplate('create-postgres');
  const previous = process.env.TEST_DATABASE_URL;
  process.env.TEST_DATABASE_URL = url;
  try {
    const verdict = await runPlans({
      beforeBursts: async (app) => {
        await sql`DROP INDEX webhook_deliveries_due`.execute(app.deps.db.db);
      },
    });
    const scanned = unexpectedScans(verdict);
    const broke = Object.keys(scanned).length > 0;
    process.stdout.write(
      `negative control: plans without webhook_deliveries_due ${broke ? 'FAILED AS EXPECTED' : 'DID NOT FAIL (proves nothing)'}: ` +
        `scans ${JSON.stringify(scanned)}; rows ${JSON.stringify(verdict.rows)}\n`,
    );
    return broke;
  } finally {
    process.env.TEST_DATABASE_URL = previous;
    makeTemplate('drop-postgres', url);
  }
}

async function main(): Promise<number> {
  if (!adminUrl) {
    process.stderr.write('negative control: DATABASE_URL is required (PGlite runs one transaction at a time and cannot show the race).\n');
    return 1;
  }
  if (process.argv.includes('lock-order')) return (await lockOrderControl()) ? 0 : 1;
  const url = makeTemplate('create-postgres');
  process.stdout.write(`negative control: database ${new URL(url).pathname.slice(1)}\n`);
  let app: TestApp | null = null;
  try {
    process.env.TEST_DATABASE_URL = url;
    if (process.argv.includes('last-owner')) return (await lastOwnerControl()) ? 0 : 1;
    // Lanes off: each write its own statement on the pool, so one wallet's writes run concurrently.
    app = await buildTestApp(null, {
      env: { PURSE_GROUP_COMMIT_LANES: '0' },
      wiring: { writes: { walletPayments: lostUpdateWalletPayments, transfers: lostUpdateTransfers, outflows: lostUpdateOutflows } },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const merchant = await createTestMerchant(app, 'Negative control');
    const client = httpClient([`http://127.0.0.1:${port}`], merchant.auth);
    const payments = await paymentsControl(app, client);
    const transfers = await transfersControl(app, client);
    // Fresh merchants: the payout storm needs funds of exactly 10.00, the refund storm its own cushion.
    const base = `http://127.0.0.1:${port}`;
    const refunder = await createTestMerchant(app, 'Negative control, refunds');
    const refunds = await refundsControl(app, httpClient([base], refunder.auth));
    const payer = await createTestMerchant(app, 'Negative control, payouts');
    const payouts = await payoutsControl(app, httpClient([base], payer.auth));
    const groupCommit = await groupCommitControls();
    const captures = await capturesControl();
    const completion = await completionControl();
    const lastOwner = await lastOwnerControl();
    const lockOrder = await lockOrderControl();
    const plans = await plansControl();
    const verdicts = { payments, transfers, refunds, payouts, groupCommit, captures, completion, lastOwner, lockOrder, plans };
    process.stdout.write(`negative control: failed as expected: ${JSON.stringify(verdicts)}\n`);
    return Object.values(verdicts).every(Boolean) ? 0 : 1;
  } finally {
    if (app) {
      await app.close();
      await app.deps.close();
    }
    makeTemplate('drop-postgres', url);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`negative control: error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
