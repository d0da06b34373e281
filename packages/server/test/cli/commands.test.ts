// The operator command's refusals, PostgreSQL and webhook-secret commands (a file of its own: the
// embedded-database suite in cli.test.ts alone takes minutes on a loaded machine).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { dataDirBusy } from '../../src/cli/errors.ts';
import { buildTestApp } from '../helpers/app.ts';
import { freePort, spawnServer, waitReady } from '../helpers/processes.ts';
import { migratedDataDir } from '../helpers/programs.ts';
import { assertOk, credentials, purse, startSleeper, tempDir } from './support.ts';

describe('purse refusals that never open the database', () => {
  test('a live process holding DATA_DIR makes every command refuse', async (t) => {
    const dataDir = tempDir(t, 'purse-cli-busy-');
    const holder = startSleeper(t);
    writeFileSync(join(dataDir, 'purse.pid'), String(holder.pid));
    const run = await purse(['merchant', 'create', '--name', 'Nope', '--json'], { DATA_DIR: dataDir });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, `purse: ${dataDirBusy(dataDir, holder.pid!, 'merchant create').message}\n`);
    assert.deepEqual(readdirSync(dataDir), ['purse.pid'], 'the database was not created or opened');
  });

  test('a running server on the embedded database: a command says in one line that it needs the database alone, and exits 1 at once', async (t) => {
    const dataDir = migratedDataDir(t, 'purse-cli-server-');
    const server = spawnServer(t, { PORT: String(await freePort()), DATA_DIR: dataDir });
    await waitReady(server);
    for (const words of [['merchant', 'list'], ['migrate']]) {
      const started = performance.now();
      const run = await purse(words, { DATA_DIR: dataDir });
      const seconds = (performance.now() - started) / 1000;
      assert.equal(run.code, 1);
      assert.equal(run.stdout, '');
      assert.equal(run.stderr, `purse: ${dataDirBusy(dataDir, server.pid, words.join(' ')).message}\n`);
      assert.equal(run.stderr.split('\n').length, 2, 'one line');
      assert.match(run.stderr, /needs the embedded database in .* to itself, and a running Purse server \(pid \d+\) has it open: stop/);
      // Without loading the service or touching the database: well within the time the command takes to run at all.
      assert.ok(seconds < 30, `refused after ${seconds.toFixed(1)} s`);
    }
    const ready = await fetch(`${server.base}/readyz`);
    assert.equal(ready.status, 200, 'the server is unharmed');
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
  const dataDir = migratedDataDir({ after }, 'purse-cli-whsec-');
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

describe('purse merchant update --raw-card-data', () => {
  const dataDir = migratedDataDir({ after }, 'purse-cli-rawcards-');
  test('allows and stops a live merchant posting card numbers; needs exactly one flag', async () => {
    const created = credentials(await purse(['merchant', 'create', '--name', 'Live cards', '--live', '--json'], { DATA_DIR: dataDir }));
    const allowed = await purse(['merchant', 'update', created.merchant_id, '--raw-card-data', '--json'], { DATA_DIR: dataDir });
    assertOk(allowed);
    assert.equal(JSON.parse(allowed.stdout).raw_card_data, true);
    const stopped = await purse(['merchant', 'update', created.merchant_id, '--no-raw-card-data'], { DATA_DIR: dataDir });
    assertOk(stopped);
    assert.match(stopped.stdout, /May not post card numbers/);
    const neither = await purse(['merchant', 'update', created.merchant_id], { DATA_DIR: dataDir });
    assert.equal(neither.code, 1);
    assert.match(neither.stderr, /exactly one of --raw-card-data or --no-raw-card-data/);
    const unknown = await purse(['merchant', 'update', 'mer_01jd6x8v1ffq8v2k3m4n5p6q7r', '--raw-card-data'], { DATA_DIR: dataDir });
    assert.equal(unknown.code, 1);
  });
});
