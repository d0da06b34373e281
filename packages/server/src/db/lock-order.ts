import type pg from 'pg';

/**
 * The one global order in which every money write takes its row locks, so that two transactions
 * (two lanes, or two server processes on one database) can never wait for each other in a cycle:
 *
 *   1. charges (a refunded payment, a charge being completed), by id;
 *   2. wallets, by id;
 *   3. merchant-balance shards, by (merchant, currency, shard).
 *
 * It is the order the money statements take by themselves (a completion finds its charge pending
 * before it credits a wallet or a shard; a refund locks its payment, then the wallet it credits,
 * then the merchant's funds; a wallet payment debits its wallet, then credits a shard; a transfer
 * locks its two wallets in id order), so a statement that runs alone needs nothing more. A batch
 * of several statements, or one statement whose rows are not taken in key order (an UPDATE …
 * FROM unnest(…) updates in the plan's order), first locks every row the batch will change with
 * LOCK_ROWS, in this order; its statements then only take locks it already holds, or insert rows
 * nobody else can hold.
 */
export interface RowLocks {
  charges?: readonly string[];
  wallets?: readonly string[];
  shards?: readonly (readonly [merchantId: string, currency: string, shard: number])[];
}

/** One statement: each set in key order, each after the one before (the `count(*) >= 0` makes the next wait for it). */
export const LOCK_ROWS = `/* lock rows in order */ WITH c AS (SELECT id FROM charges WHERE id = ANY ($1::text[]) ORDER BY id FOR UPDATE
  ), w AS (SELECT id FROM wallets WHERE id = ANY ($2::text[]) AND (SELECT count(*) FROM c) >= 0 ORDER BY id FOR UPDATE
  ), s AS (SELECT b.shard FROM merchant_balances b JOIN unnest($3::text[], $4::text[], $5::smallint[]) AS k(m, cur, sh)
      ON b.merchant_id = k.m AND b.currency = k.cur AND b.shard = k.sh
    WHERE (SELECT count(*) FROM w) >= 0 ORDER BY b.merchant_id, b.currency, b.shard FOR UPDATE OF b
  ) SELECT (SELECT count(*) FROM s) AS locked`;

/** The distinct rows of `locks`, sorted, as LOCK_ROWS's parameters; undefined when there is nothing to lock. */
export function lockParameters(locks: readonly RowLocks[]): unknown[] | undefined {
  const charges = new Set<string>();
  const wallets = new Set<string>();
  const shards = new Map<string, readonly [string, string, number]>();
  for (const lock of locks) {
    for (const id of lock.charges ?? []) charges.add(id);
    for (const id of lock.wallets ?? []) wallets.add(id);
    for (const shard of lock.shards ?? []) shards.set(JSON.stringify(shard), shard);
  }
  if (charges.size + wallets.size + shards.size === 0) return undefined;
  const byKey = (a: readonly [string, string, number], b: readonly [string, string, number]) =>
    a[0] === b[0] ? (a[1] === b[1] ? a[2] - b[2] : a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1;
  const sortedShards = [...shards.values()].sort(byKey);
  return [
    [...charges].sort(),
    [...wallets].sort(),
    sortedShards.map((s) => s[0]),
    sortedShards.map((s) => s[1]),
    sortedShards.map((s) => s[2]),
  ];
}

/** Locks every row of `parameters` (lockParameters) on `client`, inside its open transaction. */
export async function lockRows(client: pg.PoolClient, parameters: unknown[]): Promise<void> {
  await client.query(LOCK_ROWS, parameters);
}

const RETRYABLE = new Set(['40P01', '40001']);

/** A deadlock or serialization failure: the transaction was rolled back and may simply run again. */
export function isRetryableConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE.has(code);
}

/** Attempts of a batch (or a statement alone) that keeps meeting deadlocks before its callers get the error (a 503). */
export const CONFLICT_ATTEMPTS = 5;

/** A short random pause before attempt `attempt + 1`, so two conflicting batches do not meet again in step. */
export function conflictPause(attempt: number): Promise<void> {
  const ms = Math.random() * 5 * 2 ** attempt;
  return new Promise((resolve) => setTimeout(resolve, ms));
}
