import type { CompiledQuery, QueryResult, RawBuilder } from 'kysely';
import type pg from 'pg';
import { present } from '../shared/invariant.ts';
import type { DbHandle } from './db.ts';

/**
 * Group commit for money writes. Each money write is ONE statement (the wallet payment, a
 * claim, a settlement, an outflow, a transfer); run alone, each pays a commit: a WAL flush and
 * a round trip of its own. Here the statements that arrive while a lane's batch is in flight
 * wait for it, and the next batch runs them in ONE transaction on one connection, in arrival
 * order, each sent as soon as the previous one is answered, then ONE commit. Writes that can
 * (MergedWrite: wallet payments, claims, settlements, outflows, transfers) go further: the
 * batch's items of that write run as ONE multi-row statement, and a batch that is one such
 * statement needs no transaction around it.
 * Self-clocking: an idle lane runs a lone statement at once, as before; under load the batches
 * grow by themselves, up to `maxBatch`.
 *
 * What each caller still gets (test/db/group-commit.test.ts, and a broken-on-purpose executor per promise in test/):
 * - its own result, and only after COMMIT has returned: nothing is answered that a crash could
 *   still undo;
 * - its own outcome: when any statement of a batch fails (a taken reference, a deadlock), the
 *   batch is rolled back and every statement of it is run again alone, in order, each
 *   committing or failing by itself, so one request's error is never another's;
 * - arrival order: statements of one lane run in the order they were submitted, so two payments
 *   from one wallet see each other's debit (the later one fails insufficient_funds if the first
 *   took what it needed), exactly as if they had come one after the other.
 *
 * Lanes keep batches from deadlocking each other: a statement names the lane it belongs to
 * (its wallet, or its merchant for outflows), so the rows one lane's batch locks (those wallets,
 * and `shard`, the merchant-balance shard its credits go to) are never locked by another lane's
 * batch. What still can cross lanes (a wallet refund crediting a wallet another lane is
 * debiting) ends, at worst, in PostgreSQL's deadlock detection: one batch fails, rolls back and
 * runs its statements alone. Transfers cross lanes by nature (two wallets): their statements
 * lock in one global order and commit alone (MergedWrite.alone), so they never deadlock each other.
 */
export interface GroupCommit {
  /** The lane for `key` (a wallet or merchant id): where that key's writes run, and its shard. */
  lane(key: string): WriteLane;
  /** Every statement submitted has been answered (tests, shutdown). */
  idle(): Promise<void>;
}

export interface WriteLane {
  /** Runs `statement`; resolves with its rows once the transaction that holds it has committed. */
  write<R>(statement: RawBuilder<R>): Promise<QueryResult<R>>;
  /**
   * Runs `item` as one row of `write`'s statement, merged with the other items of that write in
   * the batch; resolves with the item's own returned row once the batch has committed.
   */
  merge<Item, Row extends { id: string }>(write: MergedWrite<Item, Row>, item: Item): Promise<Row>;
  /**
   * The merchant-balance shard this lane's credits go to (1–15: shard 0 is the outflows'), or
   * undefined (no lanes) for a random one.
   */
  readonly shard: number | undefined;
}

export interface GroupCommitOptions {
  /** Parallel lanes (each holds one connection while its batch runs); 0 runs every write alone. */
  lanes: number;
  /** Most statements in one batch. */
  maxBatch: number;
  /** Called after each batch (its size and whether it fell back), for metrics and tests. */
  onBatch?: (size: number, fellBack: boolean) => void;
  /**
   * Runs a batch on its connection: executeBatch, unless the wiring chooses another (the tests'
   * broken-on-purpose executors, which prove the group-commit checks can fail).
   */
  execute?: BatchExecutor;
}

