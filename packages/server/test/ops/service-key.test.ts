import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { pino } from 'pino';
import { createApp } from '../../src/app.ts';
import { runCli } from '../../src/cli/run.ts';
import { loadConfig } from '../../src/config.ts';
import type { DbHandle } from '../../src/db/db.ts';
import { buildDeps, type Deps, deriveEncryptionKey, deriveHashKey } from '../../src/deps.ts';
import { KEY_FILE_NAME, LEGACY_SETTING } from '../../src/service-key.ts';
import { ConfigError } from '../../src/shared/env.ts';
import { decryptSecret } from '../../src/shared/secrets.ts';
import { rekeyWebhookSecrets } from '../../src/webhooks/secrets.ts';
import { TEST_ENV } from '../helpers/app.ts';
import { openTestDb, testDatabaseUrl } from '../helpers/database.ts';
import { cardMethod, createWallet, post, uniqueRef } from '../helpers/factories.ts';
import { migratedDataDir } from '../helpers/programs.ts';
import { usePrivatePostgres } from '../webhooks/support.ts';

// A database of its own on PostgreSQL: what this file counts or re-keys is its own rows only.
usePrivatePostgres();

const KEY_A = 'rotation-key-a-0123456789abcdef0123456789';
const KEY_B = 'rotation-key-b-0123456789abcdef0123456789';

/** The same open database for several starts (each start's close leaves it open). */
function shared(handle: DbHandle): DbHandle {
  return { ...handle, close: async () => {} };
}

function envWithout(...names: string[]): Record<string, string> {
  const env = { ...TEST_ENV };
  for (const name of names) delete env[name];
  return env;
}

async function start(db: DbHandle, env: Record<string, string>) {
  const deps = await buildDeps(loadConfig(env), { db: shared(db), logger: pino({ level: 'silent' }) });
  const app = await createApp(deps);
  await app.ready();
  return {
    deps,
    app,
    stop: async () => {
      await app.close();
      await deps.close();
    },
  };
}

async function token(app: Awaited<ReturnType<typeof createApp>>, clientId: string, clientSecret: string) {
  return app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
  });
}

async function merchantWithToken(deps: Deps, app: Awaited<ReturnType<typeof createApp>>) {
  const created = await deps.services.merchants.createMerchant({ name: 'Key test', livemode: false });
  assert.ok(created.ok);
  const { client_id, client_secret, merchant_id } = created.value;
  const res = await token(app, client_id, client_secret);
  assert.equal(res.statusCode, 200, res.body);
  return {
    clientId: client_id,
    clientSecret: client_secret,
    merchantId: merchant_id,
    auth: { authorization: `Bearer ${res.json().access_token}` },
  };
}

