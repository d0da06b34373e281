import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../db/db.ts';
import { fetchPage, type PageRequest } from '../shared/pagination.ts';

/** The movements a merchant's balance can have; refunds and payouts post to the same accounts. */
export const BALANCE_SOURCE_TYPES = ['payment', 'refund', 'payout'] as const;
export type BalanceSourceType = (typeof BALANCE_SOURCE_TYPES)[number];

export interface BalanceFilters {
  sourceType?: BalanceSourceType;
  createdGte?: Date;
  createdLte?: Date;
}

/** One entry with the balance of its account after it, as both the list and the statement read it. */
export interface BalanceEntryRow {
  id: string;
  amount: string;
  currency: string;
  balance_after: string;
  source_type: string;
  source_id: string;
  created_at: Date;
}

/**
 * The filters as one SQL condition on an entry. They apply after the running sum: balance_after
 * is always the account's balance, never a subtotal of the filtered lines.
 */
function filterSql(f: BalanceFilters): RawBuilder<boolean> {
  const parts: RawBuilder<unknown>[] = [sql`TRUE`];
  if (f.sourceType !== undefined) parts.push(sql`source_type = ${f.sourceType}`);
  if (f.createdGte !== undefined) parts.push(sql`created_at >= ${f.createdGte}`);
  if (f.createdLte !== undefined) parts.push(sql`created_at <= ${f.createdLte}`);
  return sql<boolean>`(${sql.join(parts, sql` AND `)})`;
}

/**
 * A page of the accounts' entries, newest first by seq. Merchant-account entries are written
 * without a row lock, so their stored balance_after is NULL: it is the running sum over the
 * account in seq order, computed here over the whole account (filters come after it).
 * `accounts` are exact names (`merchant:<id>:<CUR>`): a LIKE prefix would read `_` in the
 * merchant id as a wildcard, and a text range depends on the database's collation.
 */
export async function listBalanceEntries(db: Db, accounts: string[], filters: BalanceFilters, page: PageRequest) {
  if (accounts.length === 0) return { rows: [] as BalanceEntryRow[], hasMore: false };
  const running = db
    .selectFrom('ledger_entries')
    .select(['id', 'amount', 'currency', 'source_type', 'source_id', 'created_at', 'seq'])
    .select(sql<string>`sum(amount) OVER (PARTITION BY account ORDER BY seq)::text`.as('balance_after'))
    .where('account', 'in', accounts);
  const query = db
    .selectFrom(running.as('e'))
    .select(['id', 'amount', 'currency', 'balance_after', 'source_type', 'source_id', 'created_at'])
    .where(filterSql(filters));
  const page_ = await fetchPage(query, { column: 'seq', keyOf: (cursor, side) => entryPosition(accounts, cursor, side) }, page);
  return { rows: page_.rows as BalanceEntryRow[], hasMore: page_.hasMore };
}

/**
 * The seq a cursor stands for: its own when it is an entry of these accounts; any other id
 * positions the page by its age (as wallets/store.ts does), never reading the other entry.
 */
function entryPosition(accounts: string[], cursor: string, side: 'starting_after' | 'ending_before'): RawBuilder<unknown> {
  const inAccounts = sql`account IN (${sql.join(accounts)})`;
  const own = sql`(SELECT seq FROM ledger_entries WHERE id = ${cursor} AND ${inAccounts})`;
  return side === 'starting_after'
    ? sql`coalesce(${own}, (SELECT min(seq) FROM ledger_entries WHERE ${inAccounts} AND id > ${cursor}), 9223372036854775807)`
    : sql`coalesce(${own}, (SELECT max(seq) FROM ledger_entries WHERE ${inAccounts} AND id < ${cursor}), 0)`;
}

/**
 * Where a statement starts: the newest seq of the accounts (the statement lists nothing newer,
 * so an entry committed during the download cannot appear above lines already sent) and each
 * account's balance up to it, read in one query so the two agree.
 */
export async function statementStart(db: Db, accounts: string[]) {
  if (accounts.length === 0) return { top: 0n, balances: new Map<string, bigint>() };
  const result = await sql<{ account: string; total: string; top: string }>`
    SELECT account, sum(amount)::text AS total, max(seq)::text AS top
    FROM ledger_entries WHERE account IN (${sql.join(accounts)}) GROUP BY account
  `.execute(db);
  let top = 0n;
  const balances = new Map<string, bigint>();
  for (const row of result.rows) {
    balances.set(row.account, BigInt(row.total));
    if (BigInt(row.top) > top) top = BigInt(row.top);
  }
  return { top, balances };
}

export interface StatementBatch {
  /** The listed entries, newest first; `newer` is the sum of the account's amounts from this entry (included) up to the batch's upper bound. */
  rows: Array<Omit<BalanceEntryRow, 'balance_after'> & { account: string; newer: string }>;
  /** Every entry of [lowest listed seq, below) per account, listed or not: what the next batch's balances start below. */
  spanTotals: Map<string, bigint>;
  /** The lowest listed seq: the next batch's exclusive upper bound. */
  lowest: bigint;
}

/**
 * The next `limit` filtered entries with seq < `below`, newest first, with what it takes to give
 * each its balance without summing the account from the start again: the account's running
 * amounts within the span the batch covers (filtered-out entries included). Each account is read
 * on its own (account, seq) index range, so no batch sorts the whole history. Null when none is left.
 */
export async function statementBatch(
  db: Db,
  accounts: string[],
  filters: BalanceFilters,
  below: bigint,
  limit: number,
): Promise<StatementBatch | null> {
  const where = filterSql(filters);
  const perAccount = accounts.map(
    (account) =>
      sql`(SELECT seq FROM ledger_entries WHERE account = ${account} AND seq < ${below} AND ${where} ORDER BY seq DESC LIMIT ${limit})`,
  );
  const bound = await sql<{ lowest: string | null }>`
    SELECT min(seq)::text AS lowest FROM (SELECT seq FROM (${sql.join(perAccount, sql` UNION ALL `)}) s ORDER BY seq DESC LIMIT ${limit}) b
  `.execute(db);
  const lowestText = bound.rows[0]?.lowest;
  if (lowestText === null || lowestText === undefined) return null;
  const lowest = BigInt(lowestText);
  const inSpan = sql`account IN (${sql.join(accounts)}) AND seq >= ${lowest} AND seq < ${below}`;
  const rows = await sql<StatementBatch['rows'][number]>`
    SELECT id, account, amount::text AS amount, currency, source_type, source_id, created_at, newer::text AS newer FROM (
      SELECT *, sum(amount) OVER (PARTITION BY account ORDER BY seq DESC) AS newer FROM ledger_entries WHERE ${inSpan}
    ) e
    WHERE ${where}
    ORDER BY seq DESC
  `.execute(db);
  const totals = await sql<{ account: string; total: string }>`
    SELECT account, sum(amount)::text AS total FROM ledger_entries WHERE ${inSpan} GROUP BY account
  `.execute(db);
  return { rows: rows.rows, spanTotals: new Map(totals.rows.map((t) => [t.account, BigInt(t.total)])), lowest };
}
