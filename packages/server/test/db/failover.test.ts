// What a failover looks like to one Purse process, simulated on the local PostgreSQL
// (docs/failover.md): the node turns read-only (25006, a demoted primary or a standby behind
// HAProxy), its backends are terminated (57P01, connections lost mid-batch). Every answer is a
// 2xx or a 503 with Retry-After, never a 500; /readyz is not ready while no writable primary
// answers; the pool recovers by itself; retries with the same reference settle each in-doubt
// payment exactly once. On its own database (ALTER DATABASE would touch other tests').
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { httpClient, inParallel, minorUnits } from '../concurrency/support.ts';
import { buildTestApp, createTestMerchant, type TestApp } from '../helpers/app.ts';
import { testDatabaseUrl } from '../helpers/database.ts';
import { assertLedgerHealthy, cardMethod, walletMethod } from '../helpers/factories.ts';
import { eventually, sleep } from '../helpers/processes.ts';

const databaseUrl = testDatabaseUrl();
const serverDir = fileURLToPath(new URL('../..', import.meta.url));
const skip = databaseUrl ? false : 'needs PostgreSQL (TEST_DATABASE_URL)';

/** An app on a database of its own (created from the migrations, dropped at the end), listening on a free port. */
async function isolatedApp(t: { after(fn: () => unknown): void }): Promise<{ app: TestApp; url: string; base: string; admin: pg.Client }> {
  const adminUrl = new URL(databaseUrl!);
  adminUrl.pathname = '/postgres';
  const make = (...args: string[]) =>
    execFileSync(process.execPath, ['--import', 'tsx', 'test/helpers/make-template.ts', ...args], {
      cwd: serverDir,
      env: { ...process.env, DATABASE_URL: adminUrl.toString() },
      encoding: 'utf8',
    }).trim();
  const url = make('create-postgres');
  t.after(() => make('drop-postgres', url));
  const previous = process.env.TEST_DATABASE_URL;
  process.env.TEST_DATABASE_URL = url;
  let app: TestApp;
  try {
    app = await buildTestApp(t);
  } finally {
    process.env.TEST_DATABASE_URL = previous;
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  const admin = new pg.Client({ connectionString: url });
  // Dropping the database at the end ends this connection too.
  admin.on('error', () => {});
  await admin.connect();
  t.after(() => admin.end());
  return { app, url, base: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, admin };
}

/** Ends every connection of the app's pool (application_name purse), as a node going down does. */
async function terminatePurse(admin: pg.Client): Promise<number> {
  const { rowCount } = await admin.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'purse' AND pid <> pg_backend_pid()`,
  );
  return rowCount ?? 0;
}

async function metric(base: string, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => pattern.test(l));
  return line ? Number(line.split(' ').pop()) : 0;
}

test('a read-only node (25006): writes answer 503 with Retry-After, readyz is not ready, both recover by themselves', {
  skip,
}, async (t) => {
  const { app, base, admin } = await isolatedApp(t);
  const merchant = await createTestMerchant(app, 'Read-only');
  const client = httpClient([base], merchant.auth);
  assert.equal((await client.request('POST', '/v1/wallets', { currency: 'KES' })).status, 201);
  const ready = await client.request('GET', '/readyz');
  assert.equal(ready.status, 200);
  assert.equal(ready.body.database.writable, true);

  const { rows } = await admin.query<{ d: string }>('SELECT current_database() AS d');
  const database = `"${rows[0]!.d}"`;
  await admin.query(`ALTER DATABASE ${database} SET default_transaction_read_only = on`);
  await terminatePurse(admin);
  // The first requests may meet a pool connection that has just been terminated (503 too).
  const refused = await eventually('a write refused as read-only', async () => {
    const res = await client.request('POST', '/v1/wallets', { currency: 'KES' });
    assert.equal(res.status, 503, JSON.stringify(res.body));
    return (await metric(base, /^purse_unavailable_total\{cause="read_only"\}/)) > 0 ? res : null;
  });
  assert.equal(refused.body.error.code, 'service_unavailable');
  assert.equal(refused.headers['retry-after'], '2');
  const unready = await client.request('GET', '/readyz');
  assert.equal(unready.status, 503);
  assert.equal(unready.headers['retry-after'], '2');
  assert.equal(await metric(base, /^purse_database_available /), 0);

  await admin.query(`ALTER DATABASE ${database} RESET default_transaction_read_only`);
  await terminatePurse(admin);
  await eventually('ready again', async () => (await client.request('GET', '/readyz')).status === 200, 15_000);
  assert.equal((await client.request('POST', '/v1/wallets', { currency: 'KES' })).status, 201);
  assert.equal(await metric(base, /^purse_database_available /), 1);
  assert.equal(await metric(base, /^purse_database_unavailable_window_seconds_count /), 1, 'one window, closed');
});

test('backends terminated under load: no 500, and retries with the same reference settle each payment once', { skip }, async (t) => {
  const { app, base, admin } = await isolatedApp(t);
  const merchant = await createTestMerchant(app, 'Terminated');
  const client = httpClient([base], merchant.auth);
  const wallet = (await client.request('POST', '/v1/wallets', { currency: 'KES' })).body.id as string;
  const topup = await client.request('POST', '/v1/topups', {
    reference: 'fund',
    amount: '1000.00',
    currency: 'KES',
    wallet_id: wallet,
    source: cardMethod(),
  });
  assert.equal(topup.body.status, 'succeeded');

  const attempts = 300;
  const body = (i: number) => ({ reference: `pay-${i}`, amount: '1.00', currency: 'KES', payment_method: walletMethod(wallet) });
  let killing = true;
  let terminated = 0;
  // A few node losses spread over the load, the pool reconnecting in between.
  const killer = (async () => {
    for (let kills = 0; killing && kills < 5; kills++) {
      await sleep(250);
      terminated += await terminatePurse(admin);
    }
  })();
  const first = await inParallel(attempts, 32, (i) => client.request('POST', '/v1/payments', body(i)));
  killing = false;
  await killer;
  const statuses: Record<number, number> = {};
  for (const r of first) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  t.diagnostic(`first answers ${JSON.stringify(statuses)}, backends terminated ${terminated}`);
  assert.equal(statuses[500] ?? 0, 0, 'never a 500');
  for (const r of first) {
    assert.ok(r.status === 201 || r.status === 503, `${r.status} ${JSON.stringify(r.body)}`);
    if (r.status === 503) assert.equal(r.headers['retry-after'], '2');
  }
  assert.ok((statuses[503] ?? 0) > 0, 'the terminations reached requests (else this proves nothing)');

  // Every 503 retried, same reference and body, until answered: 201 (written now) or 200 (it was written).
  for (const [i, r] of first.entries()) {
    if (r.status !== 503) continue;
    const again = await eventually(`payment ${i} settled`, async () => {
      const res = await client.request('POST', '/v1/payments', body(i));
      return res.status === 503 ? null : res;
    });
    assert.ok(again.status === 200 || again.status === 201, `${again.status} ${JSON.stringify(again.body)}`);
  }
  const { rows } = await admin.query<{ n: string; refs: string }>(
    `SELECT count(*) AS n, count(DISTINCT reference) AS refs FROM charges WHERE wallet_id = $1 AND kind = 'payment' AND status = 'succeeded'`,
    [wallet],
  );
  assert.equal(Number(rows[0]!.n), attempts, 'each payment once');
  assert.equal(Number(rows[0]!.refs), attempts);
  const balance = await client.request('GET', `/v1/wallets/${wallet}`);
  assert.equal(minorUnits(balance.body.balance as string), 100_000n - BigInt(attempts) * 100n);
  await assertLedgerHealthy(app);
});

test('no statement_timeout on the connections: a COMMIT waiting for the synchronous standby is never cancelled', { skip }, async (t) => {
  const { app } = await isolatedApp(t);
  const { rows } = await app.deps.db.pool.query<{ statement_timeout: string }>('SHOW statement_timeout');
  assert.equal(rows[0]!.statement_timeout, '0');
});
