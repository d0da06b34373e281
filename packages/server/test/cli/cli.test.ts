// The operator command, run as an operator would: the real bin/purse.mjs in a child process.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, type TestContext, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { buildDeps } from '../../src/deps.ts';
import { DataDirBusyError } from '../../src/ops/data-dir-lock.ts';
import { buildTestApp, TEST_ENV } from '../helpers/app.ts';

const SERVER_DIR = new URL('../..', import.meta.url).pathname;
const SECRET_KEY = TEST_ENV.PURSE_SECRET_KEY!;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The caller's environment without any database settings, plus the given ones. */
function commandEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { DATABASE_URL: _db, TEST_DATABASE_URL: _test, DATA_DIR: _dir, PURSE_SECRET_KEY: _key, ...rest } = process.env;
  return { ...rest, LOG_LEVEL: 'silent', PURSE_SECRET_KEY: SECRET_KEY, ...extra };
}

function purse(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    // Generous: a loaded machine (the suite runs two files at once) can take long to start PGlite.
    const options = { cwd: SERVER_DIR, env: commandEnv(env), timeout: 180_000 };
    execFile(process.execPath, ['bin/purse.mjs', ...args], options, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

function assertOk(run: Run): void {
  assert.equal(run.code, 0, `exit ${run.code}; stderr: ${run.stderr}`);
}

/** Parses the --json credentials line, checking it is exactly that object and nothing else. */
function credentials(run: Run): { merchant_id: string; client_id: string; client_secret: string } {
  assertOk(run);
  assert.match(run.stdout, /^\{.*\}\n$/);
  const parsed = JSON.parse(run.stdout);
  assert.deepEqual(Object.keys(parsed), ['merchant_id', 'client_id', 'client_secret']);
  assert.match(parsed.merchant_id, /^mer_/);
  assert.match(parsed.client_id, /^cli_/);
  return parsed;
}

/** A live process whose pid stands in for a running server's. */
function startSleeper(t: TestContext): ChildProcess {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  t.after(() => {
    child.kill();
  });
  return child;
}

function tempDir(t: { after(fn: () => void): void }, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('purse on the embedded database', () => {
  const dataDir = tempDir({ after }, 'purse-cli-');
  const env = () => ({ DATA_DIR: dataDir });
  let acme: { merchant_id: string; client_id: string; client_secret: string };
  let acmeOldSecret: string;
  let live: { merchant_id: string; client_id: string; client_secret: string };

  test('migrate, then merchant create --json prints exactly the credentials', async () => {
    const migrated = await purse(['migrate'], env());
    assertOk(migrated);
    assert.match(migrated.stdout, /^Applied to the embedded database in .*: 001-foundation/);
    const created = await purse(['merchant', 'create', '--name', 'Acme Ltd', '--json'], env());
    acme = credentials(created);
    assert.match(acme.client_secret, /^sk_test_/);
    assert.equal(created.stderr, '');
    assert.equal(existsSync(join(dataDir, 'purse.pid')), false, 'the lock is released at the end');
  });

  test('merchant create --live prints the credentials for people', async () => {
    const created = await purse(['merchant', 'create', '--name', 'Live Co', '--live'], env());
    assertOk(created);
    const field = (name: string) => new RegExp(`^  ${name}: +(\\S+)$`, 'm').exec(created.stdout)?.[1] ?? '';
    live = { merchant_id: field('merchant_id'), client_id: field('client_id'), client_secret: field('client_secret') };
    assert.match(live.merchant_id, /^mer_/);
    assert.match(live.client_secret, /^sk_live_/);
    assert.match(created.stdout, /shown only now/);
  });

  test('merchant rotate-secret --json prints a new secret for the same client', async () => {
    const rotated = credentials(await purse(['merchant', 'rotate-secret', acme.merchant_id, '--json'], env()));
    assert.equal(rotated.merchant_id, acme.merchant_id);
    assert.equal(rotated.client_id, acme.client_id);
    assert.notEqual(rotated.client_secret, acme.client_secret);
    acmeOldSecret = acme.client_secret;
    acme = rotated;
  });

  test('merchant disable, then list --json shows both merchants and no secret', async () => {
    const disabled = await purse(['merchant', 'disable', live.merchant_id], env());
    assertOk(disabled);
    assert.match(disabled.stdout, /is now disabled/);
    const listed = await purse(['merchant', 'list', '--json'], env());
    assertOk(listed);
    const merchants = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    const byId = new Map(merchants.map((m) => [m.id, m]));
    assert.equal(merchants.length, 2);
    assert.deepEqual([byId.get(acme.merchant_id)?.status, byId.get(acme.merchant_id)?.livemode], ['active', false]);
    assert.deepEqual([byId.get(live.merchant_id)?.status, byId.get(live.merchant_id)?.livemode], ['disabled', true]);
    assert.doesNotMatch(listed.stdout, /sk_(test|live)_|client_secret/);
  });

  test('an unknown merchant is an error on stderr with exit 1', async () => {
    const run = await purse(['merchant', 'enable', 'mer_doesnotexist'], env());
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^purse: No merchant with id mer_doesnotexist/);
  });

  test('the token endpoint accepts what the commands printed, and only that', async () => {
    const deps = await buildDeps(loadConfig({ ...TEST_ENV, DATA_DIR: dataDir }));
    try {
      const issue = (clientId: string, secret: string) => deps.services.oauth.issueToken(clientId, secret, '127.0.0.1');
      assert.equal((await issue(acme.client_id, acme.client_secret)).ok, true, 'the rotated secret works');
      assert.equal((await issue(acme.client_id, acmeOldSecret)).ok, false, 'the old secret no longer works');
      assert.equal((await issue(live.client_id, live.client_secret)).ok, false, 'a disabled merchant gets no token');
    } finally {
      await deps.close();
    }
  });
});

describe('purse refusals that never open the database', () => {
  test('a live process holding DATA_DIR makes every command refuse', async (t) => {
    const dataDir = tempDir(t, 'purse-cli-busy-');
    const holder = startSleeper(t);
    writeFileSync(join(dataDir, 'purse.pid'), String(holder.pid));
    const run = await purse(['merchant', 'create', '--name', 'Nope', '--json'], { DATA_DIR: dataDir });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, `purse: ${new DataDirBusyError(dataDir, holder.pid!).message}\n`);
    assert.deepEqual(readdirSync(dataDir), ['purse.pid'], 'the database was not created or opened');
  });

  test('usage errors exit 1 with a message and touch nothing', async (t) => {
    const dataDir = join(tempDir(t, 'purse-cli-usage-'), 'data');
    const run = await purse(['merchant', 'create', '--json'], { DATA_DIR: dataDir });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^purse: merchant create needs --name NAME/);
    assert.equal(existsSync(dataDir), false);
  });
});

