// `node --import tsx bench/million.ts [--payments N] [--statement N] [--duration S]`: reads at
// size. One merchant with N (default 1,000,000) succeeded wallet payments, each with its posting
// (a ledger transaction, the wallet's debit and the merchant's credit) and its events, then
// ANALYZE; then, against one Purse server process on PostgreSQL: GET /v1/payments/{id}, lists
// (plain, filtered by status, means and date, by reference), events and the JSON page of balance
// transactions under load (autocannon, 16 connections, --duration s each), and the CSV statement
// of the newest --statement (default 100,000) balance transactions, with one JSON page's time.
//
// The rows are clones of one real payment made through the API (every column as Purse wrote it;
// ids, references, times and sequence numbers made unique), inserted with generate_series: minutes
// instead of the hours a million HTTP payments would take. Balances and balance_after are not
// recomputed (nothing here reads them as money). Creates purse_million_<time>_<pid> on
// BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) and drops it at the end
// (BENCH_KEEP_DATABASE=1 keeps it). The server is stopped by its pid.
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { runLoad } from './lib/load.ts';
import { startScratchPurse } from './lib/scratch-purse.ts';

const ROOT = resolve(process.argv[1] ?? '.', '..', '..');
const { values } = parseArgs({
  options: {
    payments: { type: 'string', default: '1000000' },
    statement: { type: 'string', default: '100000' },
    duration: { type: 'string', default: '5' },
  },
});
const PAYMENTS = Number(values.payments);
const STATEMENT = Number(values.statement);
const DURATION_S = Number(values.duration);
const log = (line: string) => process.stderr.write(`million: ${line}\n`);

async function api(base: string, method: string, path: string, token: string | null, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * Clones the template rows of `table` (those `where` selects, numbered k = 1, 2, … by id) once per
 * g in 1..PAYMENTS, every column copied but those `set` gives an expression for (in terms of
 * src.*, g and k).
 */
async function clone(db: pg.Client, table: string, where: string, set: Record<string, string>): Promise<void> {
  const columns = (
    await db.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
      [table],
    )
  ).rows.map((r) => r.column_name);
  const exprs = columns.map((c) => set[c] ?? `src.${c}`);
  const t0 = performance.now();
  await db.query(
    `INSERT INTO ${table} (${columns.join(', ')})
     SELECT ${exprs.join(', ')}
     FROM (SELECT *, row_number() OVER (ORDER BY id) AS k FROM ${table} WHERE ${where}) src
     CROSS JOIN generate_series(1, ${PAYMENTS}) g`,
  );
  log(`${table}: cloned in ${Math.round(performance.now() - t0)} ms`);
}

/** The n-th payment's id (and its posting's and events' ids): TypeID bodies of digits, older than any real one. */
const idOf = (prefix: string, n: string) => `'${prefix}_' || lpad((${n})::text, 26, '0')`;
/** The g-th clone's time: the N payments spread over the 30 days before now. */
const AT = `now() - interval '30 days' + g * (interval '30 days' / ${PAYMENTS})`;

async function fill(db: pg.Client, paymentId: string): Promise<void> {
  const payment = idOf('pay', 'g');
  await clone(db, 'charges', `id = '${paymentId}'`, {
    id: payment,
    reference: `'million-' || g`,
    created_at: AT,
    updated_at: AT,
    completed_at: AT,
  });
  // The template's postings, numbered as clone() numbers them, so that each cloned entry names its cloned transaction.
  const postings = (await db.query<{ id: string }>(`SELECT id FROM ledger_transactions WHERE source_id = $1 ORDER BY id`, [paymentId]))
    .rows;
  const transactionOf = `CASE src.transaction_id ${postings.map((p, i) => `WHEN '${p.id}' THEN ${idOf('ltx', `g * 4 + ${i + 1}`)}`).join(' ')} END`;
  await clone(db, 'ledger_transactions', `source_id = '${paymentId}'`, {
    id: idOf('ltx', 'g * 4 + k'),
    source_id: payment,
    created_at: AT,
  });
  await clone(db, 'ledger_entries', `source_id = '${paymentId}'`, {
    id: `split_part(src.id, '_', 1) || '_' || lpad((g * 4 + k)::text, 26, '0')`,
    transaction_id: transactionOf,
    source_id: payment,
    seq: '1000 + g',
    created_at: AT,
  });
  await clone(db, 'events', `object_id = '${paymentId}'`, { id: idOf('evt', 'g * 4 + k'), object_id: payment, created_at: AT });
  const t0 = performance.now();
  await db.query('ANALYZE');
  log(`ANALYZE in ${Math.round(performance.now() - t0)} ms`);
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const value = await fn();
  return [value, Math.round(performance.now() - t0)];
}

