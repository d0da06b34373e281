// `npm run bench`: Purse under load on PostgreSQL (or PGlite with --embedded), next to a naive
// Fastify + pg baseline and the database ceiling (pgbench running the create-path SQL).
// Writes bench/results/latest.json and bench/results/latest.md and prints the table.
// See bench/README.md. Traffic goes to 127.0.0.1 only; every child is stopped by pid.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import pg from 'pg';
import { ceilingScript } from './lib/ceiling.ts';
import { type LoadResult, latencySummary, type RequestSpec, runLoad } from './lib/load.ts';
import {
  cpuSecondsOf,
  findPgbench,
  killAllChildrenNow,
  machineBusySeconds,
  postgresCpuSeconds,
  type Spawned,
  startChild,
  stopAllChildren,
  stopChild,
  ticksPerSecond,
} from './lib/processes.ts';
import { markdown, type Ratio, type Row, ratioLine, type Target } from './lib/report.ts';

const execFileAsync = promisify(execFile);

// bench/run.ts → repository root (works whether tsx loads this file as CommonJS or ESM).
const ROOT = resolve(process.argv[1]!, '..', '..');
const BENCH = join(ROOT, 'bench');
const RESULTS = join(BENCH, 'results');
const LOGS = join(RESULTS, 'logs');

// Run order: mobile money first (its settlements, 2 s later, are waited for before the next
// scenario), and the wallet scenario last, right before the baseline and the ceiling it is
// compared with, so that the three compared rows run as close together in time as possible.
const PURSE_SCENARIOS = ['token', 'mobile-money', 'card', 'get', 'list', 'hot-wallet', 'wallet'] as const;
const REFERENCE_SCENARIOS = ['baseline', 'ceiling'] as const;
type ScenarioName = (typeof PURSE_SCENARIOS)[number] | (typeof REFERENCE_SCENARIOS)[number];
const ALL_SCENARIOS: readonly ScenarioName[] = [...PURSE_SCENARIOS, ...REFERENCE_SCENARIOS];

const SECRET_KEY = 'purse-bench-fixed-secret-key-0123456789abcdef';
const WALLETS = 64;
const FUNDING = '1000000.00'; // KES per wallet: 100,000,000 minor units = 1,000,000 payments of 1.00
const PAYMENT = '1.00';
const CARD_YEAR = new Date().getUTCFullYear() + 4;
const GET_IDS = 256;

// ---------------------------------------------------------------- options

function usage(): never {
  process.stderr.write(
    `usage: npm run bench -- [--embedded] [--duration S] [--connections N] [--workers N] [--scenarios a,b] [--ceiling-clients 64,16]\n` +
      `scenarios: ${ALL_SCENARIOS.join(', ')}\n` +
      `env: BENCH_DATABASE_URL (admin URL, default postgres://postgres@127.0.0.1:5432/postgres)\n`,
  );
  process.exit(2);
}

