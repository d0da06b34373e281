// What the command-line tests share: the operator command run in a child process, as an operator
// would: this run's bundle of it, or bin/purse.mjs itself (test/helpers/programs.ts).
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { TEST_ENV } from '../helpers/app.ts';
import { purseArgs } from '../helpers/programs.ts';

export const SERVER_DIR = new URL('../..', import.meta.url).pathname;
export const SECRET_KEY = TEST_ENV.PURSE_SECRET_KEY!;

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The caller's environment without any database settings, plus the given ones. */
export function commandEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { DATABASE_URL: _db, TEST_DATABASE_URL: _test, DATA_DIR: _dir, PURSE_SECRET_KEY: _key, ...rest } = process.env;
  return { ...rest, LOG_LEVEL: 'silent', PURSE_SECRET_KEY: SECRET_KEY, ...extra };
}

/** Runs the command; `real`: bin/purse.mjs through tsx, as installed, even when the run has a bundle. */
export function purse(args: string[], env: Record<string, string>, real = false): Promise<Run> {
  return new Promise((resolve) => {
    // Generous: a loaded machine (the suite runs two files at once) can take long to start PGlite.
    const options = { cwd: SERVER_DIR, env: commandEnv(env), timeout: 180_000 };
    execFile(process.execPath, [...purseArgs(real), ...args], options, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export function assertOk(run: Run): void {
  assert.equal(run.code, 0, `exit ${run.code}; stderr: ${run.stderr}`);
}

/** Parses the --json credentials line, checking it is exactly that object and nothing else. */
export function credentials(run: Run): { merchant_id: string; client_id: string; client_secret: string } {
  assertOk(run);
  assert.match(run.stdout, /^\{.*\}\n$/);
  const parsed = JSON.parse(run.stdout);
  assert.deepEqual(Object.keys(parsed), ['merchant_id', 'client_id', 'client_secret']);
  assert.match(parsed.merchant_id, /^mer_/);
  assert.match(parsed.client_id, /^cli_/);
  return parsed;
}

/** A live process whose pid stands in for a running server's. */
export function startSleeper(t: TestContext): ChildProcess {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  t.after(() => {
    child.kill();
  });
  return child;
}

export function tempDir(t: { after(fn: () => void): void }, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
