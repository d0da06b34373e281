// Two server processes. On PostgreSQL (TEST_DATABASE_URL): two real `node src/main.ts`
// processes on the one database, the storms and the double spend spread over both (requests
// alternate), with the same exact counts as in process. On the embedded database the answer to
// "two processes" is the data-dir lock: a second server on the same DATA_DIR refuses to start.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildTestApp, createTestMerchant, TEST_ENV } from '../helpers/app.ts';
import { TEMPLATE_PATH, testDatabaseUrl } from '../helpers/database.ts';
import { assertLedgerHealthy } from '../helpers/factories.ts';
import { serverEnv as baseServerEnv } from '../helpers/processes.ts';
import { serverArgs } from '../helpers/programs.ts';
import { assertExactDoubleSpend, runDoubleSpend } from './double-spend.ts';
import { ALL_MEANS, identicalStorm, mixedStorm, stormFixtures } from './storms.ts';
import { freePort, httpClient, reportFigures } from './support.ts';

const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));
const databaseUrl = testDatabaseUrl();

interface Server {
  child: ChildProcess;
  pid: number;
  baseUrl: string;
  output(): string;
  exited: Promise<number | null>;
}

/** The shared spawned-server environment, with this file's key: its tokens work on every process. */
function serverEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  return baseServerEnv({ PURSE_BOOTSTRAP_MERCHANT: 'false', PURSE_SECRET_KEY: TEST_ENV.PURSE_SECRET_KEY!, ...overrides });
}

/** Spawns `node --import tsx src/main.ts` (or this run's bundle of it: test/helpers/programs.ts); stopped by pid when the test ends. */
function spawnServer(t: Pick<TestContext, 'after'>, env: Record<string, string>): Server {
  const child = spawn(process.execPath, serverArgs('src/main.ts'), {
    cwd: SERVER_DIR,
    env: serverEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    if (output.length < 64 * 1024) output += chunk.toString('utf8');
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.after(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    process.kill(child.pid!, 'SIGTERM');
    const timer = setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
    }, 10_000);
    await exited;
    clearTimeout(timer);
  });
  return { child, pid: child.pid!, baseUrl: `http://127.0.0.1:${env.PORT}`, output: () => output, exited };
}

/** Polls GET /readyz until 200; fails early, with the server's output, if it exits. */
async function waitReady(server: Server, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void server.exited.then(() => {
    exited = true;
  });
  for (;;) {
    if (exited) throw new Error(`server ${server.pid} exited before it was ready:\n${server.output()}`);
    try {
      const res = await fetch(`${server.baseUrl}/readyz`);
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`server ${server.pid} not ready after ${timeoutMs} ms:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('two server processes on one PostgreSQL: the storms and the double spend, spread over both', {
  skip: databaseUrl ? false : 'needs PostgreSQL (TEST_DATABASE_URL)',
}, async (t) => {
  const started = Date.now();
  const ports = [await freePort(), await freePort()];
  const servers = ports.map((port) => spawnServer(t, { DATABASE_URL: databaseUrl!, PORT: String(port) }));
  await Promise.all(servers.map((s) => waitReady(s)));
  t.diagnostic(`two servers ready in ${Date.now() - started} ms: pids ${servers.map((s) => s.pid).join(', ')}`);

  // The merchant comes from the services of an in-process app on the same database.
  const app = await buildTestApp(t);
  const merchant = await createTestMerchant(app, 'Two processes');
  const client = httpClient(
    servers.map((s) => s.baseUrl),
    merchant.auth,
  );
  for (const s of servers) {
    const res = await fetch(`${s.baseUrl}/v1/merchant`, { headers: merchant.auth });
    assert.equal(res.status, 200, `the token works on process ${s.pid}`);
  }
  const fixtures = await stormFixtures(client);
  const checks = { app };

  for (const means of ALL_MEANS) {
    await t.test(`identical storm over two processes: ${means}`, async (st) => {
      const figures = await identicalStorm(client, means, fixtures, checks);
      reportFigures(st, 'identical storm (postgres, http ×2)', { ...figures });
    });
  }
  for (const means of ALL_MEANS) {
    await t.test(`mixed storm over two processes: ${means}`, async (st) => {
      const figures = await mixedStorm(client, means, fixtures, checks);
      reportFigures(st, 'mixed storm (postgres, http ×2)', { ...figures });
    });
  }
  await t.test('double spend over two processes', async (st) => {
    const figures = await runDoubleSpend(client, { covered: 100, attempts: 1_000, concurrency: 64 });
    reportFigures(st, 'double spend (postgres, http ×2)', { ...figures });
    assertExactDoubleSpend(figures);
    await assertLedgerHealthy(app);
  });
  for (const s of servers) assert.equal(s.child.exitCode, null, `process ${s.pid} is still running:\n${s.output()}`);
});

test('embedded database: a second server on the same DATA_DIR refuses to start', {
  skip: databaseUrl ? 'runs on the embedded database only' : false,
}, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'purse-two-processes-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  // Seeded from the migrated test template (test/run.sh builds it): a fresh PGlite initdb takes ~20 s.
  execFileSync('tar', ['-xf', TEMPLATE_PATH, '-C', dataDir], { stdio: 'ignore' });
  const first = spawnServer(t, { DATA_DIR: dataDir, PORT: String(await freePort()) });
  await waitReady(first);
  assert.equal(readFileSync(join(dataDir, 'purse.pid'), 'utf8').trim(), String(first.pid));

  const second = spawnServer(t, { DATA_DIR: dataDir, PORT: String(await freePort()) });
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([second.exited, new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), 30_000)))]);
  clearTimeout(timer);
  assert.equal(code, 1, `the second server must exit 1; output:\n${second.output()}`);
  assert.match(second.output(), new RegExp(`The embedded database in .* is in use by a running Purse server \\(pid ${first.pid}\\)`));
  assert.match(second.output(), /DATABASE_URL/, 'the message names the way out (PostgreSQL)');
  await assert.rejects(fetch(`${second.baseUrl}/readyz`), 'the second server never listened');

  // The first server is untouched: still ready, still holding the lock.
  const res = await fetch(`${first.baseUrl}/readyz`);
  assert.equal(res.status, 200);
  assert.equal(readFileSync(join(dataDir, 'purse.pid'), 'utf8').trim(), String(first.pid));
  reportFigures(t, 'two processes (pglite data dir)', {
    firstPid: first.pid,
    secondExitCode: code,
    message: second.output().split('\n')[0],
  });
});
