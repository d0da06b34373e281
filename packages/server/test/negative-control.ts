// The negative controls of the double-spend tests (docs/money-safety.md rule 5): the same runs as
// test/concurrency/double-spend.test.ts (wallet payments) and test/transfers/storm.test.ts
// (transfers), against PostgreSQL, with the deliberately broken read-modify-write debit
// (PURSE_NEGATIVE_CONTROL_RMW_DEBIT=true). Each must lose updates, i.e. let MORE than the
// covered number succeed: proof that both tests can fail.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run test:negative-control
//
// Not a *.test.ts file: `npm test` does not run it. It creates its own database and drops it.
// Exit 0 only when both controls failed as expected (successes > covered); 1 otherwise.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isHealthy, verifyLedger } from '../src/ledger/verify.ts';
import { runDoubleSpend } from './concurrency/double-spend.ts';
import { type ApiClient, figuresLine, httpClient } from './concurrency/support.ts';
import { runTransferStorm } from './concurrency/transfer-storm.ts';
import { buildTestApp, createTestMerchant, type TestApp } from './helpers/app.ts';

const COVERED = 100;
const ATTEMPTS = 1_000;
/** Requests in flight against the listening server; the pool has 16 connections (openTestDb). */
const CONCURRENCY = 64;
/** The transfer storm of test/transfers/storm.test.ts: a source covering 10 transfers, 100 at once. */
const TRANSFERS_COVERED = 10;
const TRANSFER_ATTEMPTS = 100;

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
    `${figuresLine('negative control (postgres, http, read-modify-write debit)', {
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
    `${figuresLine('negative control, transfers (postgres, http, read-modify-write debit)', {
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

async function main(): Promise<number> {
  if (!adminUrl) {
    process.stderr.write('negative control: DATABASE_URL is required (PGlite runs one transaction at a time and cannot show the race).\n');
    return 1;
  }
  const url = makeTemplate('create-postgres');
  process.stdout.write(`negative control: database ${new URL(url).pathname.slice(1)}\n`);
  let app: TestApp | null = null;
  try {
    process.env.TEST_DATABASE_URL = url;
    app = await buildTestApp(null, { env: { PURSE_NEGATIVE_CONTROL_RMW_DEBIT: 'true' } });
    if (!app.deps.config.negativeControlRmwDebit) throw new Error('the broken debit is not switched on');
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const merchant = await createTestMerchant(app, 'Negative control');
    const client = httpClient([`http://127.0.0.1:${port}`], merchant.auth);
    const payments = await paymentsControl(app, client);
    const transfers = await transfersControl(app, client);
    return payments && transfers ? 0 : 1;
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
