import { existsSync, readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { createPgliteDb, createPostgresDb, type DbHandle } from '../../src/db/db.ts';

/**
 * One database per test run. On PGlite: every test file loads a copy of one migrated template
 * (test/run.sh builds it; see make-template.ts). On PostgreSQL (TEST_DATABASE_URL, set by
 * test/run.sh when DATABASE_URL is given): the database the run created and migrated.
 */
export const TEMPLATE_PATH = new URL('../../.tmp/pglite-template.tar', import.meta.url).pathname;

export function testDatabaseUrl(): string | null {
  return process.env.TEST_DATABASE_URL || null;
}

export async function openTestDb(): Promise<DbHandle> {
  const url = testDatabaseUrl();
  if (url) return createPostgresDb(url, 16);
  if (!existsSync(TEMPLATE_PATH)) {
    throw new Error(`No PGlite template at ${TEMPLATE_PATH}: run the tests with "npm test" (test/run.sh builds it).`);
  }
  template ??= new Blob([readFileSync(TEMPLATE_PATH)]);
  return createPgliteDb(new PGlite({ loadDataDir: template, ...(await pgliteParts()) }));
}

/** The template, read once per process (a Blob is immutable: each database unpacks its own copy). */
let template: Blob | null = null;

let parts: Promise<{ pgliteWasmModule: WebAssembly.Module; initdbWasmModule: WebAssembly.Module; fsBundle: Blob }> | null = null;

/**
 * PGlite's WebAssembly, compiled once per process, and its file bundle, read once: each database
 * of a process that opens many (a test shard) starts without compiling them again (~0.35 s of CPU).
 */
function pgliteParts() {
  parts ??= (async () => {
    // The package's entry is dist/index.js; its WebAssembly and data files sit beside it.
    const dist = new URL('./', import.meta.resolve('@electric-sql/pglite'));
    const [pgliteWasmModule, initdbWasmModule] = await Promise.all(
      ['pglite.wasm', 'initdb.wasm'].map((file) => WebAssembly.compile(readFileSync(new URL(file, dist)))),
    );
    return {
      pgliteWasmModule: pgliteWasmModule!,
      initdbWasmModule: initdbWasmModule!,
      fsBundle: new Blob([readFileSync(new URL('pglite.data', dist))]),
    };
  })();
  return parts;
}
