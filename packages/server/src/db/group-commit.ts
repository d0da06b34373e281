import type { CompiledQuery, QueryResult, RawBuilder } from 'kysely';
import type pg from 'pg';
import { present } from '../shared/invariant.ts';
import { deferredItems, executeBatch, runAlone } from './batch-executor.ts';
import type { BatchContext, BatchExecutor, MergedWrite, Pending, Unit } from './batch-types.ts';
import type { DbHandle } from './db.ts';

export { answerUnits, deferredItems, executeBatch, planUnits } from './batch-executor.ts';
export type { BatchContext, BatchExecutor, MergedWrite, Pending, Unit } from './batch-types.ts';

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
 * batch of this process. Other processes' lanes (and what crosses lanes here: a wallet refund
 * crediting a wallet another lane is debiting, a transfer's two wallets) can meet the same rows:
 * every batch takes its row locks in one global order (db/lock-order.ts), so no two batches wait
 * for each other in a cycle. A deadlock or serialization failure that still happens (PostgreSQL
 * detects it and undoes one side) runs the batch again: its statements are idempotent by
 * reference, and nothing of it was written. It never reaches a caller unless it keeps recurring.
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
  /** A deadlock or serialization failure made a batch or a statement run again (metrics). */
  onConflict?: (error: unknown) => void;
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
    runAlone: (client, item) => runAlone(item, (unit) => runUnit(client, unit, textOf), options.onConflict),
    ...(onBatch ? { onBatch } : {}),
    ...(options.onConflict ? { onConflict: options.onConflict } : {}),
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
