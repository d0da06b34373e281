// purse listen, run as a merchant would: the command in a child process (test/helpers/programs.ts), signed in with
// client credentials against a running Purse, forwarding each new event to a local receiver signed
// with the secret it prints; events from before it started are not forwarded; Ctrl-C stops it. The
// secret is kept in DATA_DIR between runs (mode 0600); --secret overrides it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';
import { cardMethod, uniqueRef } from '../helpers/factories.ts';
import { eventually, SERVER_DIR } from '../helpers/processes.ts';
import { purseArgs } from '../helpers/programs.ts';
import { startReceiver } from '../webhooks/receiver.ts';
import { tempDir } from './support.ts';

test('purse listen forwards new events, signed with the printed secret, in order; nothing from before; SIGINT stops it', async (t) => {
  const app = await buildTestApp(t);
  app.deps.worker.start();
  t.after(() => app.deps.worker.stop?.());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const merchant = await createTestMerchant(app, 'Listening merchant');
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const pay = (amount: string) =>
    app.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: merchant.auth,
      payload: { reference: uniqueRef(), amount, currency: 'KES', payment_method: cardMethod() },
    });
  const before = (await pay('1.00')).json();

  const child = spawn(process.execPath, [...purseArgs(), 'listen', '--forward-to', `${receiver.base}/hooks`, '--base-url', base], {
    cwd: SERVER_DIR,
    env: {
      PATH: process.env.PATH,
      PURSE_CLIENT_ID: merchant.clientId,
      PURSE_CLIENT_SECRET: merchant.clientSecret,
      DATA_DIR: tempDir(t, 'purse-listen-'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.after(() => {
    if (child.exitCode === null) process.kill(child.pid!, 'SIGKILL');
  });
  await eventually('ready', () => output.includes('Webhook signing secret:'), 90_000);
  const secret = /Webhook signing secret: (whsec_\S+)/.exec(output)![1]!;

  const after = (await pay('2.00')).json();
  await eventually('created and succeeded forwarded', () => receiver.received.filter((r) => r.path === '/hooks').length >= 2, 60_000);
  const bodies = receiver.received.map(
    (r) =>
      new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as {
        id: string;
        type: string;
        data: { object: { id: string } };
      },
  );
  assert.deepEqual(
    bodies.map((b) => [b.type, b.data.object.id]),
    [
      ['payment.created', after.id],
      ['payment.succeeded', after.id],
    ],
  );
  assert.ok(!bodies.some((b) => b.data.object.id === before.id), 'nothing from before the start');
  assert.equal(new Set(bodies.map((b) => b.id)).size, bodies.length, 'each event once');
  // The line is printed once the receiver has answered: wait for it rather than race it.
  await eventually('the forwarded line printed', () => /payment\.succeeded\s+evt_\S+ {2}→ 200/.test(output), 30_000);
  assert.equal(output.includes(merchant.clientSecret), false, 'the client secret is never printed');

  process.kill(child.pid!, 'SIGINT');
  assert.equal(await exited, 0);
});

/** Runs purse listen until it is ready, stops it, and returns what it printed. */
async function listenOnce(t: TestContext, base: string, env: Record<string, string>, extra: string[] = []): Promise<string> {
  const args = [...purseArgs(), 'listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--base-url', base, ...extra];
  const child = spawn(process.execPath, args, {
    cwd: SERVER_DIR,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.after(() => {
    if (child.exitCode === null) process.kill(child.pid!, 'SIGKILL');
  });
  await eventually('ready', () => output.includes('Ctrl-C stops') || child.exitCode !== null, 90_000);
  process.kill(child.pid!, 'SIGINT');
  assert.equal(await exited, 0, output);
  return output;
}

test('purse listen keeps its secret in DATA_DIR (mode 0600) and reuses it; --secret overrides it', async (t) => {
  const app = await buildTestApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const merchant = await createTestMerchant(app, 'Listening twice');
  const dataDir = tempDir(t, 'purse-listen-');
  const file = join(dataDir, 'listen-secret.json');
  const env = { PURSE_CLIENT_ID: merchant.clientId, PURSE_CLIENT_SECRET: merchant.clientSecret, DATA_DIR: dataDir };
  const secretOf = (output: string) => /Webhook signing secret: (whsec_\S+) {2}\((.*)\)/.exec(output)?.slice(1) ?? [];

  const [first, firstNote] = secretOf(await listenOnce(t, base, env));
  assert.match(first ?? '', /^whsec_[A-Za-z0-9+/=]{24,}$/);
  assert.equal(firstNote, `new, kept in ${file} and the same on every run; --secret overrides it`);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).secret, first);

  const [second, secondNote] = secretOf(await listenOnce(t, base, env));
  assert.equal(second, first, 'the same secret on the next run');
  assert.equal(secondNote, `kept in ${file} and the same on every run; --secret overrides it`);

  const given = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
  const [third, thirdNote] = secretOf(await listenOnce(t, base, env, ['--secret', given]));
  assert.equal(third, given);
  assert.equal(thirdNote, 'given with --secret');
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).secret, first, '--secret does not replace the kept one');
});

test('purse listen refuses without credentials or --forward-to, and says how', async () => {
  const run = (args: string[]) =>
    new Promise<{ code: number | null; err: string }>((resolve) => {
      const child = spawn(process.execPath, [...purseArgs(), 'listen', ...args], { cwd: SERVER_DIR, env: { PATH: process.env.PATH } });
      let err = '';
      child.stderr.on('data', (c: Buffer) => {
        err += c.toString();
      });
      child.once('exit', (code) => resolve({ code, err }));
    });
  const noUrl = await run([]);
  assert.equal(noUrl.code, 1);
  assert.match(noUrl.err, /--forward-to URL/);
  const noCredentials = await run(['--forward-to', 'http://127.0.0.1:9/hooks']);
  assert.equal(noCredentials.code, 1);
  assert.match(noCredentials.err, /--client-id and --client-secret/);
});
