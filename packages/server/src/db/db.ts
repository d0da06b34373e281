import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;

export interface DbHandle {
  readonly db: Db;
  readonly pool: pg.Pool;
  readonly kind: 'postgres' | 'pglite';
  close(): Promise<void>;
}

// bigint (int8) columns come back as strings by default; money code parses them with BigInt.
// timestamptz stays a Date.

/** Opens the configured database: PostgreSQL when DATABASE_URL is set, else embedded PGlite. */
export async function createDb(config: Pick<Config, 'databaseUrl' | 'dataDir' | 'dbPoolSize' | 'dbMaxLifetimeS'>): Promise<DbHandle> {
  if (config.databaseUrl) return createPostgresDb(config.databaseUrl, config.dbPoolSize, config.dbMaxLifetimeS);
  mkdirSync(config.dataDir, { recursive: true });
  return createPgliteDb(new PGlite(config.dataDir));
}

/** How long a pooled PostgreSQL connection lives by default (PURSE_DB_MAX_LIFETIME_S). */
const DEFAULT_MAX_LIFETIME_S = 300;

export function createPostgresDb(url: string, poolSize: number, maxLifetimeS = DEFAULT_MAX_LIFETIME_S): DbHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // A primary that does not answer within this (failover, outage) fails the request with 503.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    // A half-open connection (its node died without a FIN) is noticed by TCP, not only by the next query.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    // No statement_timeout: a COMMIT waiting for the synchronous standby must never be cancelled,
    // because PostgreSQL then reports the commit as done although only the primary has it (an
    // acknowledgement the new primary may not have after a failover; docs/failover.md). A stuck
    // transaction is still ended by the server, and a dead node by TCP keepalive.
    idle_in_transaction_session_timeout: 30_000,
    // A connection keeps the plans it made (its prepared statements' generic plans, and
    // PostgreSQL's own foreign-key checks, cached per connection) until an ANALYZE of their tables
    // invalidates them. One that planned while a table was tiny would scan it whole for its
    // whole life: each is replaced after this long (on release, so no query is cut), and the
    // statistics worker (statistics.ts) analyzes the tables that grew.
    maxLifetimeSeconds: maxLifetimeS,
    application_name: 'purse',
  });
  // A client that loses its server must not crash the process (database restarts, outages).
  // The pool reports idle clients' errors here; a checked-out client (Kysely holds one for a
  // whole statement or transaction) has no listener of the pool's, and an unhandled 'error'
  // event would kill the process: each client gets its own. Its queries still fail (→ 503), and
  // the pool discards it on release.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
    prepareStatements(client);
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, pool, kind: 'postgres', close: () => db.destroy() };
}

/**
 * Every parameterised statement Kysely sends becomes a named prepared statement on its
 * connection: PostgreSQL parses and plans it once per connection instead of on every call
 * (measured ~1.6× on a one-statement payment; bench/README.md). Names are a hash of the
 * text, so the set is bounded by the application's distinct statements. Text with a ';'
 * (migrations, several commands) cannot be prepared and is sent as it is.
 */
function prepareStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: unknown }).query = (text: unknown, values?: unknown, callback?: unknown) => {
    if (typeof text === 'string' && Array.isArray(values) && !text.includes(';')) {
      return query({ name: `k${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`, text, values }, callback);
    }
    return query(text, values, callback);
  };
}

/**
 * PGlite behind the same `pg` driver and Kysely dialect as production. PGlite is single-connection,
 * so the pool has exactly one client and transactions queue behind each other.
 */
export async function createPgliteDb(pglite: PGlite): Promise<DbHandle> {
  await pglite.waitReady;
  const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1 } as pg.PoolConfig);
  pool.on('error', () => {});
  // Prepared as on PostgreSQL: the embedded engine runs interpreted (WebAssembly), where planning
  // the money statements anew each time cost half of a wallet payment's CPU.
  pool.on('connect', (client) => prepareStatements(client));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    pool,
    kind: 'pglite',
    close: async () => {
      await db.destroy();
      await pglite.close();
    },
  };
}

/** Runs `fn` in a transaction: `db`'s own when it is one already (Kysely does not nest them), else a new one. */
export function inTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}
