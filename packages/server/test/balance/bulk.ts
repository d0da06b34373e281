import { sql } from 'kysely';
import type { Db } from '../../src/db/db.ts';
import { merchantAccount } from '../../src/ledger/accounts.ts';
import { newId } from '../../src/shared/ids.ts';

/**
 * `count` entries for the merchant in one statement per table, balanced against a provider
 * account: mostly payments, every 7th a refund, and the merchant's balance row to match. seq is drawn in g order. One transaction, so a
 * ledger check running meanwhile (another test file, on PostgreSQL) never sees half of it.
 */
export async function bulkInsert(outer: Db, merchantId: string, count: number, currency: string, offset = 0) {
  const account = merchantAccount(merchantId, currency);
  const tag = newId('ledgerTransaction').slice(4, 14);
  await outer.transaction().execute(async (db) => {
    await sql`
    INSERT INTO ledger_transactions (id, merchant_id, source_type, source_id, created_at)
    SELECT 'ltx_' || ${tag} || lpad(g::text, 16, '0'), ${merchantId}, CASE WHEN g % 7 = 0 THEN 'refund' ELSE 'payment' END,
           CASE WHEN g % 7 = 0 THEN 're_' ELSE 'pay_' END || ${tag} || lpad(g::text, 16, '0'), now() - interval '1 day' + g * interval '1 ms'
    FROM generate_series(${offset + 1}::int, ${offset + count}::int) g
  `.execute(db);
    await sql`
    INSERT INTO ledger_entries (id, transaction_id, account, currency, amount, balance_after, source_type, source_id, created_at)
    SELECT 'len_' || ${tag} || lpad((g * 2 + CASE side WHEN 'm' THEN 0 ELSE 1 END)::text, 16, '0'), t.id, CASE side WHEN 'm' THEN ${account} ELSE ${`provider:sandbox:card:${currency}`} END, ${currency},
           CASE side WHEN 'm' THEN a ELSE -a END, NULL, t.source_type, t.source_id, t.created_at
    FROM generate_series(${offset + 1}::int, ${offset + count}::int) g
    CROSS JOIN LATERAL (SELECT CASE WHEN g % 7 = 0 THEN -((g % 300) + 1) ELSE (g % 1000) * 10 + 5 END::bigint AS a) amt
    CROSS JOIN (VALUES ('m'), ('p')) s(side)
    JOIN ledger_transactions t ON t.id = 'ltx_' || ${tag} || lpad(g::text, 16, '0')
    ORDER BY g, side
  `.execute(db);
    // The merchant's balance rows hold the same numbers as its entries (verifyLedger checks it):
    // payments credited, refunds debited, on shard 0.
    await sql`
    INSERT INTO merchant_balances (merchant_id, currency, shard, credited, debited)
    SELECT ${merchantId}, ${currency}, 0, coalesce(sum(amount) FILTER (WHERE amount > 0), 0), coalesce(-sum(amount) FILTER (WHERE amount < 0), 0)
    FROM ledger_entries WHERE account = ${account} AND id LIKE ${`len_${tag}%`}
    ON CONFLICT (merchant_id, currency, shard) DO UPDATE
      SET credited = merchant_balances.credited + excluded.credited, debited = merchant_balances.debited + excluded.debited
  `.execute(db);
  });
}
