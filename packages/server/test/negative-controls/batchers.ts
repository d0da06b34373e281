// Batch executors broken on purpose, each breaking one promise of src/db/group-commit.ts that
// test/db/group-commit.ts checks. Wired in place of executeBatch by test/negative-control.ts
// (buildTestApp's `wiring.executeBatch`); nothing in src/ can choose them.
import { answerUnits, type BatchExecutor, executeBatch, planUnits, type Unit } from '../../src/db/group-commit.ts';

/** WRONG ON PURPOSE: the batch runs in reverse arrival order (one wallet's later payment first). */
export const reversed: BatchExecutor = (client, batch, context) => executeBatch(client, [...batch].reverse(), context);

/** WRONG ON PURPOSE: one failing statement fails the whole batch; nothing is run again alone. */
export const noFallback: BatchExecutor = async (client, batch, context) => {
  const units = planUnits(batch);
  const results: unknown[][] = [];
  try {
    if (units.length > 1) await client.query('BEGIN');
    for (const unit of units) results.push(await context.runUnit(client, unit));
    if (units.length > 1) await client.query('COMMIT');
  } catch (reason) {
    if (units.length > 1) await client.query('ROLLBACK');
    for (const item of batch) item.reject(reason);
    context.onBatch?.(batch.length, false);
    return;
  }
  answerUnits(units, results);
  context.onBatch?.(batch.length, false);
};

/** WRONG ON PURPOSE: each statement's callers are answered as soon as it has run, before the batch commits. */
export const answerBeforeCommit: BatchExecutor = async (client, batch, context) => {
  const units: Unit[] = planUnits(batch);
  if (units.length === 1) return executeBatch(client, batch, context);
  await client.query('BEGIN');
  try {
    for (const unit of units) answerUnits([unit], [await context.runUnit(client, unit)]);
    await client.query('COMMIT');
  } catch (reason) {
    await client.query('ROLLBACK');
    // Already answered items ignore this: a settled promise stays as it was.
    for (const item of batch) item.reject(reason);
  }
  context.onBatch?.(batch.length, false);
};

/**
 * WRONG ON PURPOSE: the group commit as it was before db/lock-order.ts. A batch takes its row
 * locks in arrival order (no locking first in the global order), and a deadlock is not run again:
 * the batch falls back to each statement alone, and a statement alone that deadlocks fails its
 * request. Two processes whose batches hold the same rows in different orders deadlock.
 */
export const arrivalOrderLocks: BatchExecutor = async (client, batch, context) => {
  const units = planUnits(batch);
  const alone = async () => {
    for (const item of batch) {
      const unit: Unit = item.merged ? { merged: item.merged, items: [item], keys: new Set() } : { single: item };
      await context
        .runUnit(client, unit)
        .then(([result]) => (result instanceof Error ? item.reject(result) : item.resolve(result as never)), item.reject);
    }
    context.onBatch?.(batch.length, true);
  };
  if (units.length === 1) {
    try {
      answerUnits(units, [await context.runUnit(client, units[0] as Unit)]);
      context.onBatch?.(batch.length, false);
    } catch {
      await alone();
    }
    return;
  }
  await client.query('BEGIN');
  const results: unknown[][] = [];
  try {
    for (const unit of units) results.push(await context.runUnit(client, unit));
  } catch {
    await client.query('ROLLBACK');
    return alone();
  }
  await client.query('COMMIT');
  answerUnits(units, results);
  context.onBatch?.(batch.length, false);
};
