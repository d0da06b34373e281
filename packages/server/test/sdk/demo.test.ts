// npm run demo runs the walk-through as written: it starts its own Purse, every step succeeds, and
// it claims nothing about a server it has stopped. Kept running (in a terminal, or with
// PURSE_DEMO_KEEP=1), /docs answers until Ctrl-C, which stops the server and deletes its data.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { eventually } from '../helpers/processes.ts';

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));

function assertAllSteps(stdout: string): void {
  for (let n = 1; n <= 9; n++) assert.match(stdout, new RegExp(`\\n${n}\\. `), `step ${n}`);
  assert.match(stdout, /declined card: \{"status":"failed","failure":\{"code":"card_declined"/);
  assert.match(stdout, /settled: \{"status":"succeeded"\}/);
  assert.match(stdout, /refund: \{"status":"succeeded","amount":"4.00"\}/);
  assert.match(stdout, /payout: \{"status":"succeeded"\}/);
}

test('npm run demo, piped: every step of the walk-through, then Purse stopped, and it says so', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['examples/demo.mjs'], {
    cwd: ROOT,
    timeout: 180_000,
    env: { PATH: process.env.PATH },
  });
  assertAllSteps(stdout);
  assert.match(stdout, /\nDone\. Purse has stopped and its temporary database is deleted\./);
  assert.doesNotMatch(stdout, /\/docs while|keeps running at/, 'no claim that the stopped server can be opened');
  const base = /Purse is running at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
  assert.ok(base, stdout);
  await assert.rejects(fetch(`${base}/healthz`), 'nothing listens any more');
});

test('PURSE_DEMO_KEEP=1: /docs answers after the steps, until Ctrl-C stops Purse and deletes its database', async (t) => {
  const child = spawn(process.execPath, ['examples/demo.mjs'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PURSE_DEMO_KEEP: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
  });
  await eventually('the demo done and waiting', () => stdout.includes('Ctrl-C stops it') || child.exitCode !== null, 180_000);
  assertAllSteps(stdout);
  const kept = /Purse keeps running at (http:\/\/127\.0\.0\.1:\d+) \(a temporary database in (\S+)\)/.exec(stdout);
  assert.ok(kept, stdout);
  const [, base, dataDir] = kept as unknown as [string, string, string];
  assert.match(stdout, new RegExp(`API reference {2}${base}/docs\\n`));
  const docs = await fetch(`${base}/docs/`);
  assert.equal(docs.status, 200, 'the reference it names answers');
  assert.match(await docs.text(), /<title>Purse API reference<\/title>/);
  assert.ok(existsSync(dataDir));

  process.kill(child.pid!, 'SIGINT');
  assert.equal(await exited, 0, stdout);
  await assert.rejects(fetch(`${base}/healthz`), 'Ctrl-C stopped the server');
  assert.equal(existsSync(dataDir), false, 'and deleted its temporary database');
});
