// npm run demo: the README's walk-through, run for you against a Purse of its own. It starts the
// server on a fresh embedded database (a temporary DATA_DIR, a free port), reads the sandbox
// merchant it prints, and with @purse/sdk makes a wallet, tops it up, pays from it, pays by card
// and by mobile money, moves money, refunds, pays out and reads the balance, printing each step.
// In a terminal it then keeps that Purse running (its /docs and dashboard) until Ctrl-C; piped, or
// with PURSE_DEMO_KEEP=0, it stops it at once (PURSE_DEMO_KEEP=1 keeps it even when piped). Either
// way the server is stopped and its temporary database deleted when the demo ends.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Purse } from '@purse/sdk';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const dataDir = mkdtempSync(join(tmpdir(), 'purse-demo-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], {
  cwd: ROOT,
  env: {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    PURSE_LOG_FORMAT: 'json',
    LOG_LEVEL: 'warn',
    PURSE_SANDBOX_DELAY_MS: '1000',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let output = '';
server.stdout.on('data', (c) => {
  output += c.toString();
});
const keep = process.env.PURSE_DEMO_KEEP ? process.env.PURSE_DEMO_KEEP !== '0' : process.stdout.isTTY === true;
const serverExited = new Promise((resolve) => server.once('exit', resolve));
const running = () => server.exitCode === null && server.signalCode === null;
/** Stops the server (it finishes its requests and closes the database), then deletes its data. */
async function stopServer() {
  if (running()) server.kill('SIGTERM');
  await serverExited;
  rmSync(dataDir, { recursive: true, force: true });
}
// Last resort (an unexpected exit): no waiting is possible here.
process.on('exit', () => {
  if (running()) server.kill('SIGTERM');
});
// Ctrl-C while the steps run: stop the server and delete its data before leaving.
let waiting = false;
const stopOnSignal = () => {
  if (!waiting) void stopServer().finally(() => process.exit(130));
};
process.on('SIGINT', stopOnSignal);
process.on('SIGTERM', stopOnSignal);
/** Until Ctrl-C (or SIGTERM), or until the server stops by itself. */
const interrupted = () => {
  waiting = true;
  return Promise.race([
    new Promise((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    }),
    serverExited,
  ]);
};

const step = (n, text) => console.log(`\n${n}. ${text}`);
const show = (label, object) => console.log(`   ${label}: ${JSON.stringify(object)}`);

try {
  for (let i = 0; !output.includes('client_secret:'); i++) {
    if (server.exitCode !== null || i > 600) throw new Error(`the server did not start:\n${output}`);
    await sleep(100);
  }
  const value = (name) => new RegExp(`${name}:\\s+(\\S+)`).exec(output)[1];
  const purse = new Purse({ baseUrl: base, clientId: value('client_id'), clientSecret: value('client_secret') });
  console.log(`Purse is running at ${base} with a new sandbox merchant (${value('merchant_id')}).`);

  step(1, 'Who am I? (the SDK fetched a token with the client credentials)');
  const me = await purse.merchant.retrieve();
  show('merchant', { id: me.id, livemode: me.livemode });

  step(2, 'A wallet, topped up with a sandbox card');
  const wallet = await purse.wallets.create({ currency: 'KES', holder: { name: 'Amina' } });
  const card = { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' };
  const topup = await purse.topups.create({
    reference: 'demo-topup-1',
    amount: '500.00',
    currency: 'KES',
    wallet_id: wallet.id,
    source: { type: 'card', card },
  });
  show('top-up', { id: topup.id, status: topup.status, amount: topup.amount });

  step(3, 'Pay from the wallet (debited atomically)');
  const fromWallet = await purse.payments.create({
    reference: 'demo-order-1001',
    amount: '120.50',
    currency: 'KES',
    payment_method: { type: 'wallet', wallet: { wallet_id: wallet.id } },
  });
  show('payment', { id: fromWallet.id, status: fromWallet.status });
  show('wallet', { balance: (await purse.wallets.retrieve(wallet.id)).balance });

  step(4, 'Pay by card: 4242… succeeds, 4000000000000002 is the sandbox decline');
  const byCard = await purse.payments.create({
    reference: 'demo-order-1002',
    amount: '10.00',
    currency: 'KES',
    payment_method: { type: 'card', card },
  });
  const declined = await purse.payments.create({
    reference: 'demo-order-1003',
    amount: '10.00',
    currency: 'KES',
    payment_method: { type: 'card', card: { ...card, number: '4000000000000002' } },
  });
  show('card', { status: byCard.status });
  show('declined card', { status: declined.status, failure: declined.failure });

  step(5, 'Pay by mobile money: pending, settled by the sandbox about a second later');
  const mobile = await purse.payments.create({
    reference: 'demo-order-1004',
    amount: '1500',
    currency: 'KES',
    payment_method: { type: 'mobile_money', mobile_money: { phone_number: '+254712345678', provider: 'mpesa' } },
  });
  show('created', { id: mobile.id, status: mobile.status });
  let settled = mobile;
  for (let i = 0; settled.status === 'pending' && i < 100; i++) {
    await sleep(200);
    settled = await purse.payments.retrieve(mobile.id);
  }
  show('settled', { status: settled.status });

  step(6, 'Move money between wallets');
  const other = await purse.wallets.create({ currency: 'KES', holder: { name: 'Baraka' } });
  const transfer = await purse.transfers.create({
    reference: 'demo-transfer-1',
    amount: '50.00',
    currency: 'KES',
    source_wallet_id: wallet.id,
    destination_wallet_id: other.id,
  });
  show('transfer', { status: transfer.status });

  step(7, 'Refund part of the card payment');
  const refund = await purse.refunds.create({ reference: 'demo-refund-1', payment_id: byCard.id, amount: '4.00' });
  show('refund', { status: refund.status, amount: refund.amount });

  step(8, 'Pay out collected funds to a wallet');
  const payout = await purse.payouts.create({
    reference: 'demo-payout-1',
    amount: '5.00',
    currency: 'KES',
    destination: { type: 'wallet', wallet: { wallet_id: other.id } },
  });
  show('payout', { status: payout.status });

  step(9, 'The balance, and the latest movements of it');
  show('balance', await purse.balance.retrieve());
  const lines = await purse.balanceTransactions.list({ limit: 3 });
  for (const line of lines.data) show('line', { source: line.source_type, amount: line.amount, balance_after: line.balance_after });

  if (keep) {
    console.log(
      `\nDone. Purse keeps running at ${base} (a temporary database in ${dataDir}) until you press Ctrl-C:\n` +
        `   API reference  ${base}/docs\n` +
        `   Dashboard      ${base}/dashboard  (sign in with client id ${value('client_id')} and client secret ${value('client_secret')})\n` +
        'Ctrl-C stops it and deletes that database.',
    );
    await interrupted();
    console.log('Stopping Purse…');
  } else {
    console.log(
      '\nDone. Purse has stopped and its temporary database is deleted. To explore /docs and the dashboard, run ' +
        '`npm run demo` in a terminal (or with PURSE_DEMO_KEEP=1), which keeps it running until Ctrl-C, or `npm start`.',
    );
  }
} catch (error) {
  console.error(`demo: ${error.message}${error.requestId ? ` (request ${error.requestId})` : ''}`);
  process.exitCode = 1;
} finally {
  await stopServer();
}
