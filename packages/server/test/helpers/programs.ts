// What the tests start as child processes, and the data directories they give them. test/run.sh
// builds, afresh for every run, a directory named by TEST_RUN_DIR holding the operator command and
// the server bundled (test/helpers/bundle.ts). Without it (test:faults, or a test file run by hand)
// the children run the sources through tsx and data directories start empty: slower, same code.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEMPLATE_PATH } from './database.ts';

/** This run's built files, or null when test/run.sh did not build them. */
function built(name: string): string | null {
  const dir = process.env.TEST_RUN_DIR;
  if (!dir) return null;
  const path = join(dir, name);
  if (!existsSync(path)) throw new Error(`TEST_RUN_DIR has no ${name}: test/run.sh builds it`);
  return path;
}

/** Node's arguments for the operator command (cwd packages/server). bin/purse.mjs itself: `purseArgs(true)`. */
export function purseArgs(real = false): string[] {
  const bundle = real ? null : built('cli.mjs');
  return bundle ? [bundle] : ['bin/purse.mjs'];
}

/** Node's arguments for a server script (cwd packages/server): src/main.ts may run from the bundle. */
export function serverArgs(script: string): string[] {
  const bundle = script === 'src/main.ts' ? built('server.mjs') : null;
  return bundle ? [bundle] : ['--import', 'tsx', script];
}

/**
 * A new data directory holding a migrated embedded database, for a test that is not about the
 * very first start: the process given it skips creating and migrating the database (~4 s of CPU;
 * unpacking costs ~0.5 s). It is this run's PGlite template (make-template.ts), unpacked. Tests of
 * the first start use an empty directory, as does every test on a PostgreSQL run (no template is
 * built) or outside test/run.sh (a template left by an older run may be stale). Removed when the
 * scope ends.
 */
export function migratedDataDir(scope: { after(fn: () => void): void }, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scope.after(() => rmSync(dir, { recursive: true, force: true }));
  if (process.env.TEST_RUN_DIR && !process.env.TEST_DATABASE_URL)
    execFileSync('tar', ['-xf', TEMPLATE_PATH, '-C', dir], { stdio: 'ignore' });
  return dir;
}
