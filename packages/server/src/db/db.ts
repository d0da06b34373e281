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
export async function createDb(config: Pick<Config, 'databaseUrl' | 'dataDir' | 'dbPoolSize'>): Promise<DbHandle> {
  if (config.databaseUrl) return createPostgresDb(config.databaseUrl, config.dbPoolSize);
  mkdirSync(config.dataDir, { recursive: true });
  return createPgliteDb(new PGlite(config.dataDir));
}

export function createPostgresDb(url: string, poolSize: number): DbHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    // A statement that runs longer than a request may live is a bug or an outage.
    statement_timeout: 25_000,
    application_name: 'purse',
  });
  // An idle client that loses its server must not crash the process (database restarts).
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, pool, kind: 'postgres', close: () => db.destroy() };
}

/**
 * PGlite behind the same `pg` driver and Kysely dialect as production. PGlite is single-connection,
 * so the pool has exactly one client and transactions queue behind each other.
 */
export async function createPgliteDb(pglite: PGlite): Promise<DbHandle> {
  await pglite.waitReady;
  const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1 } as pg.PoolConfig);
  pool.on('error', () => {});
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
