// The card acquirer fake of the tests (packages/server/test/fakes/acquirer.ts, Stripe's
// PaymentIntents API) in a process of its own, for the bench's card-acquirer scenario: its CPU is
// then measured by pid, apart from Purse's and the load generator's (the bench process), and it
// takes nothing from autocannon's event loop. It answers at once (no delay, no fault armed) and
// sends no webhooks (they are recorded, not posted: Purse would only read the intent back).
// Writes the PURSE_CARD_ACQUIRER_* variables as JSON to BENCH_ACQUIRER_ENV_FILE (mode 0600; the
// bench reads and deletes it), prints only its URL, and stops on SIGTERM.
import { renameSync, writeFileSync } from 'node:fs';
import { fakeAcquirerEnv, startFakeAcquirer } from '../packages/server/test/fakes/acquirer.ts';

async function main(envFile: string): Promise<void> {
  const fake = await startFakeAcquirer({ webhookUrl: null });
  const all = fakeAcquirerEnv(fake, '');
  const env = {
    PURSE_CARD_ACQUIRER_BASE_URL: all.PURSE_CARD_ACQUIRER_BASE_URL,
    PURSE_CARD_ACQUIRER_SECRET_KEY: all.PURSE_CARD_ACQUIRER_SECRET_KEY,
    PURSE_CARD_ACQUIRER_WEBHOOK_SECRET: all.PURSE_CARD_ACQUIRER_WEBHOOK_SECRET,
  };
  // Renamed into place once complete, so the bench never reads half a file.
  writeFileSync(`${envFile}.tmp`, JSON.stringify(env), { mode: 0o600 });
  renameSync(`${envFile}.tmp`, envFile);
  process.stdout.write(`acquirer fake listening on ${fake.url}\n`);
  // The fake logs every request for the tests' assertions; the bench reads none, so the log is
  // emptied every second to keep a long run's memory flat.
  setInterval(() => fake.requests.splice(0), 1000).unref();
  const stop = async () => {
    await fake.close();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

const envFile = process.env.BENCH_ACQUIRER_ENV_FILE;
if (envFile) {
  main(envFile).catch((error: unknown) => {
    process.stderr.write(`acquirer fake failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
} else {
  process.stderr.write('BENCH_ACQUIRER_ENV_FILE is not set\n');
  process.exit(2);
}
