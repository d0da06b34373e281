import type { CompiledQuery, QueryResult, RawBuilder } from 'kysely';
import type pg from 'pg';
import type { DbHandle } from './db.ts';

/**
 * Group commit for money writes. Each money write is ONE statement (the wallet payment, a
 * claim, a settlement, an outflow, a transfer); run alone, each pays a commit: a WAL flush and
 * a round trip of its own. Here the statements that arrive while a lane's batch is in flight
 * wait for it, and the next batch runs them in ONE transaction on one connection, in arrival
 * order, each sent as soon as the previous one is answered, then ONE commit. Self-clocking: an idle lane runs a lone statement at once, as
 * before; under load the batches grow by themselves, up to `maxBatch`.
 *
 * What each caller still gets (tests/db/group-commit.test.ts, with negative controls):
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
 * runs its statements alone.
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
  /** Negative controls (tests only): WRONG ON PURPOSE, each breaks one promise above. */
  negativeControl?: 'no-fallback' | 'reversed' | 'answer-before-commit' | null;
}

interface Pending {
  query: CompiledQuery;
  resolve: (result: QueryResult<unknown>) => void;
  reject: (error: unknown) => void;
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

export function createGroupCommit(handle: Pick<DbHandle, 'db' | 'pool'>, options: GroupCommitOptions): GroupCommit {
  const { db, pool } = handle;
  const { maxBatch, onBatch } = options;
  const control = options.negativeControl ?? null;
  let inFlight = 0;
  const idleWaiters: (() => void)[] = [];

  const settled = () => {
    if (--inFlight > 0) return;
    for (const wake of idleWaiters.splice(0)) wake();
  };

  /** A statement alone, in its own implicit transaction. */
  const runAlone = (client: pg.PoolClient, item: Pending) => run(client, item.query).then(item.resolve, item.reject);

  /** The batch on one connection: one transaction, or each alone when one of them fails. */
  async function runOn(client: pg.PoolClient, batch: Pending[]): Promise<void> {
    if (batch.length === 1) {
      onBatch?.(1, false);
      return runAlone(client, batch[0] as Pending);
    }
    await client.query('BEGIN');
    const values: QueryResult<unknown>[] = [];
    let failure: { reason: unknown } | null = null;
    for (const item of batch) {
      try {
        values.push(await run(client, item.query));
        if (control === 'answer-before-commit') item.resolve(values.at(-1) as QueryResult<unknown>);
      } catch (reason) {
        failure = { reason };
        break;
      }
    }
    if (!failure) {
      // If COMMIT fails, its fate is unknown (the connection died) or nothing was written: nobody has
      // been answered, and the caller below rejects every statement of the batch.
      await client.query('COMMIT');
      for (const [i, item] of batch.entries()) item.resolve(values[i] as QueryResult<unknown>);
      onBatch?.(batch.length, false);
      return;
    }
    await client.query('ROLLBACK');
    if (control === 'no-fallback') {
      for (const item of batch) item.reject(failure.reason);
      onBatch?.(batch.length, false);
      return;
    }
    // One statement failed and the batch is undone: each runs again alone, in order, with its own fate.
    for (const item of batch) await runAlone(client, item);
    onBatch?.(batch.length, true);
  }

  async function runBatch(batch: Pending[]): Promise<void> {
    if (control === 'reversed') batch.reverse();
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await runOn(client, batch);
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
          const batch = queue.splice(0, maxBatch);
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
        const query = statement.compile(db);
        inFlight++;
        return new Promise<QueryResult<unknown>>((resolve, reject) => {
          queue.push({ query, resolve, reject });
          if (!running) void drain();
        }).finally(settled) as Promise<QueryResult<R>>;
      },
    };
  }

  /** Lanes off: every statement alone on the pool, credits on a random shard (as without group commit). */
  const direct: WriteLane = {
    shard: undefined,
    write<R>(statement: RawBuilder<R>): Promise<QueryResult<R>> {
      inFlight++;
      return statement.execute(db).finally(settled);
    },
  };
  const lanes = Array.from({ length: options.lanes }, (_, i) => makeLane(i));

  return {
    lane: (key: string): WriteLane => (lanes.length === 0 ? direct : (lanes[hashOf(key) % lanes.length] as WriteLane)),
    idle: () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
  };
}
