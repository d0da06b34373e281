// The operator command on the embedded database, run as an operator would, in a child process: the
// first command on an empty directory is the real bin/purse.mjs through tsx, the others this run's
// bundle of the same code (test/helpers/programs.ts).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { buildDeps } from '../../src/deps.ts';
import { TEST_ENV } from '../helpers/app.ts';
import { assertOk, credentials, purse, tempDir } from './support.ts';

describe('purse on the embedded database', () => {
  const dataDir = tempDir({ after }, 'purse-cli-');
  const env = () => ({ DATA_DIR: dataDir });
  let acme: { merchant_id: string; client_id: string; client_secret: string };
  let acmeOldSecret: string;
  let live: { merchant_id: string; client_id: string; client_secret: string };

  test('migrate, then merchant create --json prints exactly the credentials', async () => {
    const migrated = await purse(['migrate'], env(), true);
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
