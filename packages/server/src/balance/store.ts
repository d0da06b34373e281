import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../db/db.ts';
import { present } from '../shared/invariant.ts';
import type { PageRequest } from '../shared/pagination.ts';

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
 * The filters as one SQL condition on an entry. They choose the lines, not the balances:
 * balance_after is always the account's balance, never a subtotal of the filtered lines.
 */
function filterSql(f: BalanceFilters): RawBuilder<boolean> {
  const parts: RawBuilder<unknown>[] = [sql`TRUE`];
  if (f.sourceType !== undefined) parts.push(sql`source_type = ${f.sourceType}`);
  if (f.createdGte !== undefined) parts.push(sql`created_at >= ${f.createdGte}`);
  if (f.createdLte !== undefined) parts.push(sql`created_at <= ${f.createdLte}`);
  return sql<boolean>`(${sql.join(parts, sql` AND `)})`;
}

/**
 * A page of the merchant's fund accounts' entries, newest first by seq, each with its account's
 * balance after it. Merchant-account entries are written without a row lock, so their stored
 * balance_after is NULL; the balance is worked back from the account's total, as the CSV
 * statement does, so a page reads its own entries and those newer than them, never the account's
 * whole history. Filters choose the lines; balance_after stays the account's balance.
 * Two statements: the page (listedEntries), then the balances (balancesAbove). On PostgreSQL the
 * caller runs them in one snapshot; PGlite runs transactions one after another, so no entry can
 * commit between them with a seq below one already read.
 */
export async function listBalanceEntries(db: Db, merchantId: string, accounts: string[], filters: BalanceFilters, page: PageRequest) {
  if (accounts.length === 0) return { rows: [] as BalanceEntryRow[], hasMore: false };
  const listed = await listedEntries(db, accounts, filters, page);
  const shown = listed.slice(0, page.limit);
  const lowest = shown.reduce<bigint | null>((min, row) => (min === null || BigInt(row.seq) < min ? BigInt(row.seq) : min), null);
  const above = lowest === null ? new Map<string, bigint>() : await balancesAbove(db, merchantId, accounts, lowest);
  const rows: BalanceEntryRow[] = shown.map(({ seq, account, ...row }) => ({
    ...row,
    balance_after: (present(above.get(`${account} ${seq}`), `balance at ${account} ${seq}`) + BigInt(row.amount)).toString(),
  }));
  if (page.endingBefore !== null) rows.reverse();
  return { rows, hasMore: listed.length > page.limit };
}

/**
 * The page's entries (one more than the limit, to tell has_more) in the page's order. Each account
 * is read on its own (account, seq) index range, so no page sorts the history of several
 * currencies. `accounts` are exact names (`merchant:<id>:<CUR>`): a LIKE prefix would read `_` in
 * the merchant id as a wildcard, and a text range depends on the database's collation.
 */
async function listedEntries(db: Db, accounts: string[], filters: BalanceFilters, page: PageRequest) {
  const dir = sql.raw(page.endingBefore === null ? 'DESC' : 'ASC');
  const bound =
    page.endingBefore !== null
      ? sql`seq > ${entryPosition(accounts, page.endingBefore, 'ending_before')}`
      : page.startingAfter !== null
        ? sql`seq < ${entryPosition(accounts, page.startingAfter, 'starting_after')}`
        : sql`TRUE`;
  const where = filterSql(filters);
  const take = page.limit + 1;
  const perAccount = accounts.map(
    (account) => sql`(SELECT id, account, amount, currency, source_type, source_id, created_at, seq::text AS seq FROM ledger_entries
      WHERE account = ${account} AND ${bound} AND ${where} ORDER BY ledger_entries.seq ${dir} LIMIT ${take})`,
  );
  const result = await sql<Omit<BalanceEntryRow, 'balance_after'> & { account: string; seq: string }>`
    SELECT * FROM (${sql.join(perAccount, sql` UNION ALL `)}) u ORDER BY seq::bigint ${dir} LIMIT ${take}
  `.execute(db);
  return result.rows;
}

/**
 * Each account's balance before each of its entries from `lowest` up (keyed "account seq"): the
 * merchant's funds row (merchant_balances: credited − debited, written in the same transactions
 * as the entries, so one statement sees both agree; verifyLedger checks it) less the entry's own
 * and every newer amount. `lowest` is a value, not a subquery, so the planner estimates the range
 * from it and reads the (account, seq) index backwards from the top.
 */
async function balancesAbove(db: Db, merchantId: string, accounts: string[], lowest: bigint): Promise<Map<string, bigint>> {
  const perAccount = accounts.map(
    (account) =>
      sql`(SELECT account, currency, seq, amount FROM ledger_entries WHERE account = ${account} AND seq >= ${lowest} ORDER BY seq DESC)`,
  );
  const result = await sql<{ key: string; before: string }>`
    WITH totals AS (
      SELECT currency, sum(credited) - sum(debited) AS total FROM merchant_balances WHERE merchant_id = ${merchantId} GROUP BY currency
    )
    SELECT s.account || ' ' || s.seq::text AS key,
      (coalesce(t.total, 0) - sum(s.amount) OVER (PARTITION BY s.account ORDER BY s.seq DESC))::text AS before
    FROM (${sql.join(perAccount, sql` UNION ALL `)}) s LEFT JOIN totals t ON t.currency = s.currency
  `.execute(db);
  return new Map(result.rows.map((r) => [r.key, BigInt(r.before)]));
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
