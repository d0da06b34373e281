import type { CompiledQuery, RawBuilder } from 'kysely';
import type pg from 'pg';
import type { RowLocks } from './lock-order.ts';

// The shapes the group commit (group-commit.ts) and its batch executor (batch-executor.ts) share.

/** What a batch executor is given besides the batch: how to run a unit, and whom to tell about the batch. */
export interface BatchContext {
  /** Each of the unit's answers, in the unit's order: a statement's result, or each merged item's row (or an Error). */
  runUnit(client: pg.PoolClient, unit: Unit): Promise<unknown[]>;
  /** A statement alone, in its own implicit transaction, answered with its own result. */
  runAlone(client: pg.PoolClient, item: Pending): Promise<void>;
  onBatch?: (size: number, fellBack: boolean) => void;
  /** A deadlock or serialization failure undid the batch, which runs again (metrics). */
  onConflict?: (error: unknown) => void;
}

/** Runs `batch` on `client` and answers each of its items. */
export type BatchExecutor = (client: pg.PoolClient, batch: Pending[], context: BatchContext) => Promise<void>;

/**
 * A write whose items, when several are in one batch, run as ONE statement: one round trip, one
 * plan, one set of index insertions per table for the whole batch. The statement reads its items
 * from array parameters ($1…$n, one array per column, one element per item: `unnest`) and returns
 * one row per item, with the item's `id`.
 *
 * Two items with the same `key` (a wallet) are never in one statement: a row can be updated only
 * once by a statement, and the later item must see the earlier one's effect. The second goes in the
 * next statement of the same transaction, so items of one key still run in arrival order.
 */
export interface MergedWrite<Item, Row extends { id: string }> {
  /** Named in the statement's leading comment (logs, pg_stat_activity). Letters and spaces. */
  readonly name: string;
  /** The statement text's source: only `$1`…`$n` parameters (sql.raw), no values of its own. */
  readonly statement: RawBuilder<Row>;
  /** The parameters for these items: one array per `$i`, in order, one element per item. */
  columns(items: readonly Item[]): unknown[][];
  /**
   * Items with a key in common go in separate statements, in arrival order. Several keys: the
   * item changes each of those rows (a transfer: both its wallets).
   */
  key(item: Item): string | readonly string[];
  /**
   * Keys the item shares with other writes' items without changing the same row twice (a wallet
   * an outflow credits, summed with the statement's other credits of it): items of this write may
   * share them in one statement, but the item never runs before another write's item of one of
   * them that came first.
   */
  touches?(item: Item): readonly string[];
  /**
   * The existing rows the item changes (db/lock-order.ts): a batch that holds several statements,
   * or several items of a write that does not lock in key order itself, locks them all first, in
   * the one global order. Absent: the item changes no existing row (it only inserts).
   */
  locks?(item: Item): RowLocks;
  /** Its statement takes its rows in the global order by itself, however many items it holds (SELECT … ORDER BY … FOR UPDATE). */
  readonly lockedInOrder?: boolean;
  /** The id of the row the statement returns for this item. */
  id(item: Item): string;
  /** An item may have no row (ON CONFLICT DO NOTHING, a condition): it is answered undefined. */
  readonly optional?: boolean;
  /**
   * Its statements never share a transaction with another statement: a batch that would need
   * more than one runs only its first and leaves the rest for the next batch (see splitBatch).
   */
  readonly alone?: boolean;
}

export type Pending = {
  resolve: (result: never) => void;
  reject: (error: unknown) => void;
} & ({ query: CompiledQuery; merged?: undefined } | { merged: MergedWrite<unknown, { id: string }>; item: unknown; query?: undefined });

/** What a batch runs, in order: a statement of its own, or the items of one merged write (and their own keys). */
export type Unit = { single: Pending } | { merged: MergedWrite<unknown, { id: string }>; items: Pending[]; keys: Set<string> };
