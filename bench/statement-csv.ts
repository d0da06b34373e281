// `node --import tsx bench/statement-csv.ts [--rows N]`: one merchant's CSV statement of N
// (default 100,000) balance transactions, downloaded from a Purse server process on PostgreSQL.
// Reports the download time, rows/s and the server's resident memory (VmRSS sampled every 20 ms
// from /proc, and its VmHWM high-water mark) before and during the download, and the time of a
// JSON page (limit=100, unfiltered and source_type=refund) over the same entries.
// Creates purse_statement_<time>_<pid> on BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres)
// and drops it at the end (BENCH_KEEP_DATABASE=1 keeps it). The server is stopped by its pid.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startScratchPurse } from './lib/scratch-purse.ts';

const ROOT = resolve(process.argv[1] ?? '.', '..', '..');
const { values } = parseArgs({ options: { rows: { type: 'string', default: '100000' } } });
const ROWS = Number(values.rows);
const log = (line: string) => process.stderr.write(`statement-csv: ${line}\n`);

/** VmRSS and VmHWM of a process, in MB. */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

async function main() {
  const purse = await startScratchPurse({ root: ROOT, name: 'statement', log });
  const { base, merchant, server, databaseUrl } = purse;
  try {
    // The entries, balanced against a provider account as real postings are: payments, every 7th a refund.
    const db = new pg.Client(databaseUrl);
    await db.connect();
    const seeded = performance.now();
    await db.query('BEGIN');
    await db.query(
      `INSERT INTO ledger_transactions (id, merchant_id, source_type, source_id, created_at)
       SELECT 'ltx_0bench' || lpad(g::text, 20, '0'), $1, CASE WHEN g % 7 = 0 THEN 'refund' ELSE 'payment' END,
              'src_' || g, now() - interval '1 day' + g * interval '1 ms'
       FROM generate_series(1, $2::int) g`,
      [merchant.merchant_id, ROWS],
    );
    await db.query(
      `INSERT INTO ledger_entries (id, transaction_id, account, currency, amount, balance_after, source_type, source_id, created_at)
       SELECT 'len_0bench' || lpad((g * 2 + CASE side WHEN 'm' THEN 0 ELSE 1 END)::text, 20, '0'), t.id,
              CASE side WHEN 'm' THEN $1 ELSE 'provider:sandbox:card:KES' END, 'KES',
              CASE side WHEN 'm' THEN a ELSE -a END, NULL, t.source_type, t.source_id, t.created_at
       FROM generate_series(1, $2::int) g
       CROSS JOIN LATERAL (SELECT CASE WHEN g % 7 = 0 THEN -((g % 300) + 1) ELSE (g % 1000) * 10 + 5 END::bigint AS a) amt
       CROSS JOIN (VALUES ('m'), ('p')) s(side)
       JOIN ledger_transactions t ON t.id = 'ltx_0bench' || lpad(g::text, 20, '0')
       ORDER BY g, side`,
      [`merchant:${merchant.merchant_id}:KES`, ROWS],
    );
    await db.query('COMMIT');
    await db.query('ANALYZE ledger_entries');
    await db.end();
    log(`${ROWS} entries inserted in ${Math.round(performance.now() - seeded)} ms`);

    const token = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: merchant.client_id, client_secret: merchant.client_secret }),
    }).then(async (r) => (await r.json()).access_token as string);

    // The JSON list computes balance_after as a running sum over the account on every page.
    const pageMs: Record<string, number> = {};
    for (const [name, query] of [
      ['first_page', '?limit=100'],
      ['refund_page', '?limit=100&source_type=refund'],
    ] as const) {
      const t = performance.now();
      const res = await fetch(`${base}/v1/balance_transactions${query}`, { headers: { authorization: `Bearer ${token}` } });
      if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
      await res.json();
      pageMs[name] = Math.round(performance.now() - t);
    }

    const before = memoryOf(server.pid);
    let peakRss = before.rss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, memoryOf(server.pid).rss);
    }, 20);
    const started = performance.now();
    let lines = 0;
    let bytes = 0;
    await new Promise<void>((done, fail) => {
      http
        .get(`${base}/v1/balance_transactions`, { headers: { authorization: `Bearer ${token}`, accept: 'text/csv' } }, (res) => {
          if (res.statusCode !== 200) fail(new Error(`status ${res.statusCode}`));
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
          });
          res.on('end', done);
          res.on('error', fail);
        })
        .on('error', fail);
    });
    const ms = performance.now() - started;
    clearInterval(sampler);
    const after = memoryOf(server.pid);
    const result = {
      database: 'postgres',
      rows: lines - 1,
      bytes,
      seconds: Number((ms / 1000).toFixed(2)),
      rows_per_s: Math.round(((lines - 1) / ms) * 1000),
      server_rss_before_mb: Number(before.rss.toFixed(1)),
      server_rss_peak_mb: Number(peakRss.toFixed(1)),
      server_rss_growth_mb: Number((peakRss - before.rss).toFixed(1)),
      server_vmhwm_before_mb: Number(before.hwm.toFixed(1)),
      server_vmhwm_after_mb: Number(after.hwm.toFixed(1)),
      json_page_ms: pageMs,
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await purse.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`statement-csv: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