/** What a batch executor is given besides the batch: how to run a unit, and whom to tell about the batch. */
export interface BatchContext {
  /** Each of the unit's answers, in the unit's order: a statement's result, or each merged item's row (or an Error). */
  runUnit(client: pg.PoolClient, unit: Unit): Promise<unknown[]>;
  /** A statement alone, in its own implicit transaction, answered with its own result. */
  runAlone(client: pg.PoolClient, item: Pending): Promise<void>;
  onBatch?: (size: number, fellBack: boolean) => void;
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

/**
 * The batch as statements, in arrival order (exported for its test). A merged item joins the open
 * statement of its write unless its key is in that statement or in any statement opened after it
 * (then it opens the next one: a payment never runs before a top-up credit of its wallet that came
 * first); any other statement closes every open one, so nothing submitted later runs before it.
 */
export function planUnits(batch: Pending[]): Unit[] {
  const units: Unit[] = [];
  const open = new Map<MergedWrite<unknown, { id: string }>, { unit: Extract<Unit, { items: Pending[] }>; index: number }>();
  /** Each key's latest statement, by its index in `units`. */
  const lastOf = new Map<string, number>();
  for (const item of batch) {
    if (!item.merged) {
      open.clear();
      units.push({ single: item });
      continue;
    }
    const own = item.merged.key(item.item);
    const keys = typeof own === 'string' ? [own] : own;
    const touched = item.merged.touches?.(item.item) ?? [];
    let current = open.get(item.merged);
    // Its own keys: not in this statement nor a later one. A touched key: not in a later one, nor
    // an own key of this one (a row one item changes, another may not change again).
    const blocked = (unit: { unit: { keys: Set<string> }; index: number }) =>
      keys.some((k) => (lastOf.get(k) ?? -1) >= unit.index) ||
      touched.some((k) => (lastOf.get(k) ?? -1) > unit.index || unit.unit.keys.has(k));
    if (!current || blocked(current)) {
      current = { unit: { merged: item.merged, items: [], keys: new Set() }, index: units.length };
      open.set(item.merged, current);
      units.push(current.unit);
    }
    current.unit.items.push(item);
    for (const k of keys) {
      current.unit.keys.add(k);
      lastOf.set(k, current.index);
    }
    for (const k of touched) lastOf.set(k, current.index);
  }
  return units;
}

/**
 * The items of `batch` that wait for the next batch (in arrival order): when the batch is more
 * than one statement and one of them is of an `alone` write, every item after the first
 * statement. A statement that locks its rows in one global order (the transfers' wallets, in id
 * order) and commits by itself can never deadlock with another such statement; inside a
 * transaction that already holds other rows, it could. Planning keeps the order promises: an item
 * joined the first statement only if nothing before it that it must follow is left for later.
 */
export function deferredItems(batch: Pending[]): Pending[] {
  // Most batches hold no such write: not planned twice.
  if (!batch.some((item) => item.merged?.alone)) return [];
  const units = planUnits(batch);
  const first = units[0];
  if (!first || units.length < 2) return [];
  const now = new Set('single' in first ? [first.single] : first.items);
  return batch.filter((item) => !now.has(item));
}

const MERCHANT_SHARDS = 15;

/** FNV-1a: a stable, cheap spread of ids over lanes. */
function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const run = (client: pg.PoolClient, query: CompiledQuery): Promise<QueryResult<unknown>> =>
  client.query(query.sql, query.parameters as unknown[]).then((result) => ({ rows: result.rows }));

/** Each unit's answers, in the unit's order: a statement's result, or each merged item's row. */
async function runUnit(client: pg.PoolClient, unit: Unit, textOf: (write: MergedWrite<unknown, { id: string }>) => string) {
  if ('single' in unit) return [await run(client, unit.single.query as CompiledQuery)];
  const write = unit.merged;
  const items = unit.items.map((p) => (p as Extract<Pending, { item: unknown }>).item);
  const result = await client.query<{ id: string }>(textOf(write), write.columns(items));
  const byId = new Map(result.rows.map((row) => [row.id, row]));
  // A missing row (not optional) is a bug of the statement's; it has run (and may have committed): never run it again.
  return items.map(
    (item) => byId.get(write.id(item)) ?? (write.optional ? undefined : new Error(`merged write returned no row for ${write.id(item)}`)),
  );
}

/** Answers every item of the units with its own result, in order. */
export function answerUnits(units: Unit[], results: unknown[][]): void {
  for (const [i, unit] of units.entries()) {
    const items = 'single' in unit ? [unit.single] : unit.items;
    for (const [j, item] of items.entries()) {
      const result = results[i]?.[j];
      if (result instanceof Error) item.reject(result);
      else item.resolve(result as never);
    }
  }
}

/**
 * The batch on one connection: one statement (atomic by itself, no transaction around it), or
 * one transaction, or, when one of its statements fails, each item alone, in order, with its own
 * fate. Every item is answered only after what holds it has committed.
 */
export async function executeBatch(client: pg.PoolClient, batch: Pending[], context: BatchContext): Promise<void> {
  const units = planUnits(batch);
  if (units.length === 1) {
    try {
      answerUnits(units, [await context.runUnit(client, units[0] as Unit)]);
      context.onBatch?.(batch.length, false);
      return;
    } catch (reason) {
      if (batch.length === 1) {
        for (const item of batch) item.reject(reason);
        context.onBatch?.(batch.length, false);
        return;
      }
    }
    // One item failed the merged statement, which changed nothing: each runs again alone.
    for (const item of batch) await context.runAlone(client, item);
    context.onBatch?.(batch.length, true);
    return;
  }
  await client.query('BEGIN');
  const results: unknown[][] = [];
  try {
    for (const unit of units) results.push(await context.runUnit(client, unit));
  } catch {
    await client.query('ROLLBACK');
    // One statement failed and the batch is undone: each runs again alone, in order, with its own fate.
    for (const item of batch) await context.runAlone(client, item);
    context.onBatch?.(batch.length, true);
    return;
  }
  // If COMMIT fails, its fate is unknown (the connection died) or nothing was written: nobody has
  // been answered, and the caller rejects every statement of the batch.
  await client.query('COMMIT');
  answerUnits(units, results);
  context.onBatch?.(batch.length, false);
}

export function createGroupCommit(handle: Pick<DbHandle, 'db' | 'pool'>, options: GroupCommitOptions): GroupCommit {
  const { db, pool } = handle;
  const { maxBatch, onBatch } = options;
  const execute = options.execute ?? executeBatch;
  let inFlight = 0;
  const idleWaiters: (() => void)[] = [];

  const settled = () => {
    if (--inFlight > 0) return;
    for (const wake of idleWaiters.splice(0)) wake();
  };

  /** Compiled once per merged write: its text has no values of its own. */
  const texts = new Map<MergedWrite<unknown, { id: string }>, string>();
  const textOf = (write: MergedWrite<unknown, { id: string }>): string => {
    let text = texts.get(write);
    if (text === undefined) {
      const compiled = write.statement.compile(db);
      if (compiled.parameters.length > 0) throw new Error('a merged write carries values of its own');
      text = `/* ${write.name.replace(/[^a-z ]/gi, '')} */ ${compiled.sql}`;
      texts.set(write, text);
    }
    return text;
  };

  const context: BatchContext = {
    runUnit: (client, unit) => runUnit(client, unit, textOf),
    runAlone: (client, item) =>
      runUnit(client, item.merged ? { merged: item.merged, items: [item], keys: new Set() } : { single: item }, textOf).then(
        ([result]) => (result instanceof Error ? item.reject(result) : item.resolve(result as never)),
        item.reject,
      ),
    ...(onBatch ? { onBatch } : {}),
  };

  async function runBatch(batch: Pending[]): Promise<void> {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await execute(client, batch, context);
    } catch (error) {
      broken = error as Error;
      throw error;
    } finally {
      // A connection that failed mid-batch is not given back to the pool in an unknown state.
      client.release(broken);
    }
  }

