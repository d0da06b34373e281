// `npm run fakes` then `npm run start:fakes`: the fakes script writes an env file that points Purse
// at the provider fakes, and a live merchant's mobile-money payments settle through MTN and M-Pesa
// with those variables only; the card acquirer fake answers to the key the file gives.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildTestApp, createTestMerchant } from '../helpers/app.ts';
import { post, uniqueRef, waitFor } from '../helpers/factories.ts';
import { freePort, SERVER_DIR } from '../helpers/processes.ts';
import { usePrivatePostgres } from '../webhooks/support.ts';

// A database of its own on PostgreSQL: another file's worker must not settle this file's provider charges.
usePrivatePostgres();

test('the fakes script writes the PURSE_* variables; with them alone a live merchant is paid through MTN and M-Pesa', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'purse-fakes-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const envFile = join(dir, 'fakes.env');
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/fakes.ts'], {
    cwd: SERVER_DIR,
    env: { ...process.env, PURSE_FAKES_ENV_FILE: envFile, PURSE_PUBLIC_URL: `http://127.0.0.1:${port}`, PURSE_FAKES_SETTLE_DELAY_MS: '50' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  t.after(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  await waitFor(async () => output.includes('npm run start:fakes'), 90_000, 50);
  const env = Object.fromEntries(
    readFileSync(envFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  assert.ok(env.PURSE_MTN_BASE_URL && env.PURSE_MPESA_BASE_URL, Object.keys(env).join(','));
  assert.match(env.PURSE_CARD_ACQUIRER_WEBHOOK_SECRET ?? '', /^whsec_/);
  assert.match(output, /4000000000003220 +3-D Secure challenge, then succeeds/);
  const acquirer = await fetch(`${env.PURSE_CARD_ACQUIRER_BASE_URL}/v1/payment_intents/pi_none`, {
    headers: { authorization: `Bearer ${env.PURSE_CARD_ACQUIRER_SECRET_KEY}` },
  });
  assert.deepEqual([acquirer.status, ((await acquirer.json()) as { error: { code: string } }).error.code], [404, 'resource_missing']);
  const app = await buildTestApp(t, { env });
  await app.listen({ port, host: '127.0.0.1' });
  app.deps.worker.start();
  const merchant = await createTestMerchant(app, 'Live shop', true);
  for (const [provider, phone] of [
    ['mtn', '+256771234000'],
    ['mpesa', '+254712345000'],
  ] as const) {
    const res = await post(app, merchant, '/v1/payments', {
      reference: uniqueRef(provider),
      amount: provider === 'mpesa' ? '100.00' : '1000',
      currency: provider === 'mpesa' ? 'KES' : 'UGX',
      payment_method: { type: 'mobile_money', mobile_money: { phone_number: phone, provider } },
    });
    assert.equal(res.statusCode, 201, res.body);
    const id = res.json().id as string;
    const settled = await waitFor(async () => {
      const view = (await app.inject({ method: 'GET', url: `/v1/payments/${id}`, headers: merchant.auth })).json();
      return view.status !== 'pending' ? view : null;
    }, 20_000);
    assert.equal(settled.status, 'succeeded', `${provider}: ${JSON.stringify(settled)}`);
  }
});

test('PORT=… npm run fakes: the env file carries that PORT, so npm run start:fakes listens where the fakes call back', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'purse-fakes-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const envFile = join(dir, 'fakes.env');
  const port = await freePort();
  const { PURSE_PUBLIC_URL: _unset, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/fakes.ts'], {
    cwd: SERVER_DIR,
    env: { ...inherited, PURSE_FAKES_ENV_FILE: envFile, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  t.after(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  await waitFor(async () => output.includes('npm run start:fakes'), 90_000, 50);
  const lines = readFileSync(envFile, 'utf8').trim().split('\n');
  assert.ok(lines.includes(`PORT=${port}`), lines.join('\n'));
  assert.ok(lines.includes(`PURSE_PUBLIC_URL=http://127.0.0.1:${port}`), lines.join('\n'));
});