/** Every row of every table in the public schema, as text: what a dump holds. */
async function dumpAll(deps: Deps): Promise<{ text: string; settings: unknown[] }> {
  const tables = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`.execute(deps.db.db);
  const parts: string[] = [];
  for (const { table_name } of tables.rows) {
    const rows = await sql`SELECT * FROM ${sql.table(table_name)}`.execute(deps.db.db);
    parts.push(JSON.stringify(rows.rows, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
  }
  const settings = (await sql`SELECT * FROM settings`.execute(deps.db.db)).rows;
  return { text: parts.join('\n'), settings };
}

function keyForms(secret: string): string[] {
  const hash = deriveHashKey(secret);
  const enc = deriveEncryptionKey(hash);
  const forms = [secret];
  for (const buf of [Buffer.from(secret), hash, enc]) forms.push(buf.toString('base64'), buf.toString('base64url'), buf.toString('hex'));
  return forms;
}

test('a dump of a running Purse holds no service key, nor anything the key derives', async (t) => {
  const onPostgres = testDatabaseUrl() !== null;
  const db = await openTestDb();
  t.after(() => db.close());
  const dataDir = mkdtempSync(join(tmpdir(), 'purse-key-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  // PGlite: no key set (the newcomer's start). PostgreSQL: a key is required; an older version's
  // generated row equal to it is planted and must be gone after the start.
  const env = onPostgres ? { ...TEST_ENV, PURSE_SECRET_KEY: KEY_A } : { ...envWithout('PURSE_SECRET_KEY'), DATA_DIR: dataDir };
  if (onPostgres) await db.db.insertInto('settings').values({ key: LEGACY_SETTING, value: KEY_A }).execute();
  const purse = await start(db, env);
  t.after(() => purse.stop());
  const secret = onPostgres ? KEY_A : readFileSync(join(dataDir, KEY_FILE_NAME), 'utf8').trim();
  const m = await merchantWithToken(purse.deps, purse.app);
  const endpoint = await post(purse.app as never, m as never, '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hook' });
  assert.equal(endpoint.statusCode, 201, endpoint.body);
  const wallet = await createWallet(purse.app as never, m as never);
  const topup = await post(purse.app as never, m as never, '/v1/topups', {
    reference: uniqueRef(),
    amount: '5',
    currency: 'KES',
    wallet_id: wallet,
    source: cardMethod(),
  });
  assert.equal(topup.statusCode, 201, topup.body);

  const dump = await dumpAll(purse.deps);
  assert.ok(dump.text.includes('whsec') || dump.text.includes('v1.'), 'the dump holds the sealed webhook secret');
  for (const form of keyForms(secret)) assert.ok(!dump.text.includes(form), 'the dump holds the service key or a key derived from it');
  assert.deepEqual(
    dump.settings.filter((row) => JSON.stringify(row).includes(secret) || (row as { key: string }).key === LEGACY_SETTING),
    [],
  );
});

test('PostgreSQL: the server and the CLI refuse to start without PURSE_SECRET_KEY, saying how to make one', async () => {
  const env = { ...envWithout('PURSE_SECRET_KEY'), DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres' };
  assert.throws(
    () => loadConfig(env),
    (error: unknown) => error instanceof ConfigError && /PURSE_SECRET_KEY.*openssl rand/.test(error.message),
  );
  let stderr = '';
  const code = await runCli(['merchant', 'list'], { env, stdout: () => {}, stderr: (text) => (stderr += text) });
  assert.equal(code, 1);
  assert.match(stderr, /^purse: invalid configuration: PostgreSQL needs PURSE_SECRET_KEY .*openssl rand -base64 48/);
  // A key from a file works too.
  const dir = mkdtempSync(join(tmpdir(), 'purse-keyfile-'));
  try {
    const file = join(dir, 'key');
    writeFileSync(file, `${KEY_A}\n`);
    assert.equal(loadConfig({ ...env, PURSE_SECRET_KEY_FILE: file }).secretKey, KEY_A);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('PGlite without a key: a key file (0600) in DATA_DIR, reused by the next start and by the CLI; an old settings row moves into it', async (t) => {
  const dataDir = migratedDataDir(t, 'purse-pglite-key-');
  const env = { ...envWithout('PURSE_SECRET_KEY'), DATA_DIR: dataDir };
  delete (env as Record<string, string | undefined>).DATABASE_URL;
  // An older version's database: its generated key sits in settings, and a merchant was made with it.
  const legacy = 'legacy-generated-key-0123456789abcdef012345';
  {
    const deps = await buildDeps(loadConfig({ ...env, PURSE_SECRET_KEY: legacy }), { logger: pino({ level: 'silent' }) });
    await deps.db.db.insertInto('settings').values({ key: LEGACY_SETTING, value: legacy }).execute();
    await deps.close();
  }
  let stdout = '';
  const cli = await runCli(['merchant', 'create', '--name', 'Cli', '--json'], {
    env,
    stdout: (text) => (stdout += text),
    stderr: () => {},
  });
  assert.equal(cli, 0);
  const file = join(dataDir, KEY_FILE_NAME);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(readFileSync(file, 'utf8').trim(), legacy, 'the old key moved into the file');
  const created = JSON.parse(stdout);
  const deps = await buildDeps(loadConfig(env), { logger: pino({ level: 'silent' }) });
  t.after(() => deps.close());
  const app = await createApp(deps);
  t.after(() => app.close());
  const rows = await deps.db.db.selectFrom('settings').selectAll().where('key', '=', LEGACY_SETTING).execute();
  assert.deepEqual(rows, []);
  assert.equal((await token(app, created.client_id, created.client_secret)).statusCode, 200, 'the CLI and the server share the key file');
  assert.equal(readFileSync(file, 'utf8').trim(), legacy, 'reused, not regenerated');
});

test('rotation: with the previous key, old webhook secrets decrypt and old client secrets work; after rekey the previous key can go', async (t) => {
  const db = await openTestDb();
  t.after(() => db.close());
  const base = envWithout('PURSE_SECRET_KEY');
  const dataDir = mkdtempSync(join(tmpdir(), 'purse-rotate-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const envA = { ...base, DATA_DIR: dataDir, PURSE_SECRET_KEY: KEY_A };
  const first = await start(db, envA);
  const m = await merchantWithToken(first.deps, first.app);
  const endpoint = await post(first.app as never, m as never, '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hook' });
  assert.equal(endpoint.statusCode, 201, endpoint.body);
  const whsec = endpoint.json().secret as string;
  const endpointId = endpoint.json().id as string;
  assert.match(whsec, /^whsec_/);
  await first.stop();

  // New key, old one as previous.
  const rotating = await start(db, { ...envA, PURSE_SECRET_KEY: KEY_B, PURSE_SECRET_KEY_PREVIOUS: KEY_A });
  const sealed = await db.db.selectFrom('webhook_endpoints').select('secret_enc').where('id', '=', endpointId).executeTakeFirstOrThrow();
  assert.equal(decryptSecret(rotating.deps.encryptionKey, sealed.secret_enc), whsec);
  assert.equal(
    (await rotating.app.inject({ method: 'GET', url: '/v1/wallets', headers: m.auth })).statusCode,
    200,
    'an old token still works',
  );
  assert.equal(
    (await token(rotating.app, m.clientId, m.clientSecret)).statusCode,
    200,
    'an old client secret still works (and is re-keyed)',
  );
  assert.ok((await rekeyWebhookSecrets(rotating.deps.db.db, rotating.deps.encryptionKey)) >= 1);
  await rotating.stop();

  // The previous key removed: everything still works.
  const after = await start(db, { ...envA, PURSE_SECRET_KEY: KEY_B });
  t.after(() => after.stop());
  const resealed = await db.db.selectFrom('webhook_endpoints').select('secret_enc').where('id', '=', endpointId).executeTakeFirstOrThrow();
  assert.equal(decryptSecret(after.deps.encryptionKey, resealed.secret_enc), whsec);
  assert.equal((await token(after.app, m.clientId, m.clientSecret)).statusCode, 200);
  // And the old key alone opens nothing any more.
  assert.throws(() => decryptSecret(deriveEncryptionKey(deriveHashKey(KEY_A)), resealed.secret_enc));
});