async function csvLines(base: string, token: string, query: string): Promise<number> {
  return new Promise((done, fail) => {
    let lines = 0;
    http
      .get(`${base}/v1/balance_transactions${query}`, { headers: { authorization: `Bearer ${token}`, accept: 'text/csv' } }, (res) => {
        if (res.statusCode !== 200) fail(new Error(`CSV: status ${res.statusCode}`));
        res.on('data', (chunk: Buffer) => {
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        });
        res.on('end', () => done(lines - 1));
        res.on('error', fail);
      })
      .on('error', fail);
  });
}

async function measureReads(base: string, token: string, statementFrom: string) {
  const auth = { authorization: `Bearer ${token}` };
  const oneDayAgo = new Date(Date.now() - 86_400_000).toISOString();
  const paths: Record<string, string | string[]> = {
    'GET /v1/payments/{id}': Array.from(
      { length: 256 },
      (_, i) => `/v1/payments/pay_${String(1 + ((i * 3_907) % PAYMENTS)).padStart(26, '0')}`,
    ),
    'list payments (limit 20)': '/v1/payments?limit=20',
    'list payments, status + means + created_gte (limit 20)': `/v1/payments?status=succeeded&payment_method_type=wallet&created_gte=${encodeURIComponent(oneDayAgo)}&limit=20`,
    'list payments by reference': Array.from({ length: 256 }, (_, i) => `/v1/payments?reference=million-${1 + ((i * 3_907) % PAYMENTS)}`),
    'list events (limit 20)': '/v1/events?limit=20',
    'balance transactions, newest 100': '/v1/balance_transactions?limit=100',
  };
  const rows: Record<string, unknown>[] = [];
  for (const [name, path] of Object.entries(paths)) {
    const list = Array.isArray(path) ? path : [path];
    const result = await runLoad({
      loadgen: 'autocannon',
      scenario: name,
      baseUrls: [base],
      connections: 16,
      durationS: DURATION_S,
      request: { method: 'GET', path: list[0]!, headers: auth, variants: list.map((p) => ({ path: p })) },
      logDir: tmpdir(),
    });
    const row = {
      read: name,
      per_s: Math.round(result.requestsPerS),
      p50_ms: result.latencyMs.p50,
      p99_ms: result.latencyMs.p99,
      non2xx: result.non2xx,
      load: loadavg()[0],
    };
    log(JSON.stringify(row));
    rows.push(row);
  }
  const [firstPage, pageMs] = await timed(() => api(base, 'GET', '/v1/balance_transactions?limit=100', token));
  const [lines, csvMs] = await timed(() => csvLines(base, token, `?created_gte=${encodeURIComponent(statementFrom)}`));
  return {
    reads: rows,
    balance_json_page_ms: pageMs,
    balance_json_page_lines: firstPage.data.length,
    csv: { lines, ms: csvMs, lines_per_s: Math.round((lines / csvMs) * 1000) },
  };
}

async function main() {
  const purse = await startScratchPurse({ root: ROOT, name: 'million', env: { PURSE_SANDBOX_DELAY_MS: '0' }, log });
  const { base, merchant } = purse;
  const db = new pg.Client(purse.databaseUrl);
  try {
    const token = (await api(base, 'POST', '/oauth/token', null, { grant_type: 'client_credentials', ...merchant })).access_token as string;
    const wallet = await api(base, 'POST', '/v1/wallets', token, { currency: 'KES' });
    const card = { number: '4242424242424242', exp_month: 12, exp_year: new Date().getUTCFullYear() + 4, cvc: '123' };
    await api(base, 'POST', '/v1/topups', token, {
      reference: 'fund',
      amount: '100000.00',
      currency: 'KES',
      wallet_id: wallet.id,
      source: { type: 'card', card },
    });
    const template = await api(base, 'POST', '/v1/payments', token, {
      reference: 'template',
      amount: '1.00',
      currency: 'KES',
      payment_method: { type: 'wallet', wallet: { wallet_id: wallet.id } },
    });
    await db.connect();
    const [, fillMs] = await timed(() => fill(db, template.id));
    const counts = (await db.query(`SELECT relname, n_live_tup FROM pg_stat_user_tables WHERE n_live_tup > 1000 ORDER BY relname`)).rows;
    log(`filled in ${fillMs} ms: ${JSON.stringify(counts)}`);
    // The newest STATEMENT merchant entries start at this time.
    const from = (
      await db.query<{ at: Date }>(`SELECT created_at AS at FROM ledger_entries WHERE account = $1 ORDER BY seq DESC OFFSET $2 LIMIT 1`, [
        `merchant:${merchant.merchant_id}:KES`,
        STATEMENT - 1,
      ])
    ).rows[0]?.at;
    const result = await measureReads(base, token, (from ?? new Date(0)).toISOString());
    process.stdout.write(`${JSON.stringify({ payments: PAYMENTS, fill_ms: fillMs, rows: counts, ...result }, null, 2)}\n`);
  } finally {
    await db.end().catch(() => {});
    await purse.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`million: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
