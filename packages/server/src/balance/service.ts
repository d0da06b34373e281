import type { Config } from '../config.ts';
import type { Db, DbHandle } from '../db/db.ts';
import { merchantAccount } from '../ledger/accounts.ts';
import type { AuthContext } from '../oauth/service.ts';
import { present } from '../shared/invariant.ts';
import type { PageRequest } from '../shared/pagination.ts';
import { csvRecord } from './csv.ts';
import { type BalanceFilters, listBalanceEntries, statementBatch, statementStart } from './store.ts';
import { balanceTransactionView, STATEMENT_COLUMNS, statementLine } from './view.ts';

export interface Statement {
  first: string;
  rest: AsyncGenerator<string>;
}

/** Entries read per statement query: the most the server holds of a download at once. */
export const STATEMENT_BATCH = 1_000;

export function createBalanceTransactionService(deps: { db: DbHandle; config: Pick<Config, 'currencies'> }) {
  const { db, config } = deps;

  /** The merchant's fund accounts: one per configured currency, or the one asked for. */
  const accountsOf = (auth: AuthContext, currency: string | undefined): string[] =>
    (currency === undefined ? config.currencies : [currency]).map((c) => merchantAccount(auth.merchantId, c));

  return {
    async listBalanceTransactions(auth: AuthContext, filters: BalanceFilters & { currency?: string }, page: PageRequest) {
      const accounts = accountsOf(auth, filters.currency);
      const read = (on: Db) => listBalanceEntries(on, auth.merchantId, accounts, filters, page);
      // Two statements (the page, then its balances) in one snapshot on PostgreSQL (see listBalanceEntries).
      const { rows, hasMore } =
        db.kind === 'postgres'
          ? await db.db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(read)
          : await read(db.db);
      return { object: 'list' as const, data: rows.map(balanceTransactionView), has_more: hasMore };
    },

    /**
     * The CSV statement of the whole filtered range, newest first, one chunk per batch. Its start
     * (the header row, after the balances are read) is read before this returns, so a failing
     * database is still an error response rather than a cut download. The caller must end `rest`
     * (iterate it to the end, or call its return()) even if it sends nothing more: on PostgreSQL
     * it holds the statement's snapshot.
     */
    async openStatement(auth: AuthContext, filters: BalanceFilters & { currency?: string }): Promise<Statement> {
      const accounts = accountsOf(auth, filters.currency);
      const rest =
        db.kind === 'postgres'
          ? inSnapshot(db.db, (trx) => statementChunks(trx, accounts, filters))
          : statementChunks(db.db, accounts, filters);
      const first = await rest.next();
      return { first: first.done ? '' : first.value, rest };
    },
  };
}

/**
 * The statement, newest first, holding one batch at a time. Each entry's balance_after is its
 * account's balance at the top of the statement minus every newer amount of that account: the
 * balances are carried from batch to batch (less each batch's span, listed or filtered out), so
 * the chain is exact across batch boundaries without summing the history again per batch.
 */
async function* statementChunks(db: Db, accounts: string[], filters: BalanceFilters): AsyncGenerator<string> {
  const start = await statementStart(db, accounts);
  yield csvRecord(STATEMENT_COLUMNS);
  const balances = start.balances;
  for (let below = start.top + 1n; ; ) {
    const batch = await statementBatch(db, accounts, filters, below, STATEMENT_BATCH);
    if (!batch) return;
    let chunk = '';
    for (const row of batch.rows) {
      const atTop = present(balances.get(row.account), `balance of ${row.account}`);
      // newer counts this entry itself: the balance after it is the top less what came later.
      chunk += statementLine(row, atTop - BigInt(row.newer) + BigInt(row.amount));
    }
    for (const [account, total] of batch.spanTotals) {
      balances.set(account, present(balances.get(account), `balance of ${account}`) - total);
    }
    below = batch.lowest;
    yield chunk;
  }
}

/**
 * Runs `body` in one REPEATABLE READ snapshot (PostgreSQL): a statement's batches are separate
 * queries, and an entry committed during the download with a seq below the pinned top (its
 * nextval drawn before, its commit after) would otherwise appear in a later batch and break the
 * chain. PGlite has one connection and runs transactions one after another, so there a seq
 * below the top is always committed before the statement starts; holding its only connection
 * for a whole download would stop every other request, so it reads batch by batch instead.
 * The transaction ends when the generator does: finished, failed, or closed by a client that left.
 */
async function* inSnapshot(db: Db, body: (trx: Db) => AsyncGenerator<string>): AsyncGenerator<string> {
  let finish: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let opened: (trx: Db) => void = () => {};
  const ready = new Promise<Db>((resolve) => {
    opened = resolve;
  });
  const done = db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (trx) => {
      opened(trx);
      await released;
    });
  const trx = await Promise.race([ready, done.then(() => Promise.reject(new Error('statement snapshot ended before it was used')))]);
  try {
    yield* body(trx);
  } finally {
    finish();
    await done;
  }
}

export type BalanceTransactionService = ReturnType<typeof createBalanceTransactionService>;
