import type pg from 'pg';
import type { BatchContext, MergedWrite, Pending, Unit } from './batch-types.ts';
import { CommitOutcomeUnknown, isDatabaseUnavailable } from './errors.ts';
import { CONFLICT_ATTEMPTS, conflictPause, isRetryableConflict, lockParameters, lockRows } from './lock-order.ts';

// How a group-commit batch is planned (statements, in arrival order) and run (db/group-commit.ts).

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

/** The rows to lock first, in the global order (lock-order.ts), or undefined when the batch's statements take them in order themselves. */
function batchLocks(units: Unit[]): unknown[] | undefined {
  const only = units.length === 1 ? units[0] : undefined;
  if (only && ('single' in only || only.merged.lockedInOrder || only.items.length === 1)) return undefined;
  const locks = [];
  for (const unit of units) {
    if ('single' in unit || !unit.merged.locks) continue;
    for (const item of unit.items) locks.push(unit.merged.locks((item as Extract<Pending, { item: unknown }>).item));
  }
  return lockParameters(locks);
}

/** COMMIT; when it fails, nobody can tell whether the batch was written: every caller gets CommitOutcomeUnknown (503). */
async function commit(client: pg.PoolClient): Promise<void> {
  try {
    await client.query('COMMIT');
  } catch (error) {
    throw new CommitOutcomeUnknown(error);
  }
}

/** One attempt at the batch together: each unit's answers once committed, or the error of the statement that failed (rolled back). */
async function together(
  client: pg.PoolClient,
  units: Unit[],
  context: BatchContext,
): Promise<{ results: unknown[][] } | { failed: unknown }> {
  const locks = batchLocks(units);
  if (units.length === 1 && !locks) {
    try {
      return { results: [await context.runUnit(client, units[0] as Unit)] };
    } catch (failed) {
      return { failed };
    }
  }
  await client.query('BEGIN');
  const results: unknown[][] = [];
  try {
    if (locks) await lockRows(client, locks);
    for (const unit of units) results.push(await context.runUnit(client, unit));
  } catch (failed) {
    // When the connection is gone this throws too: every item of the batch then gets the 503.
    await client.query('ROLLBACK');
    return { failed };
  }
  await commit(client);
  return { results };
}

/**
 * The batch on one connection: one statement (atomic by itself, no transaction around it), or
 * one transaction that first locks its rows in the global order (lock-order.ts). A deadlock or a
 * serialization failure (another process's batch) undid it all: it runs again, a few times. The
 * database unavailable (a lost connection, a read-only node): every item gets that error (503).
 * Any other failure of one statement: each item runs again alone, in order, with its own fate.
 * Every item is answered only after what holds it has committed.
 */
export async function executeBatch(client: pg.PoolClient, batch: Pending[], context: BatchContext): Promise<void> {
  const units = planUnits(batch);
  for (let attempt = 1; ; attempt++) {
    const outcome = await together(client, units, context);
    if ('results' in outcome) {
      answerUnits(units, outcome.results);
      context.onBatch?.(batch.length, false);
      return;
    }
    const { failed } = outcome;
    if (isRetryableConflict(failed) && attempt < CONFLICT_ATTEMPTS) {
      context.onConflict?.(failed);
      await conflictPause(attempt);
      continue;
    }
    if (isDatabaseUnavailable(failed)) throw failed;
    if (batch.length === 1) {
      (batch[0] as Pending).reject(failed);
      context.onBatch?.(1, false);
      return;
    }
    break;
  }
  for (const item of batch) await context.runAlone(client, item);
  context.onBatch?.(batch.length, true);
}

/** One item in its own implicit transaction, answered with its own result; run again after a deadlock (nothing of it was written). */
export async function runAlone(
  item: Pending,
  run: (unit: Unit) => Promise<unknown[]>,
  onConflict?: (error: unknown) => void,
): Promise<void> {
  const unit: Unit = item.merged ? { merged: item.merged, items: [item], keys: new Set() } : { single: item };
  for (let attempt = 1; ; attempt++) {
    try {
      const [result] = await run(unit);
      return result instanceof Error ? item.reject(result) : item.resolve(result as never);
    } catch (error) {
      if (!isRetryableConflict(error) || attempt >= CONFLICT_ATTEMPTS) return item.reject(error);
      onConflict?.(error);
      await conflictPause(attempt);
    }
  }
}