function options() {
  let parsed;
  try {
    parsed = parseArgs({
      args: process.argv.slice(2),
      options: {
        embedded: { type: 'boolean', default: false },
        duration: { type: 'string', default: '10' },
        connections: { type: 'string', default: '64' },
        workers: { type: 'string', default: '1' },
        'ceiling-clients': { type: 'string' },
        scenarios: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    usage();
  }
  if (parsed.help) usage();
  const whole = (name: string, raw: string, min: number, max: number) => {
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < min || n > max) {
      process.stderr.write(`--${name} must be a whole number from ${min} to ${max}\n`);
      usage();
    }
    return n;
  };
  const scenarios = (
    parsed.scenarios
      ? parsed.scenarios
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [...ALL_SCENARIOS]
  ) as ScenarioName[];
  for (const s of scenarios)
    if (!ALL_SCENARIOS.includes(s)) {
      process.stderr.write(`unknown scenario "${s}"\n`);
      usage();
    }
  const workers = whole('workers', parsed.workers!, 1, 8);
  if (parsed.embedded && workers > 1) {
    process.stderr.write('--workers > 1 needs PostgreSQL: the embedded database is one process\n');
    usage();
  }
  const connections = whole('connections', parsed.connections!, 1, 1024);
  // The ceiling runs with the same load (as many clients as connections) and with 16 clients,
  // where PostgreSQL does best on a small machine; the ratio uses the better of the two.
  const ceilingClients = [
    ...new Set((parsed['ceiling-clients'] ?? `${connections},16`).split(',').map((c) => whole('ceiling-clients', c.trim(), 1, 1024))),
  ];
  return {
    embedded: parsed.embedded!,
    durationS: whole('duration', parsed.duration!, 1, 600),
    connections,
    ceilingClients,
    workers,
    scenarios: ALL_SCENARIOS.filter((s) => scenarios.includes(s)),
  };
}

// ---------------------------------------------------------------- small helpers

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (text: string) => process.stderr.write(`[bench] ${text}\n`);

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

async function http(base: string, method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; json: any }> {
  const response = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, json };
}

async function expectOk(what: string, promise: Promise<{ status: number; json: any }>, statuses = [200, 201]) {
  const { status, json } = await promise;
  if (!statuses.includes(status)) throw new Error(`${what}: HTTP ${status} ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

async function waitFor(url: string, child: Spawned | null, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | string | null = null;
  child?.exited.then((code) => (exitCode = code));
  while (Date.now() < deadline) {
    if (exitCode !== null) throw new Error(`${child!.name} exited (${exitCode}) before it was ready; see bench/results/logs/`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      /* not listening yet */
    }
    await sleep(200);
  }
  throw new Error(`${url} not ready after ${timeoutMs / 1000} s`);
}

/**
 * Before every scenario: ANALYZE, so the planner has statistics as it would on a database with
 * autovacuum (a fresh database has none, and CI clusters often run with autovacuum = off:
 * without statistics PostgreSQL may pick a wrong index and turn an index lookup into a scan),
 * and CHECKPOINT, so no scenario inherits another's checkpoint.
 */
async function prepareDatabase(db: pg.Client): Promise<void> {
  await db.query('ANALYZE');
  await db.query('CHECKPOINT');
}

/**
 * Requests still queued from the previous scenario (autocannon stops at the deadline, the
 * server does not) must not be counted in the next one: waits until a database round trip
 * through the server (/readyz) answers quickly, at most 30 s.
 */
async function drained(readyUrl: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const t0 = Date.now();
    try {
      const response = await fetch(readyUrl);
      await response.arrayBuffer();
      if (response.ok && Date.now() - t0 < 20) return;
    } catch {
      /* retry */
    }
    await sleep(100);
  }
  log(`warning: ${readyUrl} still slow after 30 s; measuring anyway`);
}

/** Waits (at most 60 s) until the settlement worker has settled every pending payment. */
async function settled(base: string, token: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const page = await expectOk('pending payments', http(base, 'GET', '/v1/payments?status=pending&limit=1', undefined, token));
    if (page.data.length === 0) return;
    await sleep(500);
  }
  log('warning: mobile-money payments still pending after 60 s; going on');
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

// ---------------------------------------------------------------- the run

async function main(): Promise<void> {
  const opts = options();
  const busy = loadavg()[0]!;
  const loadBefore = busy;
  if (busy > cpus().length)
    log(`warning: load average ${busy.toFixed(1)} on ${cpus().length} CPUs: other work on this machine will distort the numbers`);
  const runId = Date.now().toString(36);
  mkdirSync(LOGS, { recursive: true });
  for (const f of readdirSync(LOGS)) rmSync(join(LOGS, f), { force: true });

  const adminUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const dbName = `purse_bench_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}_${process.pid}`;
  let admin: pg.Client | null = null; // connected to the admin database, drops the bench database
  let benchDb: pg.Client | null = null; // connected to the bench database (CHECKPOINT, fixtures, outcomes)
  let dataDir: string | null = null;
  let databaseCreated = false;

  let cleaning: Promise<void> | null = null;
  const cleanup = () =>
    (cleaning ??= (async () => {
      await stopAllChildren();
      await benchDb?.end().catch(() => {});
      if (admin && databaseCreated && process.env.BENCH_KEEP_DATABASE === '1')
        log(`kept database ${dbName} (BENCH_KEEP_DATABASE=1): drop it yourself`);
      else if (admin && databaseCreated) {
        await admin
          .query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)
          .catch((e: Error) => log(`could not drop ${dbName}: ${e.message}`));
      }
      await admin?.end().catch(() => {});
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    })());
  const onSignal = (signal: string) => {
    log(`${signal}: stopping children and dropping the bench database`);
    void cleanup().finally(() => process.exit(130));
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('exit', killAllChildrenNow);

  try {
    const purseEnv: NodeJS.ProcessEnv = {
      ...process.env,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      PURSE_RATE_LIMIT_PER_S: '0',
      PURSE_SANDBOX_DELAY_MS: '2000',
      PURSE_BOOTSTRAP_MERCHANT: 'false',
      PURSE_SECRET_KEY: SECRET_KEY,
    };
    let databaseUrl: string | null = null;
    let dbSettings: Record<string, string> = {};
    if (opts.embedded) {
      dataDir = mkdtempSync(join(tmpdir(), 'purse-bench-'));
      delete purseEnv.DATABASE_URL;
      purseEnv.DATA_DIR = dataDir;
    } else {
      admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${dbName}`);
      databaseCreated = true;
      databaseUrl = withDatabase(adminUrl, dbName);
      purseEnv.DATABASE_URL = databaseUrl;
      benchDb = new pg.Client({ connectionString: databaseUrl });
      await benchDb.connect();
      const settings = await benchDb.query(
        `SELECT name, setting FROM pg_settings WHERE name IN ('server_version','fsync','synchronous_commit','shared_buffers','max_connections','wal_level','max_wal_size','autovacuum')`,
      );
      dbSettings = Object.fromEntries(settings.rows.map((r) => [r.name, r.setting]));
      log(`database ${dbName} created (PostgreSQL ${dbSettings.server_version})`);
    }

    const cli = async (args: string[]) => {
      const { stdout } = await execFileAsync(process.execPath, [join(ROOT, 'packages/server/bin/purse.mjs'), ...args], {
        cwd: ROOT,
        env: purseEnv,
      });
      return JSON.parse(stdout) as { merchant_id: string; client_id: string; client_secret: string };
    };
    const needsReference = !opts.embedded && opts.scenarios.some((s) => s === 'baseline' || s === 'ceiling');

    // With the embedded database the operator command must run before the server opens DATA_DIR.
    const merchants: Record<string, { merchant_id: string; client_id: string; client_secret: string }> = {};
    if (opts.embedded) merchants.bench = await cli(['merchant', 'create', '--name', 'bench', '--json']);

    // Purse: the first process migrates the fresh database; the others start once it is ready.
    const ports: number[] = [];
    const servers: Spawned[] = [];
    for (let i = 0; i < opts.workers; i++) {
      const port = await freePort();
      const server = startChild(`purse-${i + 1}`, process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], {
        cwd: ROOT,
        env: { ...purseEnv, PORT: String(port) },
        logFile: join(LOGS, `purse-${i + 1}.log`),
      });
      ports.push(port);
      servers.push(server);
      if (i === 0) await waitFor(`http://127.0.0.1:${port}/readyz`, server);
    }
    await Promise.all(ports.map((port, i) => waitFor(`http://127.0.0.1:${port}/readyz`, servers[i]!)));
    const bases = ports.map((p) => `http://127.0.0.1:${p}`);
    const base = bases[0]!;
    log(`Purse ready: ${opts.workers} process(es) on ${ports.join(', ')} (${opts.embedded ? `PGlite in ${dataDir}` : 'PostgreSQL'})`);

    if (!opts.embedded) {
      merchants.bench = await cli(['merchant', 'create', '--name', 'bench', '--json']);
      if (needsReference) {
        merchants.baseline = await cli(['merchant', 'create', '--name', 'bench-baseline', '--json']);
        merchants.ceiling = await cli(['merchant', 'create', '--name', 'bench-ceiling', '--json']);
      }
    }
    const tokenRequest = (m: string) => ({
      grant_type: 'client_credentials',
      client_id: merchants[m]!.client_id,
      client_secret: merchants[m]!.client_secret,
    });
    const tokenOf = async (m: string) =>
      (await expectOk(`token for ${m}`, http(base, 'POST', '/oauth/token', tokenRequest(m)))).access_token as string;

    // ---- fixtures: funded wallets (top-ups by sandbox card), and payments to read back
    const card = { number: '4242424242424242', exp_month: 12, exp_year: CARD_YEAR, cvc: '123' };
    let topupSeq = 0;
    const fundedWallets = async (token: string, count: number): Promise<string[]> =>
      mapLimit(Array.from({ length: count }), 8, async () => {
        const wallet = await expectOk('create wallet', http(base, 'POST', '/v1/wallets', { currency: 'KES' }, token));
        const topup = await expectOk(
          'top up wallet',
          http(
            base,
            'POST',
            '/v1/topups',
            {
              reference: `fund-${runId}-${topupSeq++}`,
              amount: FUNDING,
              currency: 'KES',
              wallet_id: wallet.id,
              source: { type: 'card', card },
            },
            token,
          ),
        );
        if (topup.status !== 'succeeded') throw new Error(`top-up ${topup.id} is ${topup.status}, not succeeded`);
        return wallet.id as string;
      });
    const token = await tokenOf('bench');
    const started = Date.now();
    const wallets = await fundedWallets(token, WALLETS);
    const [hotWallet] = await fundedWallets(token, 1);
    const getIds = await mapLimit(Array.from({ length: GET_IDS }), 8, async (_, i) => {
      const body = {
        reference: `fixture-${runId}-${i}`,
        amount: PAYMENT,
        currency: 'KES',
        payment_method: { type: 'wallet', wallet: { wallet_id: wallets[i % WALLETS] } },
      };
      return (await expectOk('fixture payment', http(base, 'POST', '/v1/payments', body, token))).id as string;
    });
    const baselineWallets =
      opts.scenarios.includes('baseline') && merchants.baseline ? await fundedWallets(await tokenOf('baseline'), WALLETS) : [];
    const ceilingWallets =
      opts.scenarios.includes('ceiling') && merchants.ceiling ? await fundedWallets(await tokenOf('ceiling'), WALLETS) : [];
    log(`fixtures ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    // ---- measurement of one scenario
    const rows: Row[] = [];
    const measure = async (
      scenario: string,
      target: Row['target'],
      pids: number[],
      work: () => Promise<LoadResult>,
      readyUrl?: string,
    ): Promise<Row> => {
      if (readyUrl) await drained(readyUrl);
      if (benchDb) await prepareDatabase(benchDb);
      await sleep(500);
      log(`${scenario} (${target}): ${opts.durationS} s, ${opts.connections} connections`);
      const serverBefore = cpuSecondsOf(pids);
      const dbBefore = opts.embedded ? 0 : postgresCpuSeconds();
      const machineBefore = machineBusySeconds();
      const selfBefore = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      const result = await work();
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      const self = process.cpuUsage(selfBefore);
      const loadgenCpu = (self.user + self.system) / 1e6;
      const machineCpu = machineBusySeconds() - machineBefore;
      const serverCpu = cpuSecondsOf(pids) - serverBefore;
      const dbCpu = opts.embedded ? null : postgresCpuSeconds() - dbBefore;
      const row: Row = {
        scenario,
        target,
        requestsPerS: result.requestsPerS,
        latencyMs: result.latencyMs,
        total: result.total,
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        statusCodes: result.statusCodes,
        serverCpuPct: (serverCpu / wall) * 100,
        dbCpuPct: dbCpu === null ? null : (dbCpu / wall) * 100,
        loadgenCpuPct: (loadgenCpu / wall) * 100,
        otherCpuPct: (Math.max(0, machineCpu - serverCpu - (dbCpu ?? 0) - loadgenCpu) / wall) * 100,
        durationS: wall,
      };
      const codes = Object.entries(result.statusCodes)
        .map(([c, n]) => `${c}×${n}`)
        .join(' ');
      log(
        `  → ${Math.round(result.requestsPerS)}/s, p99 ${result.latencyMs.p99.toFixed(1)} ms, ${codes}${result.errors ? `, ${result.errors} errors` : ''}`,
      );
      rows.push(row);
      return row;
    };

    const json = { 'content-type': 'application/json' };
    const auth = { ...json, authorization: `Bearer ${token}` };
    let seq = 0;
    const paymentSpec = (
      prefix: string,
      method: () => unknown,
      path = '/v1/payments',
      headers: Record<string, string> = auth,
    ): RequestSpec => ({
      method: 'POST',
      path,
      headers,
      next: () => ({
        body: JSON.stringify({ reference: `${prefix}-${runId}-${seq++}`, amount: PAYMENT, currency: 'KES', payment_method: method() }),
      }),
    });
    const roundRobin = (ids: string[]) => {
      let i = 0;
      return () => ({ type: 'wallet', wallet: { wallet_id: ids[i++ % ids.length] } });
    };
    const specs: Record<(typeof PURSE_SCENARIOS)[number], () => RequestSpec> = {
      token: () => ({ method: 'POST', path: '/oauth/token', headers: json, body: JSON.stringify(tokenRequest('bench')) }),
      wallet: () => paymentSpec('wallet', roundRobin(wallets)),
      'hot-wallet': () => paymentSpec('hot', roundRobin([hotWallet!])),
      card: () => paymentSpec('card', () => ({ type: 'card', card })),
      'mobile-money': () =>
        paymentSpec('mm', () => ({ type: 'mobile_money', mobile_money: { phone_number: '+254712345678', provider: 'mpesa' } })),
      get: () => {
        let i = 0;
        return {
          method: 'GET',
          path: `/v1/payments/${getIds[0]}`,
          headers: auth,
          next: () => ({ path: `/v1/payments/${getIds[i++ % getIds.length]}` }),
        };
      },
      list: () => ({ method: 'GET', path: '/v1/payments?limit=10', headers: auth }),
    };
    const serverPids = servers.map((s) => s.pid);
    for (const scenario of PURSE_SCENARIOS) {
      if (!opts.scenarios.includes(scenario)) continue;
      await measure(
        scenario,
        'purse',
        serverPids,
        () => runLoad({ baseUrls: bases, connections: opts.connections, durationS: opts.durationS, request: specs[scenario]() }),
        `${base}/readyz`,
      );
      if (scenario === 'mobile-money') await settled(base, token);
    }
    // Purse is stopped before the reference points so that nothing of it (settlement worker,
    // pool connections) runs next to them.
    await Promise.all(servers.map((s) => stopChild(s, 10_000)));

    // ---- baseline: naive Fastify + pg, the same create-path SQL, the same load
    if (opts.scenarios.includes('baseline')) {
      if (opts.embedded) {
        rows.push(nothing('wallet', 'baseline', 'not run with --embedded (needs PostgreSQL: it shares the database with Purse)'));
      } else {
        const port = await freePort();
        const baseline = startChild('baseline', process.execPath, ['--import', 'tsx', join(BENCH, 'baseline-server.ts')], {
          cwd: ROOT,
          env: {
            ...process.env,
            DATABASE_URL: databaseUrl!,
            PORT: String(port),
            BASELINE_MERCHANT_ID: merchants.baseline!.merchant_id,
            BASELINE_POOL_SIZE: '16',
          },
          logFile: join(LOGS, 'baseline.log'),
        });
        await waitFor(`http://127.0.0.1:${port}/healthz`, baseline);
        await measure('wallet', 'baseline', [baseline.pid], () =>
          runLoad({
            baseUrls: [`http://127.0.0.1:${port}`],
            connections: opts.connections,
            durationS: opts.durationS,
            request: paymentSpec('base', roundRobin(baselineWallets), '/payments', json),
          }),
        );
        await stopChild(baseline);
      }
    }

    // ---- ceiling: pgbench running the create-path SQL as one transaction script per payment
    if (opts.scenarios.includes('ceiling')) {
      const pgbench = opts.embedded ? null : findPgbench();
      if (opts.embedded) rows.push(nothing('wallet', 'pgbench', 'not run with --embedded (pgbench needs PostgreSQL)'));
      else if (!pgbench) rows.push(nothing('wallet', 'pgbench', 'pgbench not installed (it ships with postgresql-client)'));
      else
        for (const clients of opts.ceilingClients)
          rows.push(await ceiling(pgbench, databaseUrl!, merchants.ceiling!.merchant_id, ceilingWallets, { ...opts, clients }, benchDb!));
    }

    // ---- what was stored (catches business failures hidden behind 201s)
    const outcomes: string[] = [];
    if (benchDb) {
      const r = await benchDb.query(
        `SELECT split_part(reference, '-', 1) AS prefix, method_type, status, count(*)::int AS n FROM charges WHERE kind = 'payment' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      );
      for (const o of r.rows) outcomes.push(`${o.prefix}, ${o.method_type}, ${o.status}: ${o.n}`);
    }

    // ---- ratios, targets, output
    const purseWallet = rows.find((r) => r.scenario === 'wallet' && r.target === 'purse');
    const baselineRow = rows.find((r) => r.target === 'baseline');
    const ceilingRow = rows
      .filter((r) => r.target.startsWith('pgbench'))
      .reduce<Row | undefined>(
        (best, r) => (best === undefined || (r.requestsPerS ?? -1) > (best.requestsPerS ?? -1) ? r : best),
        undefined,
      );
    const ratio = (name: string, a: Row | undefined, b: Row | undefined): Ratio =>
      a?.requestsPerS && b?.requestsPerS
        ? {
            name,
            value: a.requestsPerS / b.requestsPerS,
            note: `${Math.round(a.requestsPerS).toLocaleString('en-US')} / ${Math.round(b.requestsPerS).toLocaleString('en-US')} per s, ${b.target}`,
          }
        : { name, value: null, note: !a?.requestsPerS ? 'wallet scenario not run' : (b?.note ?? 'not run') };
    const ratios = [
      ratio('Purse / baseline (wallet payment)', purseWallet, baselineRow),
      ratio('Purse / ceiling', purseWallet, ceilingRow),
    ];
    const targets = checkTargets(rows, ratios[0]!, opts);

    const context = [
      `${new Date().toISOString()}, ${cpus().length} CPU (${cpus()[0]?.model.trim()}), load average before ${loadBefore.toFixed(2)}, Node ${process.version}`,
      opts.embedded
        ? `database: embedded PGlite (temp DATA_DIR) inside the Purse process: its CPU is in server CPU %; Purse: 1 process`
        : `database: PostgreSQL ${dbSettings.server_version} (fsync=${dbSettings.fsync}, synchronous_commit=${dbSettings.synchronous_commit}, shared_buffers=${dbSettings.shared_buffers}×8kB, autovacuum=${dbSettings.autovacuum}; the bench runs ANALYZE and CHECKPOINT before each scenario); Purse: ${opts.workers} process(es), pool ${process.env.PURSE_DB_POOL_SIZE || 16} each`,
      `${opts.durationS} s per scenario, ${opts.connections} connections (autocannon in-process)${opts.embedded ? '' : `; ceiling: pgbench -c ${opts.ceilingClients.join(' and -c ')} -j 2`}; load generator, server and database on the same machine`,
      `latency over every response (2xx or not); requests/s = autocannon's per-second average; CPU % = CPU seconds / wall seconds × 100 (100 = one core); other CPU % = the machine's busy time minus server, database and load generator: anything else running on the machine during the scenario`,
    ];
    const md = markdown({
      title: `Purse benchmark (${opts.embedded ? 'embedded PGlite' : 'PostgreSQL'})`,
      context,
      rows,
      ratios,
      targets,
      outcomes,
    });
    const result = {
      startedAt: new Date(Number.parseInt(runId, 36)).toISOString(),
      options: opts,
      machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, loadavgBefore: loadBefore, loadavgAfter: loadavg() },
      database: opts.embedded ? { kind: 'pglite' } : { kind: 'postgresql', ...dbSettings },
      rows,
      ratios: ratios.map((r) => ({ ...r, line: ratioLine(r) })),
      targets,
      outcomes,
    };
    writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify(result, null, 2)}\n`);
    writeFileSync(join(RESULTS, 'latest.md'), md);
    process.stdout.write(`\n${md}`);
    log('wrote bench/results/latest.json and bench/results/latest.md');
  } finally {
    await cleanup();
  }
}