const noPostgres = process.env.TEST_DATABASE_URL ? false : 'needs TEST_DATABASE_URL (npm test with DATABASE_URL)';

describe('purse on PostgreSQL', { skip: noPostgres }, () => {
  test('merchant create works alongside a running server and the merchant gets tokens', async (t) => {
    const busyDataDir = tempDir(t, 'purse-cli-pg-');
    writeFileSync(join(busyDataDir, 'purse.pid'), String(startSleeper(t).pid));
    const run = await purse(['merchant', 'create', '--name', 'Postgres Co', '--json'], {
      DATABASE_URL: process.env.TEST_DATABASE_URL!,
      DATA_DIR: busyDataDir,
    });
    const created = credentials(run);
    const app = await buildTestApp(t);
    const merchant = await app.deps.services.merchants.getMerchant(created.merchant_id);
    assert.equal(merchant?.name, 'Postgres Co');
    assert.equal(merchant?.client_id, created.client_id);
    const token = await app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: { grant_type: 'client_credentials', client_id: created.client_id, client_secret: created.client_secret },
    });
    assert.equal(token.statusCode, 200);
  });
});

describe('purse merchant webhook-secret', () => {
  const dataDir = tempDir({ after }, 'purse-cli-whsec-');
  test('prints the default signing secret, and rotate-webhook-secret replaces it', async () => {
    const created = credentials(await purse(['merchant', 'create', '--name', 'Hooks', '--json'], { DATA_DIR: dataDir }));
    const shown = await purse(['merchant', 'webhook-secret', created.merchant_id, '--json'], { DATA_DIR: dataDir });
    assertOk(shown);
    const first = JSON.parse(shown.stdout) as { merchant_id: string; webhook_secret: string };
    assert.equal(first.merchant_id, created.merchant_id);
    assert.match(first.webhook_secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const rotated = await purse(['merchant', 'rotate-webhook-secret', created.merchant_id, '--json'], { DATA_DIR: dataDir });
    assertOk(rotated);
    const second = JSON.parse(rotated.stdout) as { webhook_secret: string };
    assert.notEqual(second.webhook_secret, first.webhook_secret);
    const unknown = await purse(['merchant', 'webhook-secret', 'mer_doesnotexist'], { DATA_DIR: dataDir });
    assert.equal(unknown.code, 1);
  });
});
