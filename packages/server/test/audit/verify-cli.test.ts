// `purse audit verify`, run as an operator would (the command in a child process, on an
// embedded database): ok on an intact log, exit 1 naming the first broken record once one is changed.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { buildDeps } from '../../src/deps.ts';
import { assertOk, credentials, purse } from '../cli/support.ts';
import { TEST_ENV } from '../helpers/app.ts';
import { migratedDataDir } from '../helpers/programs.ts';

test('purse audit verify: ok, then a changed record is named and the command exits 1', async () => {
  // Migrated already (test/cli/cli.test.ts runs migrate on an empty directory).
  const dataDir = migratedDataDir({ after }, 'purse-audit-');
  const env = { DATA_DIR: dataDir };
  const acme = credentials(await purse(['merchant', 'create', '--name', 'Acme', '--json'], env));
  assertOk(await purse(['merchant', 'rotate-secret', acme.merchant_id, '--json'], env));
  assertOk(await purse(['merchant', 'disable', acme.merchant_id], env));
  const ok = await purse(['audit', 'verify'], env);
  assertOk(ok);
  assert.equal(ok.stdout, `${acme.merchant_id}: ok, 3 records\n`);

  // Tampered as only a superuser can (triggers off), with the database to itself.
  const deps = await buildDeps(loadConfig({ ...TEST_ENV, DATA_DIR: dataDir }));
  const [second] = (await sql<{ id: string }>`SELECT id FROM audit_events WHERE seq = 2`.execute(deps.db.db)).rows;
  await deps.db.db.transaction().execute(async (trx) => {
    await sql`SET LOCAL session_replication_role = replica`.execute(trx);
    await sql`UPDATE audit_events SET action = 'merchant.updated' WHERE seq = 2`.execute(trx);
  });
  await deps.close();

  const broken = await purse(['audit', 'verify', '--json'], env);
  assert.equal(broken.code, 1, broken.stderr);
  const [verdict] = JSON.parse(broken.stdout);
  assert.deepEqual(verdict.brokenAt, { seq: 2, id: second!.id });
  assert.match(broken.stderr, /1 of 1 chains are broken/);
});
