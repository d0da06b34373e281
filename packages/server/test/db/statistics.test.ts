// The statistics worker (src/db/statistics.ts): a table that doubled since its last ANALYZE is
// analyzed, and that ends the plan a connection made while the table was tiny. The trap it
// exists for, shown on a parent and child table of the test's own: the child's foreign-key check,
// planned by PostgreSQL once per connection, keeps scanning the whole parent after it has grown.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { ANALYZE_MIN_ROWS } from '../../src/db/statistics.ts';
import { buildTestApp } from '../helpers/app.ts';
import { usePrivatePostgres } from '../webhooks/support.ts';

// Its own database on PostgreSQL: it analyzes every table that grew.
usePrivatePostgres();

test('a table that doubled since its last ANALYZE is analyzed, and the plans made while it was small are dropped', async (t) => {
  const app = await buildTestApp(t);
  const db = app.deps.db.db;
  type Conn = Parameters<Parameters<ReturnType<typeof db.connection>['execute']>[0]>[0];
  // A backend publishes its counts at most once a second, unless told to at its next idle moment.
  const settle = async (conn: Conn) => {
    await sql`SELECT pg_stat_force_next_flush()`.execute(conn);
    await sql`SELECT pg_stat_clear_snapshot()`.execute(conn);
  };
  const seqScans = async (conn: Conn) => {
    await settle(conn);
    const row = await sql<{ n: string }>`SELECT seq_scan AS n FROM pg_stat_user_tables WHERE relname = 'stats_parent'`.execute(conn);
    return Number(row.rows[0]?.n);
  };
  const backend = async (conn: Conn) => (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(conn)).rows[0]?.pid;
  let n = 0;
  const insert = async (conn: Conn, count: number) => {
    for (let i = 0; i < count; i++, n++) {
      await sql`INSERT INTO stats_parent VALUES (${`p${n}`}, 'x')`.execute(conn);
      await sql`INSERT INTO stats_child (parent_id) VALUES (${`p${n}`})`.execute(conn);
    }
  };
  // The session whose plans are watched (the pool hands back its last released connection).
  const session = await db.connection().execute(async (conn) => {
    await sql`CREATE TABLE stats_parent (id text PRIMARY KEY, pad text NOT NULL)`.execute(conn);
    await sql`CREATE TABLE stats_child (id serial PRIMARY KEY, parent_id text NOT NULL REFERENCES stats_parent (id))`.execute(conn);
    await sql`ANALYZE stats_parent`.execute(conn);
    // Planned while the parent is one page: after five runs the check's generic plan is a scan.
    await insert(conn, 10);
    await sql`INSERT INTO stats_parent SELECT 'g' || g, repeat('y', 50) FROM generate_series(1, ${sql.lit(ANALYZE_MIN_ROWS * 20)}) g`.execute(
      conn,
    );
    const before = await seqScans(conn);
    await insert(conn, 20);
    assert.equal((await seqScans(conn)) - before, 20, 'the trap: each foreign-key check scans the grown parent');
    return backend(conn);
  });

  assert.equal(await app.deps.statisticsWorker.runOnce(), 1, 'one table per pass: the one that grew most');
  const stats = await sql<{ reltuples: number }>`SELECT reltuples FROM pg_class WHERE relname = 'stats_parent'`.execute(db);
  assert.ok(Number(stats.rows[0]?.reltuples) >= ANALYZE_MIN_ROWS * 20, 'its statistics now count its rows');
  await db.connection().execute(async (conn) => {
    assert.equal(await backend(conn), session, 'the same session, with the plans it made');
    const before = await seqScans(conn);
    await insert(conn, 20);
    assert.equal((await seqScans(conn)) - before, 0, 'the checks use the primary key once the table is analyzed');
  });
  // Nothing doubled since: the next pass analyzes nothing.
  await settle(db);
  assert.equal(await app.deps.statisticsWorker.runOnce(), 0);
});

test('a table below the minimum, or grown less than twofold, is left alone', async (t) => {
  const app = await buildTestApp(t);
  const db = app.deps.db.db;
  await sql`CREATE TABLE stats_small (id int PRIMARY KEY)`.execute(db);
  await sql`INSERT INTO stats_small SELECT g FROM generate_series(1, ${sql.lit(ANALYZE_MIN_ROWS - 1)}) g`.execute(db);
  await sql`CREATE TABLE stats_steady (id int PRIMARY KEY)`.execute(db);
  await sql`INSERT INTO stats_steady SELECT g FROM generate_series(1, ${sql.lit(ANALYZE_MIN_ROWS * 2)}) g`.execute(db);
  // Its inserts published before the ANALYZE, so that they are not counted again after it.
  await sql`SELECT pg_stat_force_next_flush()`.execute(db);
  await sql`SELECT 1`.execute(db);
  await sql`ANALYZE stats_steady`.execute(db);
  await sql`INSERT INTO stats_steady SELECT g FROM generate_series(${sql.lit(ANALYZE_MIN_ROWS * 2 + 1)}, ${sql.lit(ANALYZE_MIN_ROWS * 3)}) g`.execute(
    db,
  );
  await sql`SELECT pg_stat_force_next_flush()`.execute(db);
  // One table per pass: passes until none is left, so that a table left alone was not just waiting its turn.
  for (let pass = 0; pass < 20 && (await app.deps.statisticsWorker.runOnce()) > 0; pass++);
  const analyzed = await sql<{ relname: string; reltuples: number }>`
    SELECT relname, reltuples FROM pg_class WHERE relname IN ('stats_small', 'stats_steady') ORDER BY relname`.execute(db);
  assert.deepEqual(
    analyzed.rows.map((r) => [r.relname, Number(r.reltuples)]),
    [
      ['stats_small', -1],
      ['stats_steady', ANALYZE_MIN_ROWS * 2],
    ],
  );
});
