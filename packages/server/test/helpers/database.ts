import { existsSync, readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { createPgliteDb, createPostgresDb, type DbHandle } from '../../src/db/db.ts';

/**
 * One database per test run. On PGlite: every test file loads a copy of one migrated template
 * (test/run.sh builds it; see make-template.ts). On PostgreSQL (TEST_DATABASE_URL, set by
 * test/run.sh when DATABASE_URL is given): the database the run created and migrated.
 */
export const TEMPLATE_PATH = new URL('../../.tmp/pglite-template.tar.gz', import.meta.url).pathname;

export function testDatabaseUrl(): string | null {
  return process.env.TEST_DATABASE_URL || null;
}

export async function openTestDb(): Promise<DbHandle> {
  const url = testDatabaseUrl();
  if (url) return createPostgresDb(url, 16);
  if (!existsSync(TEMPLATE_PATH)) {
    throw new Error(`No PGlite template at ${TEMPLATE_PATH}: run the tests with "npm test" (test/run.sh builds it).`);
  }
  const blob = new Blob([readFileSync(TEMPLATE_PATH)]);
  return createPgliteDb(new PGlite({ loadDataDir: blob }));
}