  function makeLane(index: number): WriteLane {
    const queue: Pending[] = [];
    let running = false;
    async function drain(): Promise<void> {
      running = true;
      try {
        while (queue.length > 0) {
          // One turn of the event loop first: requests already read and validated reach the queue
          // and join this batch (the embedded database runs each statement synchronously on this
          // thread, so without it they could never arrive while a batch is being formed).
          await new Promise(setImmediate);
          let batch = queue.splice(0, maxBatch);
          const later = deferredItems(batch);
          if (later.length > 0) {
            const waiting = new Set(later);
            batch = batch.filter((item) => !waiting.has(item));
            queue.unshift(...later);
          }
          // A batch that failed as a whole (no connection, a failed COMMIT) fails its own
          // statements, never the lane; a promise already settled ignores the second call.
          await runBatch(batch).catch((error: unknown) => {
            for (const item of batch) item.reject(error);
          });
        }
      } finally {
        running = false;
      }
    }
    return {
      shard: 1 + (index % MERCHANT_SHARDS),
      write<R>(statement: RawBuilder<R>): Promise<QueryResult<R>> {
        return submit({ query: statement.compile(db) });
      },
      merge<Item, Row extends { id: string }>(write: MergedWrite<Item, Row>, item: Item): Promise<Row> {
        return submit({ merged: write as unknown as MergedWrite<unknown, { id: string }>, item });
      },
    };
    function submit<T>(work: Pick<Pending, 'query'> | { merged: MergedWrite<unknown, { id: string }>; item: unknown }): Promise<T> {
      inFlight++;
      return new Promise<T>((resolve, reject) => {
        queue.push({ ...work, resolve, reject } as Pending);
        if (!running) void drain();
      }).finally(settled);
    }
  }

  /** Lanes off: every statement alone on the pool, credits on a random shard (as without group commit). */
  const direct: WriteLane = {
    shard: undefined,
    write<R>(statement: RawBuilder<R>): Promise<QueryResult<R>> {
      inFlight++;
      return statement.execute(db).finally(settled);
    },
    async merge<Item, Row extends { id: string }>(write: MergedWrite<Item, Row>, item: Item): Promise<Row> {
      inFlight++;
      try {
        const text = textOf(write as unknown as MergedWrite<unknown, { id: string }>);
        const result = await pool.query<Row>(text, write.columns([item]));
        return write.optional ? (result.rows[0] as Row) : present(result.rows[0], 'merged write row');
      } finally {
        settled();
      }
    },
  };
  const lanes = Array.from({ length: options.lanes }, (_, i) => makeLane(i));

  return {
    lane: (key: string): WriteLane => (lanes.length === 0 ? direct : (lanes[hashOf(key) % lanes.length] as WriteLane)),
    idle: () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
  };
}