function nothing(scenario: string, target: Row['target'], note: string): Row {
  return {
    scenario,
    target,
    requestsPerS: null,
    latencyMs: null,
    total: null,
    non2xx: null,
    errors: null,
    serverCpuPct: null,
    dbCpuPct: null,
    loadgenCpuPct: null,
    otherCpuPct: null,
    durationS: null,
    note,
  };
}

async function ceiling(
  pgbench: string,
  databaseUrl: string,
  merchantId: string,
  wallets: string[],
  opts: { durationS: number; clients: number },
  benchDb: pg.Client,
): Promise<Row> {
  const target = `pgbench -c ${opts.clients}`;
  const logFile = join(LOGS, `pgbench-c${opts.clients}.log`);
  await prepareDatabase(benchDb);
  await sleep(500);
  const dir = mkdtempSync(join(tmpdir(), 'purse-bench-pgbench-'));
  const statFile = join(dir, 'stat');
  const script = join(dir, 'ceiling.sql');
  writeFileSync(script, ceilingScript(PAYMENT));
  log(`wallet (${target}): ${opts.durationS} s`);
  try {
    const args = [
      '-n',
      '-M',
      'prepared',
      '-c',
      String(opts.clients),
      '-j',
      String(Math.min(2, opts.clients)),
      '-T',
      String(opts.durationS),
      '-f',
      script,
      '-D',
      `merchant=${merchantId}`,
      '-D',
      `wallets={${wallets.join(',')}}`,
      '-D',
      `nwallets=${wallets.length}`,
      '-D',
      `run=${Math.floor(Date.now() / 1000)}`,
      '-D',
      'seq=0',
      '--log',
      `--log-prefix=${join(dir, 'tx')}`,
      databaseUrl,
    ];
    // sh waits for pgbench, then saves its own /proc stat: cutime/cstime hold pgbench's CPU.
    const dbBefore = postgresCpuSeconds();
    const machineBefore = machineBusySeconds();
    const selfBefore = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const child = startChild(
      'pgbench',
      'sh',
      ['-c', 'pgbench_bin="$1"; shift; "$pgbench_bin" "$@"; rc=$?; cat /proc/$$/stat > "$0"; exit $rc', statFile, pgbench, ...args],
      {
        cwd: BENCH,
        env: process.env,
        logFile,
      },
    );
    const code = await child.exited;
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const dbCpu = postgresCpuSeconds() - dbBefore;
    const machineCpu = machineBusySeconds() - machineBefore;
    const self = process.cpuUsage(selfBefore);
    const output = readFileSync(logFile, 'utf8');
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(output);
    const failed = /number of failed transactions: (\d+)/.exec(output);
    const aborted = (output.match(/client \d+ aborted/g) ?? []).length;
    let clientCpu: number | null = null;
    try {
      const stat = readFileSync(statFile, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      clientCpu = (Number(f[13]) + Number(f[14])) / ticksPerSecond(); // cutime + cstime of sh = pgbench
    } catch {
      /* no stat: leave empty */
    }
    const latencies: number[] = [];
    for (const file of readdirSync(dir).filter((f) => f.startsWith('tx'))) {
      for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
        const us = Number(line.split(' ')[2]);
        if (line && Number.isFinite(us)) latencies.push(us / 1000);
      }
    }
    if (!tps) {
      return nothing('wallet', target, `pgbench failed (exit ${code}): ${output.trim().split('\n').slice(-3).join(' / ')}`);
    }
    const row: Row = {
      scenario: 'wallet',
      target,
      requestsPerS: Number(tps[1]),
      latencyMs: latencySummary(Float64Array.from(latencies)),
      total: latencies.length,
      non2xx: failed ? Number(failed[1]) : null,
      errors: aborted,
      serverCpuPct: null,
      dbCpuPct: (dbCpu / wall) * 100,
      loadgenCpuPct: clientCpu === null ? null : (clientCpu / wall) * 100,
      otherCpuPct: (Math.max(0, machineCpu - dbCpu - (clientCpu ?? 0) - (self.user + self.system) / 1e6) / wall) * 100,
      durationS: wall,
      note: `ceiling, the server's wallet-payment statement under pgbench: requests/s = tps, non-2xx = failed transactions, errors = aborted clients${aborted ? ` (exit ${code})` : ''}, loadgen = pgbench`,
    };
    log(`  → ${Math.round(row.requestsPerS!)} tps, p99 ${row.latencyMs!.p99.toFixed(1)} ms`);
    return row;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function checkTargets(rows: Row[], baselineRatio: Ratio, opts: { embedded: boolean; connections: number }): Target[] {
  const purse = (s: string) => rows.find((r) => r.scenario === s && r.target === 'purse' && r.requestsPerS !== null);
  const rate = (r: Row | undefined) => (r ? `${Math.round(r.requestsPerS!).toLocaleString('en-US')}/s` : 'not run');
  const out: Target[] = [];
  const wallet = purse('wallet');
  if (opts.embedded) {
    out.push({
      name: 'embedded: ≥ 1,000 payment creations/s',
      met: wallet ? wallet.requestsPerS! >= 1000 : null,
      detail: `wallet ${rate(wallet)}`,
    });
    return out;
  }
  out.push({
    name: 'wallet payment ≥ 3× baseline',
    met: baselineRatio.value === null ? null : baselineRatio.value >= 3,
    detail: baselineRatio.value === null ? 'n/a' : `${baselineRatio.value.toFixed(2)}×`,
  });
  out.push({
    name: `wallet payment ≥ 6,000/s with p99 ≤ 30 ms at 64 connections${opts.connections !== 64 ? ` (this run: ${opts.connections})` : ''}`,
    met: wallet ? wallet.requestsPerS! >= 6000 && wallet.latencyMs!.p99 <= 30 && wallet.non2xx === 0 : null,
    detail: wallet ? `${rate(wallet)}, p99 ${wallet.latencyMs!.p99.toFixed(1)} ms, non-2xx ${wallet.non2xx}` : 'not run',
  });
  const token = purse('token');
  out.push({ name: 'token issuance ≥ 5,000/s', met: token ? token.requestsPerS! >= 5000 : null, detail: rate(token) });
  const get = purse('get');
  out.push({ name: 'GET /v1/payments/{id} ≥ 10,000/s', met: get ? get.requestsPerS! >= 10000 : null, detail: rate(get) });
  return out;
}

main().catch((error: unknown) => {
  process.stderr.write(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
