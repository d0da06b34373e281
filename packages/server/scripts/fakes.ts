// `npm run fakes`: the MTN MoMo, M-Pesa Daraja and card acquirer fakes the tests use, as local
// servers for development. Writes the PURSE_* variables that point Purse at them to
// .data/fakes.env (in the repository root), which `npm run start:fakes` reads. Ctrl-C stops them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeTestCards, fakeAcquirerEnv, startFakeAcquirer } from '../test/fakes/acquirer.ts';
import { fakeMpesaEnv, startFakeMpesa } from '../test/fakes/mpesa.ts';
import { fakeMtnEnv, startFakeMtn } from '../test/fakes/mtn.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const envFile = process.env.PURSE_FAKES_ENV_FILE ?? resolve(root, '.data/fakes.env');
const publicUrl = process.env.PURSE_PUBLIC_URL ?? `http://127.0.0.1:${process.env.PORT ?? '8080'}`;
const settleDelayMs = Number(process.env.PURSE_FAKES_SETTLE_DELAY_MS ?? '3000');
// Where the acquirer fake sends its signed events (Stripe's webhook endpoint is set on Stripe's side).
const acquirerWebhookUrl = process.env.PURSE_FAKES_ACQUIRER_WEBHOOK_URL ?? `${publicUrl}/provider-callbacks/acquirer`;

const mtn = await startFakeMtn({ settleDelayMs });
const mpesa = await startFakeMpesa({ settleDelayMs });
const acquirer = await startFakeAcquirer({
  webhookUrl: acquirerWebhookUrl,
  webhookRetryDelaysMs: [1000, 5000, 30_000],
  refundSettleDelayMs: settleDelayMs,
});
const env = {
  // PORT=8081 npm run fakes: `npm run start:fakes` then listens where the fakes call back, without PORT again.
  ...(process.env.PORT ? { PORT: process.env.PORT } : {}),
  ...fakeMtnEnv(mtn, publicUrl),
  ...fakeMpesaEnv(mpesa, publicUrl),
  ...fakeAcquirerEnv(acquirer, publicUrl),
};
mkdirSync(dirname(envFile), { recursive: true });
writeFileSync(
  envFile,
  `${Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n')}\n`,
  { mode: 0o600 },
);

process.stdout.write(
  [
    `MTN MoMo fake     ${mtn.url}  (numbers ending 000 succeed, 001 not enough funds, 002 payer not found, 005 never settle)`,
    `M-Pesa Daraja fake ${mpesa.url}  (2547… numbers ending 000 succeed, 001 insufficient funds, 002 cancelled, 003 unreachable, 005 never settle)`,
    `Card acquirer fake ${acquirer.url}  (Stripe's PaymentIntents API; signed events to ${acquirerWebhookUrl}). Test cards, any future expiry:`,
    ...describeTestCards(),
    `Settled after ${settleDelayMs} ms; callbacks to ${publicUrl}.`,
    `Wrote ${envFile}. In another terminal: npm run start:fakes`,
    '',
  ].join('\n'),
);

const stop = async () => {
  await Promise.all([mtn.close(), mpesa.close(), acquirer.close()]);
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
