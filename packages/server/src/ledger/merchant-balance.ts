import { randomInt } from 'node:crypto';
import { type RawBuilder, sql } from 'kysely';
import { after, type Cte } from '../db/cte.ts';
import type { Db } from '../db/db.ts';

/**
 * The merchant's balance rows (migration 006), the only place they move. Payments credit a
 * random shard 1–15; refunds and payouts lock shard 0 and decide there, in their own statement:
 * available = sum(credited) − debited, and the outflow adds to debited (and reserved while it is
 * pending) only when available covers it. The credits are read without a lock, from the
 * statement's snapshot: one committed meanwhile is missed, which only understates the funds,
 * while debited is read from the locked row and is always current. So concurrent outflows can
 * never take more than was credited.
 */

const SHARDS = 16;
/** A payment's shard: never 0, the outflows' row (see migration 006 on lock order). */
export const creditShard = (): number => 1 + randomInt(SHARDS - 1);

/**
 * `INSERT … ON CONFLICT DO UPDATE`: credits the merchants' funds with the rows of `from` that
 * pass `where`, summed per merchant, currency and shard (an upsert may change a row only once
 * per statement), taking the rows in (merchant, currency, shard) order, the global lock order
 * (db/lock-order.ts): the upsert handles its input rows one by one, in the order they come.
 */
export function merchantCredit(p: {
  from: RawBuilder<unknown>;
  merchantId: RawBuilder<unknown>;
  currency: RawBuilder<unknown>;
  shard: RawBuilder<unknown>;
  amount: RawBuilder<unknown>;
  where: RawBuilder<unknown>;
}): RawBuilder<unknown> {
  return sql`INSERT INTO merchant_balances (merchant_id, currency, shard, credited)
      SELECT m, c, s, sum(a)::bigint
      FROM (SELECT ${p.merchantId} AS m, ${p.currency} AS c, ${p.shard}::smallint AS s, ${p.amount} AS a FROM ${p.from} WHERE ${p.where}) x
      GROUP BY m, c, s ORDER BY m, c, s
      ON CONFLICT (merchant_id, currency, shard) DO UPDATE SET credited = merchant_balances.credited + excluded.credited`;
}

/**
 * `SELECT … FOR UPDATE` of shard 0 of the merchants `merchantIds` in the currencies `currencies`
 * (SQL arrays; every pair of them, a superset of the pairs the items name: the caller joins on
 * both), locked in (merchant, currency) order after the CTE `after`, with `debited` (locked,
 * current) and `credited` (all shards, the statement's snapshot). A pair without a row has none
 * here (ensureFundsRow, then run again). Values only in the condition (see wallets/store.ts lockWalletsSql).
 */
export function lockFunds(p: { merchantIds: RawBuilder<unknown>; currencies: RawBuilder<unknown>; after: Cte }): RawBuilder<unknown> {
  return sql`SELECT b.merchant_id, b.currency, b.debited, (SELECT coalesce(sum(a.credited), 0) FROM merchant_balances a
        WHERE a.merchant_id = b.merchant_id AND a.currency = b.currency) AS credited
      FROM merchant_balances b
      WHERE b.merchant_id = ANY (${p.merchantIds}::text[]) AND b.currency = ANY (${p.currencies}::text[]) AND b.shard = 0
        AND ${after(p.after)}
      ORDER BY b.merchant_id, b.currency FOR UPDATE`;
}

/**
 * `UPDATE` shard 0 for each row of `from` that passes `where`, summed per merchant and currency
 * (an UPDATE changes a row once per statement): `amount` out of the available funds, `held` of it
 * into reserved (a pending outflow). The caller has checked, on the rows lockFunds locked, that
 * the sums are covered.
 */
export function holdFunds(p: {
  from: RawBuilder<unknown>;
  merchantId: RawBuilder<unknown>;
  currency: RawBuilder<unknown>;
  amount: RawBuilder<unknown>;
  held: RawBuilder<unknown>;
  where: RawBuilder<unknown>;
}): RawBuilder<unknown> {
  return sql`UPDATE merchant_balances SET debited = merchant_balances.debited + g.amount, reserved = merchant_balances.reserved + g.held
      FROM (SELECT m, c, sum(a)::bigint AS amount, sum(h)::bigint AS held
        FROM (SELECT ${p.merchantId} AS m, ${p.currency} AS c, ${p.amount} AS a, ${p.held} AS h FROM ${p.from} WHERE ${p.where}) x
        GROUP BY m, c) g
      WHERE merchant_balances.merchant_id = g.m AND merchant_balances.currency = g.c AND merchant_balances.shard = 0
      RETURNING merchant_balances.debited`;
}

/**
 * `UPDATE` shard 0 when a pending outflow ends: its amount leaves reserved, and, when `returned`
 * (it failed), goes back to the available funds. Expressions may name columns of `from`.
 */
export function releaseFunds(p: {
  from: RawBuilder<unknown>;
  merchantId: RawBuilder<unknown>;
  currency: RawBuilder<unknown>;
  amount: RawBuilder<unknown>;
  returned: RawBuilder<unknown>;
  where: RawBuilder<unknown>;
}): RawBuilder<unknown> {
  return sql`UPDATE merchant_balances SET reserved = reserved - ${p.amount},
        debited = debited - CASE WHEN ${p.returned} THEN ${p.amount} ELSE 0 END
      FROM ${p.from}
      WHERE merchant_balances.merchant_id = ${p.merchantId} AND merchant_balances.currency = ${p.currency}
        AND merchant_balances.shard = 0 AND ${p.where}
      RETURNING merchant_balances.debited`;
}

/** Shard 0 for an outflow that found none: idempotent, so concurrent first outflows agree. */
export async function ensureFundsRow(db: Db, merchantId: string, currency: string): Promise<void> {
  await sql`INSERT INTO merchant_balances (merchant_id, currency, shard) VALUES (${merchantId}, ${currency}, 0)
    ON CONFLICT (merchant_id, currency, shard) DO NOTHING`.execute(db);
}

/** Per currency: what outflows may use now, and what pending ones hold. */
export async function merchantFunds(db: Db, merchantId: string) {
  const result = await sql<{ currency: string; available: string; reserved: string }>`
    SELECT currency, (sum(credited) - sum(debited))::text AS available, sum(reserved)::text AS reserved
    FROM merchant_balances WHERE merchant_id = ${merchantId} GROUP BY currency ORDER BY currency`.execute(db);
  return result.rows.map((r) => ({ currency: r.currency, available: BigInt(r.available), reserved: BigInt(r.reserved) }));
}
