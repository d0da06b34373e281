import { type RawBuilder, sql } from 'kysely';
import { after, type Cte } from '../db/cte.ts';
import type { Db } from '../db/db.ts';
import { walletAccount } from '../ledger/accounts.ts';
import { fetchPage, type PageRequest } from '../shared/pagination.ts';

export type WalletRow = Awaited<ReturnType<typeof findWallet>> & {};

export async function insertWallet(
  db: Db,
  row: {
    id: string;
    merchantId: string;
    currency: string;
    reference: string | null;
    fingerprint: Record<string, string>;
    holder: unknown;
    metadata: unknown;
    livemode: boolean;
    now: Date;
  },
) {
  return db
    .insertInto('wallets')
    .values({
      id: row.id,
      merchant_id: row.merchantId,
      currency: row.currency,
      reference: row.reference,
      request_fingerprint: JSON.stringify(row.fingerprint),
      holder: JSON.stringify(row.holder),
      metadata: JSON.stringify(row.metadata),
      status: 'active',
      balance: 0n,
      livemode: row.livemode,
      created_at: row.now,
      updated_at: row.now,
    })
    .onConflict((oc) => oc.columns(['merchant_id', 'reference']).where('reference', 'is not', null).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function findWallet(db: Db, merchantId: string, id: string) {
  return db.selectFrom('wallets').selectAll().where('id', '=', id).where('merchant_id', '=', merchantId).executeTakeFirst();
}

export async function findWalletByReference(db: Db, merchantId: string, reference: string) {
  return db.selectFrom('wallets').selectAll().where('merchant_id', '=', merchantId).where('reference', '=', reference).executeTakeFirst();
}

export async function listWallets(db: Db, merchantId: string, page: PageRequest) {
  return fetchPage(db.selectFrom('wallets').selectAll().where('merchant_id', '=', merchantId), 'id', page);
}

export async function setWalletStatus(db: Db, merchantId: string, id: string, status: 'active' | 'inactive', now: Date) {
  return db
    .updateTable('wallets')
    .set({ status, updated_at: now })
    .where('id', '=', id)
    .where('merchant_id', '=', merchantId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * The wallet's lines in the order they were applied (seq, drawn under the wallet's row lock),
 * so each balance_after follows from the line below it. Ids and created_at are taken before
 * the statement and may disagree under concurrency.
 */
export async function listWalletEntries(db: Db, walletId: string, page: PageRequest) {
  const account = walletAccount(walletId);
  return fetchPage(
    db
      .selectFrom('ledger_entries')
      .select(['id', 'amount', 'currency', 'balance_after', 'source_type', 'source_id', 'created_at'])
      .where('account', '=', account),
    { column: 'seq', keyOf: (cursor, side) => entryPosition(account, cursor, side) },
    page,
  );
}

/**
 * The seq a cursor stands for: its own seq when it is a line of this wallet. Any other id
 * (unknown, another wallet's, another merchant's) positions the page by its age, as the id
 * order did: after the lines newer than it (starting_after), or before the older ones
 * (ending_before), and past the end when there are none. It never reads the other line.
 */
function entryPosition(account: string, cursor: string, side: 'starting_after' | 'ending_before'): RawBuilder<unknown> {
  const own = sql`(SELECT seq FROM ledger_entries WHERE id = ${cursor} AND account = ${account})`;
  return side === 'starting_after'
    ? sql`coalesce(${own}, (SELECT min(seq) FROM ledger_entries WHERE account = ${account} AND id > ${cursor}), 9223372036854775807)`
    : sql`coalesce(${own}, (SELECT max(seq) FROM ledger_entries WHERE account = ${account} AND id < ${cursor}), 0)`;
}

/** Collected funds per currency: the sum of the merchant's append-only entries. */
export async function sumAccounts(db: Db, accounts: string[]) {
  if (accounts.length === 0) return [];
  return db
    .selectFrom('ledger_entries')
    .select(['currency', sql<string>`sum(amount)`.as('total')])
    .where('account', 'in', accounts)
    .groupBy('currency')
    .orderBy('currency')
    .execute();
}

/**
 * `SELECT status FROM wallets …` for statements that must tell a frozen wallet from a poor one;
 * the ids are expressions over the statement's rows (no row: not the merchant's).
 */
export function walletStatusSql(merchantId: RawBuilder<unknown>, walletId: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`SELECT status FROM wallets WHERE id = ${walletId} AND merchant_id = ${merchantId}`;
}

/**
 * `SELECT id, merchant_id, status … FOR UPDATE` of the wallets `ids` (an SQL array, e.g.
 * `(SELECT array_agg(…) FROM input)`), in id order, after the CTE `after` when given (the
 * statement's earlier locks first). Every statement locking several wallets in the same order
 * means two of them never each hold a row the other waits for. The caller joins the rows on id
 * and merchant. The condition is values only (no join), so a row another transaction changed
 * meanwhile is re-checked on its new version by nothing but its id: it is always locked.
 */
export function lockWalletsSql(p: { ids: RawBuilder<unknown>; after: Cte | null }): RawBuilder<unknown> {
  return sql`SELECT w.id, w.merchant_id, w.status FROM wallets w
      WHERE w.id = ANY (${p.ids}::text[])${p.after ? sql` AND ${after(p.after)}` : sql``}
      ORDER BY w.id FOR UPDATE`;
}
