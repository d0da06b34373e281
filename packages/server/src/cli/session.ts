import { pino } from 'pino';
import type { Config } from '../config.ts';
import { createDb, type DbHandle } from '../db/db.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { buildDeps, type Deps } from '../deps.ts';
import { acquireDataDirLock, DataDirBusyError, lockHolder } from '../ops/data-dir-lock.ts';
import { loggerOptions } from '../shared/logging.ts';
import { dataDirBusy } from './errors.ts';

/**
 * The embedded database may be opened by one process only: while a server (or another command)
 * holds DATA_DIR, refuse before touching it; otherwise hold the lock until `work` is done, so a
 * server cannot start meanwhile. PostgreSQL needs no lock.
 */
async function withDataDirLock<T>(config: Config, work: () => Promise<T>): Promise<T> {
  if (config.databaseUrl !== null) return work();
  const holder = lockHolder(config.dataDir);
  if (holder !== null) throw dataDirBusy(config.dataDir, holder);
  let lock: { release(): void };
  try {
    lock = acquireDataDirLock(config.dataDir);
  } catch (error) {
    if (error instanceof DataDirBusyError) throw dataDirBusy(config.dataDir, error.pid);
    throw error;
  }
  try {
    return await work();
  } finally {
    lock.release();
  }
}

/** Runs `work` with the services of the configured database (migrated by buildDeps), then closes it. */
export function withDeps<T>(config: Config, work: (deps: Deps) => Promise<T>): Promise<T> {
  return withDataDirLock(config, async () => {
    // Logs go to stderr: stdout carries only the command's output (scripts parse --json).
    const deps = await buildDeps(config, { logger: pino(loggerOptions(config.logLevel), pino.destination(2)) });
    try {
      return await work(deps);
    } finally {
      await deps.close();
    }
  });
}

/** Runs `work` on the configured database alone (no services, no key), then closes it. */
export function withDb<T>(config: Config, work: (db: DbHandle['db']) => Promise<T>): Promise<T> {
  return withDataDirLock(config, async () => {
    const handle = await createDb(config);
    try {
      return await work(handle.db);
    } finally {
      await handle.close();
    }
  });
}

/** Applies pending migrations and returns the names of those applied now. */
export function migrateDatabase(config: Config): Promise<string[]> {
  return withDataDirLock(config, async () => {
    const handle = await createDb(config);
    try {
      return await migrateToLatest(handle.db);
    } finally {
      await handle.close();
    }
  });
}

export function describeDatabase(config: Config): string {
  return config.databaseUrl === null ? `the embedded database in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)';
}
