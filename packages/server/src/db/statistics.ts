import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import { createPoller } from '../shared/poller.ts';
import type { Db } from './db.ts';

/** A table is analyzed once it has at least this many live rows (below, a plan's choice costs little). */
export const ANALYZE_MIN_ROWS = 500;

/**
 * Keeps the planner's statistics current where autovacuum does not: always on the embedded
 * database (PGlite has no autovacuum), and on PostgreSQL when autovacuum is off or lags behind a
 * fast-growing table. Each tick reads the statistics system (`pg_stat_user_tables`, which PGlite
 * keeps too) and runs `ANALYZE` on every table of Purse's schema whose live rows have at least
 * doubled since its last analyze (`pg_class.reltuples`, -1 when never analyzed, 0 when analyzed
 * empty), once it has ANALYZE_MIN_ROWS rows: about log2(rows) analyzes in a table's life.
 *
 * Why it matters: a connection plans a prepared statement (and PostgreSQL's own foreign-key
 * checks) with the table's size of the moment and keeps that plan. Planned while
 * `ledger_transactions` was tiny, the foreign-key check of every ledger entry scanned the whole
 * table for the connection's life (wallet payments fell from ~2,000/s to ~60/s in 5 minutes).
 * An ANALYZE that changes a table's size in `pg_class` invalidates every plan that reads it, in
 * every session, so the next run plans again with today's size. Where autovacuum keeps up, its
 * analyzes keep `reltuples` within 10 % of the rows and this finds nothing to do.
 *
 * Off the request path: a poller of its own, one table per tick; on PGlite an ANALYZE holds the
 * one connection for its sample (30,000 rows at most), once per doubling. `SKIP_LOCKED`: a table another process is
 * analyzing (several Purse processes, autovacuum) is left to it.
 */
export function createStatisticsWorker(deps: { db: Db; log: FastifyBaseLogger; intervalMs: number }) {
  const { db, log, intervalMs } = deps;
  /**
   * Analyzes the table that grew most since its statistics, if it doubled; answers 1 or 0. One
   * per tick: tables of one workload double together, and on the embedded database their
   * analyzes in a row held the one connection for seconds (the next table waits a tick).
   */
  async function runOnce(): Promise<number> {
    const grown = await sql<{ table: string; live: string; analyzed: number }>`
      SELECT s.relname AS table, s.n_live_tup AS live, c.reltuples AS analyzed
      FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
      WHERE s.schemaname = current_schema()
        AND s.n_live_tup >= ${ANALYZE_MIN_ROWS}
        AND s.n_live_tup >= 2 * greatest(c.reltuples, 0)
      ORDER BY s.n_live_tup / greatest(c.reltuples, 1) DESC, s.relname
      LIMIT 1`.execute(db);
    for (const { table, live, analyzed } of grown.rows) {
      await sql`ANALYZE (SKIP_LOCKED) ${sql.table(table)}`.execute(db);
      log.info({ table, rows: Number(live), analyzedAt: Math.max(analyzed, 0) }, 'analyzed a table that doubled since its statistics');
    }
    return grown.rows.length;
  }
  // Never "a full batch": one pass per interval, whatever it found.
  return createPoller({ name: 'statistics', runOnce, batch: Number.POSITIVE_INFINITY, intervalMs, log });
}

export type StatisticsWorker = ReturnType<typeof createStatisticsWorker>;
