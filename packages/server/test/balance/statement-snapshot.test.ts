// A statement is one consistent picture of the funds even while entries are written during its
// download. Merchant-account entries draw their seq when inserted, without a lock, so one can be
// committed after an entry with a higher seq: pinning "seq <= the newest at the start" is not
// enough across separate batch queries. On PostgreSQL the batches share one REPEATABLE READ
// snapshot; this test commits such an entry in the middle of a download and checks that the
// statement neither shows it nor breaks its chain. PGlite runs one transaction at a time (a seq
// below the pinned top is always committed before the statement starts), and an open
// transaction there would block the download itself: the test runs on PostgreSQL only.
// Negative control: with the batches read outside the snapshot, this test fails (the late entry
// is listed: 2,502 lines instead of 2,501).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { merchantAccount } from '../../src/ledger/accounts.ts';
import { newId } from '../../src/shared/ids.ts';
import { buildTestApp, createTestMerchant, type TestApp } from '../helpers/app.ts';
import { testDatabaseUrl } from '../helpers/database.ts';
import { assertLedgerHealthy } from '../helpers/factories.ts';
import { bulkInsert } from './bulk.ts';

let app: TestApp;
let base = '';

before(async () => {
  app = await buildTestApp(null, { env: { PURSE_WORKER: 'false' } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

after(async () => {
  await assertLedgerHealthy(app);
  await app.close();
  await app.deps.close();
});

/** A payout of `minor` out of the merchant's KES funds, balanced against the provider's account. */
async function payout(db: TestApp['deps']['db']['db'], merchantId: string, minor: bigint): Promise<string> {
  const tx = newId('ledgerTransaction');
  const sourceId = `po_${tx.slice(4)}`;
  await db
    .insertInto('ledger_transactions')
    .values({ id: tx, merchant_id: merchantId, source_type: 'payout', source_id: sourceId, created_at: new Date() })
    .execute();
  for (const [account, amount] of [
    [merchantAccount(merchantId, 'KES'), -minor],
    ['provider:sandbox:card:KES', minor],
  ] as const) {
    await db
      .insertInto('ledger_entries')
      .values({
        id: newId('ledgerEntry'),
        transaction_id: tx,
        account,
        currency: 'KES',
        amount,
        balance_after: null,
        source_type: 'payout',
        source_id: sourceId,
        created_at: new Date(),
      })
      .execute();
  }
  return sourceId;
}

/** The merchant's balance row as a real payout leaves it: `minor` more debited. */
async function debitFunds(db: TestApp['deps']['db']['db'], merchantId: string, minor: bigint): Promise<void> {
  await sql`INSERT INTO merchant_balances (merchant_id, currency, shard, debited) VALUES (${merchantId}, 'KES', 0, ${minor.toString()}::bigint)
    ON CONFLICT (merchant_id, currency, shard) DO UPDATE SET debited = merchant_balances.debited + excluded.debited`.execute(db);
}

test('an entry committed mid-download with a seq below the top neither appears nor breaks the chain', {
  skip: testDatabaseUrl() ? false : 'PostgreSQL only',
}, async () => {
  const m = await createTestMerchant(app, 'Snapshot merchant');
  const db = app.deps.db.db;
  // A payout whose transaction stays open: its seq is drawn now, below everything inserted next.
  let commitLate: () => void = () => {};
  let lateId = '';
  const lateReady = new Promise<void>((ready) => {
    void db.transaction().execute(async (trx) => {
      lateId = await payout(trx, m.merchantId, 777n);
      ready();
      await new Promise<void>((resolve) => {
        commitLate = resolve;
      });
      // The funds move with the entries (verifyLedger checks they agree), taken only now: held
      // while the transaction waited, this row lock would stop the fixtures below.
      await debitFunds(trx, m.merchantId, 777n);
    });
  });
  await lateReady;
  await bulkInsert(db, m.merchantId, 2_500, 'KES');
  const visibleId = await db.transaction().execute(async (trx) => {
    const id = await payout(trx, m.merchantId, 100n);
    await debitFunds(trx, m.merchantId, 100n);
    return id;
  });

  let body = '';
  let afterId = '';
  await new Promise<void>((resolve, reject) => {
    http
      .get(`${base}/v1/balance_transactions?currency=KES`, { agent: false, headers: { ...m.auth, accept: 'text/csv' } }, (res) => {
        assert.equal(res.statusCode, 200);
        res.setEncoding('utf8');
        res.once('data', async (first: string) => {
          // The statement has started (its snapshot taken); the late payout commits now, with
          // a seq below the statement's top, and one more entry arrives above it.
          res.pause();
          body += first;
          commitLate();
          await new Promise((r) => setTimeout(r, 100));
          afterId = await db.transaction().execute(async (trx) => {
            const id = await payout(trx, m.merchantId, 5n);
            await debitFunds(trx, m.merchantId, 5n);
            return id;
          });
          res.on('data', (chunk: string) => {
            body += chunk;
          });
          res.resume();
        });
        res.on('end', resolve);
        res.on('error', reject);
      })
      .on('error', reject);
  });
  const lines = body.slice(0, -2).split('\r\n').slice(1);
  assert.equal(lines.length, 2_501);
  assert.ok(lines.some((l) => l.includes(visibleId)));
  assert.ok(!lines.some((l) => l.includes(lateId)), 'the entry committed during the download is not listed');
  assert.ok(!lines.some((l) => l.includes(afterId)), 'nor the one newer than the start');
  let below = 0n;
  for (let i = lines.length - 1; i >= 0; i--) {
    const fields = (lines[i] as string).split(',');
    below += BigInt((fields[5] as string).replace('.', ''));
    assert.equal(BigInt((fields[6] as string).replace('.', '')), below, `chain at line ${i}`);
  }
  // The next statement sees both, still as one running balance.
  const again = await app.inject({
    method: 'GET',
    url: '/v1/balance_transactions?currency=KES',
    headers: { ...m.auth, accept: 'text/csv' },
  });
  const later = again.body.slice(0, -2).split('\r\n').slice(1);
  assert.equal(later.length, 2_503);
  assert.ok(later.some((l) => l.includes(lateId)));
});
