import { type RawBuilder, sql } from 'kysely';
import type { Db } from './db.ts';

/**
 * The queue of objects waiting on a provider: charges (money in) and outflows (money out) share
 * it, each in its own table with the same columns (status, provider_reference, provider_state,
 * next_check_at, lease_until, attempts, updated_at). The table's owner passes its name; the name
 * is one of these literals, never built from input.
 */
export type PendingTable = 'charges' | 'outflows';

const table = (name: PendingTable): RawBuilder<unknown> => sql.table(name);

/**
 * Not final yet: an outflow is pending; a charge may also wait on the payer (requires_action) or
 * the merchant (requires_capture). Each predicate is its table's partial "due" index's.
 */
const open = (name: PendingTable): RawBuilder<unknown> => (name === 'charges' ? sql`completed_at IS NULL` : sql`status = 'pending'`);

/** The provider accepted the request and has not settled it yet: look again at `nextCheckAt`. */
export async function markInitiated<Row>(
  db: Db,
  name: PendingTable,
  p: { id: string; providerReference: string | null; nextCheckAt: Date; now: Date },
): Promise<Row | undefined> {
  const result = await sql<Row>`
    UPDATE ${table(name)} SET provider_reference = coalesce(${p.providerReference}::text, provider_reference), provider_state = 'initiated',
      next_check_at = ${p.nextCheckAt}::timestamptz, lease_until = NULL, updated_at = ${p.now}::timestamptz
    WHERE id = ${p.id} AND ${open(name)}
    RETURNING *`.execute(db);
  return result.rows[0];
}

/** Hands the object to the worker: the lease is dropped and it is looked at again at `nextCheckAt`. */
export async function release(db: Db, name: PendingTable, id: string, nextCheckAt: Date): Promise<void> {
  await sql`UPDATE ${table(name)} SET lease_until = NULL, next_check_at = ${nextCheckAt}::timestamptz
    WHERE id = ${id} AND ${open(name)}`.execute(db);
}

/** Takes the lease of a pending object whose previous holder is gone (or never had one). */
export async function claimLease<Row>(db: Db, name: PendingTable, id: string, now: Date, leaseUntil: Date): Promise<Row | undefined> {
  const result = await sql<Row>`
    UPDATE ${table(name)} SET lease_until = ${leaseUntil}::timestamptz, attempts = attempts + 1
    WHERE id = ${id} AND ${open(name)} AND (lease_until IS NULL OR lease_until < ${now}::timestamptz)
    RETURNING *`.execute(db);
  return result.rows[0];
}

/**
 * Claims up to `limit` due pending objects for this worker, backing off exponentially (capped at
 * 5 minutes). SKIP LOCKED lets several server processes share the queue; the lease keeps a
 * request that is still calling the provider safe.
 */
export async function claimDue<Row>(db: Db, name: PendingTable, now: Date, leaseUntil: Date, limit: number): Promise<Row[]> {
  const result = await sql<Row>`
    UPDATE ${table(name)} SET lease_until = ${leaseUntil}::timestamptz, attempts = attempts + 1,
      next_check_at = ${now}::timestamptz + make_interval(secs => least(300, power(2, least(attempts, 8))))
    WHERE id IN (
      SELECT id FROM ${table(name)}
      WHERE ${open(name)} AND next_check_at <= ${now}::timestamptz AND (lease_until IS NULL OR lease_until < ${now}::timestamptz)
      ORDER BY next_check_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING *`.execute(db);
  return result.rows;
}
