// `npm run bench`: Purse under load on PostgreSQL (or PGlite with --embedded), next to reference
// points measured in the same run: a naive Fastify + pg baseline, a minimal group-commit server doing
// the same SQL, another writing only the least rows a payment needs, the database ceiling (pgbench
// running the create-path SQL) and Fastify's own ceiling (constants behind hooks of Purse's weight).
// The load generator runs in its own process (wrk). Writes bench/results/latest.json and
// bench/results/latest.md and prints the table.
// See bench/README.md. Traffic goes to 127.0.0.1 only; every child is stopped by pid.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import pg from 'pg';
import { type AcquirerFake, acquirerCheck, startAcquirerFake } from './lib/acquirer.ts';
import { ceilingScript } from './lib/ceiling.ts';
import { type Loadgen, latencySummary, runLoad } from './lib/load.ts';
import { type LoadResult, REF, type RequestSpec } from './lib/load-spec.ts';
import { longMarkdown, longVerdict, runLongWindows } from './lib/long.ts';
import { minimalCheck } from './lib/minimal.ts';
import {
  cpuSecondsOf,
  findPgbench,
  findWrk,
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
// The outflow scenarios (refunds, payouts) run right before the wallet payment they are compared with.
const PURSE_SCENARIOS = [
  'token',
  'mobile-money',
  'card',
  'card-acquirer',
  'get',
  'list',
  'hot-wallet',
  'transfer',
  'refund',
  'refund-merchants',
  'payout',
  'payout-merchants',
  'wallet',
] as const;
const OUTFLOW_SCENARIOS: readonly ScenarioName[] = ['refund', 'refund-merchants', 'payout', 'payout-merchants'];
// After Purse (stopped first): the wallet payment's references in the order baseline, group
// commit, minimal group commit, ceiling (right after Purse's `wallet`), then Fastify's constants (no database).
const REFERENCE_SCENARIOS = ['baseline', 'group-commit', 'group-commit-minimal', 'ceiling', 'constant-get', 'constant-post'] as const;
type ScenarioName = (typeof PURSE_SCENARIOS)[number] | (typeof REFERENCE_SCENARIOS)[number];
const ALL_SCENARIOS: readonly ScenarioName[] = [...PURSE_SCENARIOS, ...REFERENCE_SCENARIOS];

const SECRET_KEY = 'purse-bench-fixed-secret-key-0123456789abcdef';
const WALLETS = 64;
const FUNDING = '1000000.00'; // KES per wallet: 100,000,000 minor units = 1,000,000 payments of 1.00
const PAYMENT = '1.00';
const CARD_YEAR = new Date().getUTCFullYear() + 4;
const GET_IDS = 256;
// Outflows: every outflow merchant gets OUTFLOW_WALLETS funded wallets, one payment of
// OUTFLOW_FUNDING into its balance (the payouts' funds: 10,000,000 payouts of 0.01) and
// REFUND_PAYMENTS payments of REFUNDABLE (each takes 100,000 refunds of 0.01).
const OUTFLOW_WALLETS = 4;
const OUTFLOW_FUNDING = '100000.00';
const REFUND_PAYMENTS = 64;
const REFUNDABLE = '1000.00';
const OUTFLOW = '0.01';

// ---------------------------------------------------------------- options

function usage(): never {
  process.stderr.write(
    `usage: npm run bench -- [--embedded] [--long [--long-duration S] [--long-window S]] [--duration S] [--connections N] [--workers N] [--scenarios a,b] [--ceiling-clients 64,16] [--outflow-merchants N] [--loadgen wrk|autocannon]\n` +
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
        'outflow-merchants': { type: 'string', default: '8' },
        'ceiling-clients': { type: 'string' },
        scenarios: { type: 'string' },
        loadgen: { type: 'string' },
        long: { type: 'boolean', default: false },
        'long-duration': { type: 'string' },
        'long-window': { type: 'string', default: '30' },
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
  // wrk (Debian's package) in its own process when installed; autocannon (in the bench process) otherwise.
  const loadgen = (parsed.loadgen ?? (findWrk() ? 'wrk' : 'autocannon')) as Loadgen;
  if (loadgen !== 'wrk' && loadgen !== 'autocannon') {
    process.stderr.write('--loadgen must be wrk or autocannon\n');
    usage();
  }
  if (loadgen === 'wrk' && !findWrk()) {
    process.stderr.write('--loadgen wrk: /usr/bin/wrk is not installed (apt-get install wrk), or use --loadgen autocannon\n');
    usage();
  }
  // The ceiling runs with the same load (as many clients as connections) and with 16 clients,
  // where PostgreSQL does best on a small machine; the ratio uses the better of the two.
  const ceilingClients = [
    ...new Set((parsed['ceiling-clients'] ?? `${connections},16`).split(',').map((c) => whole('ceiling-clients', c.trim(), 1, 1024))),
  ];
  return {
    embedded: parsed.embedded!,
    durationS: whole('duration', parsed.duration!, 1, 600),
    connections,
    loadgen,
    ceilingClients,
    workers,
    outflowMerchants: whole('outflow-merchants', parsed['outflow-merchants']!, 2, 64),
    scenarios: ALL_SCENARIOS.filter((s) => scenarios.includes(s)),
    long: parsed.long!,
    // The long run: 5 minutes on PostgreSQL, 3 embedded, in windows of 30 s (shorter to try the bench out).
    longDurationS: parsed['long-duration'] ? whole('long-duration', parsed['long-duration'], 1, 7_200) : parsed.embedded ? 180 : 300,
    longWindowS: whole('long-window', parsed['long-window']!, 1, 600),
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

type Options = ReturnType<typeof options>;
type Credentials = { merchant_id: string; client_id: string; client_secret: string };

/** Everything one run opens or learns, so that the cleanup and the report can reach it. */
interface Run {
  opts: Options;
  runId: string;
  loadBefore: number;
  adminUrl: string;
  dbName: string;
  purseEnv: NodeJS.ProcessEnv;
  /** Connected to the admin database; drops the bench database. */
  admin: pg.Client | null;
  /** Connected to the bench database (CHECKPOINT, fixtures, outcomes). */
  benchDb: pg.Client | null;
  dataDir: string | null;
  databaseCreated: boolean;
  databaseUrl: string | null;
  dbSettings: Record<string, string>;
  merchants: Record<string, Credentials>;
  rows: Row[];
  /** The card acquirer fake (its own process), when card-acquirer runs. */
  acquirerFake: AcquirerFake | null;
  /** The number in every load reference, shared by all scenarios. */
  seq: number;
}

interface Purse {
  servers: Spawned[];
  bases: string[];
  base: string;
}

interface Fixtures {
  token: string;
  /** The live merchant's token (card-acquirer), or null. */
  acquirerToken: string | null;
  wallets: string[];
  hotWallet: string;
  getIds: string[];
  baselineWallets: string[];
  groupCommitWallets: string[];
  ceilingWallets: string[];
  /** The outflow scenarios' merchants: the first alone for `refund` and `payout`, all of them for the `-merchants` variants. */
  outflows: OutflowMerchant[];
}

/** A merchant of the outflow scenarios: its token, its funded wallets, and large succeeded wallet payments to refund. */
interface OutflowMerchant {
  token: string;
  wallets: string[];
  refundable: string[];
}

/** The options, a warning when the machine is already busy, and an empty logs folder. */
function newRun(): Run {
  const opts = options();
  const busy = loadavg()[0]!;
  if (busy > cpus().length)
    log(`warning: load average ${busy.toFixed(1)} on ${cpus().length} CPUs: other work on this machine will distort the numbers`);
  const runId = Date.now().toString(36);
  mkdirSync(LOGS, { recursive: true });
  for (const f of readdirSync(LOGS)) rmSync(join(LOGS, f), { force: true });
  return {
    opts,
    runId,
    loadBefore: busy,
    adminUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    dbName: `purse_bench_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}_${process.pid}`,
    purseEnv: {
      ...process.env,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      PURSE_RATE_LIMIT_PER_S: '0',
      PURSE_SANDBOX_DELAY_MS: '2000',
      PURSE_BOOTSTRAP_MERCHANT: 'false',
      PURSE_SECRET_KEY: SECRET_KEY,
    },
    admin: null,
    benchDb: null,
    dataDir: null,
    databaseCreated: false,
    databaseUrl: null,
    dbSettings: {},
    merchants: {},
    rows: [],
    acquirerFake: null,
    seq: 0,
  };
}

/**
 * Stops every child, drops the bench database (unless BENCH_KEEP_DATABASE=1) and removes the
 * embedded data folder; once, whether the run ends, fails or is interrupted.
 */
function installCleanup(run: Run): () => Promise<void> {
  let cleaning: Promise<void> | null = null;
  const cleanup = () =>
    (cleaning ??= (async () => {
      await stopAllChildren();
      await run.benchDb?.end().catch(() => {});
      if (run.admin && run.databaseCreated && process.env.BENCH_KEEP_DATABASE === '1')
        log(`kept database ${run.dbName} (BENCH_KEEP_DATABASE=1): drop it yourself`);
      else if (run.admin && run.databaseCreated) {
        await run.admin
          .query(`DROP DATABASE IF EXISTS ${run.dbName} WITH (FORCE)`)
          .catch((e: Error) => log(`could not drop ${run.dbName}: ${e.message}`));
      }
      await run.admin?.end().catch(() => {});
      if (run.dataDir) rmSync(run.dataDir, { recursive: true, force: true });
    })());
  const onSignal = (signal: string) => {
    log(`${signal}: stopping children and dropping the bench database`);
    void cleanup().finally(() => process.exit(130));
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('exit', killAllChildrenNow);
  return cleanup;
}

/** A temporary DATA_DIR for the embedded database, or a fresh PostgreSQL database and its settings. */
async function openDatabase(run: Run): Promise<void> {
  if (run.opts.embedded) {
    run.dataDir = mkdtempSync(join(tmpdir(), 'purse-bench-'));
    delete run.purseEnv.DATABASE_URL;
    run.purseEnv.DATA_DIR = run.dataDir;
    return;
  }
  run.admin = new pg.Client({ connectionString: run.adminUrl });
  await run.admin.connect();
  await run.admin.query(`CREATE DATABASE ${run.dbName}`);
  run.databaseCreated = true;
  run.databaseUrl = withDatabase(run.adminUrl, run.dbName);
  run.purseEnv.DATABASE_URL = run.databaseUrl;
  run.benchDb = new pg.Client({ connectionString: run.databaseUrl });
  await run.benchDb.connect();
  const settings = await run.benchDb.query(
    `SELECT name, setting FROM pg_settings WHERE name IN ('server_version','fsync','synchronous_commit','shared_buffers','max_connections','wal_level','max_wal_size','autovacuum')`,
  );
  run.dbSettings = Object.fromEntries(settings.rows.map((r) => [r.name, r.setting]));
  log(`database ${run.dbName} created (PostgreSQL ${run.dbSettings.server_version})`);
}

/** The operator command (`purse ARGS`) with Purse's environment; its standard output. */
async function purseCommand(run: Run, args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(process.execPath, [join(ROOT, 'packages/server/bin/purse.mjs'), ...args], {
    cwd: ROOT,
    env: run.purseEnv,
  });
  return stdout;
}

/** `purse merchant create --name NAME --json`, run as the operator would. */
async function createMerchant(run: Run, key: string, name: string): Promise<void> {
  run.merchants[key] = JSON.parse(await purseCommand(run, ['merchant', 'create', '--name', name, '--json'])) as Credentials;
}

/** A live merchant the operator allowed to post card numbers (`--live`, then `merchant update ID --raw-card-data`). */
async function createLiveCardMerchant(run: Run, key: string, name: string): Promise<void> {
  const created = JSON.parse(await purseCommand(run, ['merchant', 'create', '--name', name, '--live', '--json'])) as Credentials;
  await purseCommand(run, ['merchant', 'update', created.merchant_id, '--raw-card-data', '--json']);
  run.merchants[key] = created;
}

/** The card acquirer fake in its own process, and Purse's PURSE_CARD_ACQUIRER_* pointing at it (before Purse starts). */
async function startAcquirer(run: Run): Promise<void> {
  run.acquirerFake = await startAcquirerFake({ benchDir: BENCH, cwd: ROOT, logFile: join(LOGS, 'acquirer-fake.log') });
  Object.assign(run.purseEnv, run.acquirerFake.env);
  log(`acquirer fake ready (pid ${run.acquirerFake.child.pid}, answers at once, no webhooks sent)`);
}

/** Purse: the first process migrates the fresh database; the others start once it is ready. */
async function startPurse(run: Run): Promise<Purse> {
  const ports: number[] = [];
  const servers: Spawned[] = [];
  for (let i = 0; i < run.opts.workers; i++) {
    const port = await freePort();
    // PURSE_BENCH_NODE_FLAGS: extra Node flags for Purse's processes (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
    const flags = (process.env.PURSE_BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
    const server = startChild(`purse-${i + 1}`, process.execPath, [...flags, '--import', 'tsx', 'packages/server/src/main.ts'], {
      cwd: ROOT,
      env: { ...run.purseEnv, PORT: String(port) },
      logFile: join(LOGS, `purse-${i + 1}.log`),
    });
    ports.push(port);
    servers.push(server);
    if (i === 0) await waitFor(`http://127.0.0.1:${port}/readyz`, server);
  }
  await Promise.all(ports.map((port, i) => waitFor(`http://127.0.0.1:${port}/readyz`, servers[i]!)));
  const bases = ports.map((p) => `http://127.0.0.1:${p}`);
  const database = run.opts.embedded ? `PGlite in ${run.dataDir}` : 'PostgreSQL';
  log(`Purse ready: ${run.opts.workers} process(es) on ${ports.join(', ')} (${database})`);
  return { servers, bases, base: bases[0]! };
}

/** The token request of one of the run's merchants. */
function tokenRequest(run: Run, m: string) {
  return { grant_type: 'client_credentials', client_id: run.merchants[m]!.client_id, client_secret: run.merchants[m]!.client_secret };
}

async function tokenOf(run: Run, base: string, m: string): Promise<string> {
  return (await expectOk(`token for ${m}`, http(base, 'POST', '/oauth/token', tokenRequest(run, m)))).access_token as string;
}

const CARD = { number: '4242424242424242', exp_month: 12, exp_year: CARD_YEAR, cvc: '123' };

/** `count` wallets, each topped up with FUNDING by a sandbox card (the top-up must succeed at once). */
function fundedWallets(run: Run, base: string, token: string, count: number, next: () => number): Promise<string[]> {
  return mapLimit(Array.from({ length: count }), 8, async () => {
    const wallet = await expectOk('create wallet', http(base, 'POST', '/v1/wallets', { currency: 'KES' }, token));
    const body = {
      reference: `fund-${run.runId}-${next()}`,
      amount: FUNDING,
      currency: 'KES',
      wallet_id: wallet.id,
      source: { type: 'card', card: CARD },
    };
    const topup = await expectOk('top up wallet', http(base, 'POST', '/v1/topups', body, token));
    if (topup.status !== 'succeeded') throw new Error(`top-up ${topup.id} is ${topup.status}, not succeeded`);
    return wallet.id as string;
  });
}

/** Funded wallets (for Purse and, when they run, the baseline and the ceiling) and payments to read back. */
async function createFixtures(run: Run, base: string): Promise<Fixtures> {
  let topupSeq = 0;
  const next = () => topupSeq++;
  const token = await tokenOf(run, base, 'bench');
  const started = Date.now();
  const wallets = await fundedWallets(run, base, token, WALLETS, next);
  const [hotWallet] = await fundedWallets(run, base, token, 1, next);
  const getIds = await mapLimit(Array.from({ length: GET_IDS }), 8, async (_, i) => {
    const body = {
      reference: `fixture-${run.runId}-${i}`,
      amount: PAYMENT,
      currency: 'KES',
      payment_method: { type: 'wallet', wallet: { wallet_id: wallets[i % WALLETS] } },
    };
    return (await expectOk('fixture payment', http(base, 'POST', '/v1/payments', body, token))).id as string;
  });
  const { scenarios } = run.opts;
  const { baseline, ceiling } = run.merchants;
  const baselineWallets =
    scenarios.includes('baseline') && baseline ? await fundedWallets(run, base, await tokenOf(run, base, 'baseline'), WALLETS, next) : [];
  const groupCommitWallets =
    scenarios.includes('group-commit') && run.merchants['group-commit']
      ? await fundedWallets(run, base, await tokenOf(run, base, 'group-commit'), WALLETS, next)
      : [];
  const ceilingWallets =
    scenarios.includes('ceiling') && ceiling ? await fundedWallets(run, base, await tokenOf(run, base, 'ceiling'), WALLETS, next) : [];
  const outflows = await mapLimit(outflowMerchantKeys(run), 2, (key) => outflowMerchant(run, base, key, next));
  log(`fixtures ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const acquirerToken = run.merchants.acquirer ? await tokenOf(run, base, 'acquirer') : null;
  return { token, acquirerToken, wallets, hotWallet: hotWallet!, getIds, baselineWallets, groupCommitWallets, ceilingWallets, outflows };
}

/** The merchants the chosen outflow scenarios need: one, or --outflow-merchants with a `-merchants` scenario. */
function outflowMerchantKeys(run: Run): string[] {
  const chosen = run.opts.scenarios.filter((s) => OUTFLOW_SCENARIOS.includes(s));
  const count = chosen.length === 0 ? 0 : chosen.some((s) => s.endsWith('-merchants')) ? run.opts.outflowMerchants : 1;
  return Array.from({ length: count }, (_, i) => `outflow${i}`);
}

/**
 * One outflow merchant's fixtures, all through the API: funded wallets, a large payment into its
 * balance, payments to refund, and one warm-up payout (a merchant's first outflow in a currency
 * creates its balance row and runs the statement again: the measured requests must not).
 */
async function outflowMerchant(run: Run, base: string, key: string, next: () => number): Promise<OutflowMerchant> {
  const token = await tokenOf(run, base, key);
  const wallets = await fundedWallets(run, base, token, OUTFLOW_WALLETS, next);
  const pay = async (prefix: string, amount: string, wallet: string) => {
    const body = {
      reference: `${prefix}-${run.runId}-${next()}`,
      amount,
      currency: 'KES',
      payment_method: { type: 'wallet', wallet: { wallet_id: wallet } },
    };
    const payment = await expectOk('outflow fixture payment', http(base, 'POST', '/v1/payments', body, token));
    if (payment.status !== 'succeeded') throw new Error(`payment ${payment.id} is ${payment.status}, not succeeded`);
    return payment.id as string;
  };
  await pay('ofund', OUTFLOW_FUNDING, wallets[0]!);
  const refundable = await mapLimit(Array.from({ length: REFUND_PAYMENTS }), 4, (_, i) =>
    pay('rfix', REFUNDABLE, wallets[i % wallets.length]!),
  );
  const warmUp = {
    reference: `owarm-${run.runId}-${next()}`,
    amount: OUTFLOW,
    currency: 'KES',
    destination: walletDestination(wallets[0]!),
  };
  const payout = await expectOk('warm-up payout', http(base, 'POST', '/v1/payouts', warmUp, token));
  if (payout.status !== 'succeeded') throw new Error(`warm-up payout ${payout.id} is ${payout.status} (${payout.failure_code})`);
  return { token, wallets, refundable };
}

const walletDestination = (walletId: string) => ({ type: 'wallet', wallet: { wallet_id: walletId } });

/**
 * One scenario's load with the CPU each party used: the server processes `pids`, PostgreSQL,
 * this process (the load generator) and anything else on the machine. Its row is added to the run.
 */
async function measure(
  run: Run,
  scenario: string,
  target: Row['target'],
  pids: number[],
  work: () => Promise<LoadResult>,
  readyUrl?: string,
  fakePids: number[] = [],
): Promise<Row> {
  const { opts } = run;
  if (readyUrl) await drained(readyUrl);
  if (run.benchDb) await prepareDatabase(run.benchDb);
  await sleep(500);
  log(`${scenario} (${target}): ${opts.durationS} s, ${opts.connections} connections`);
  const serverBefore = cpuSecondsOf(pids);
  const fakeBefore = cpuSecondsOf(fakePids);
  const dbBefore = opts.embedded ? 0 : postgresCpuSeconds();
  const machineBefore = machineBusySeconds();
  const selfBefore = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const result = await work();
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const self = process.cpuUsage(selfBefore);
  // The load generator: wrk's own CPU (its process, reaped at the end) plus the bench process
  // (autocannon itself, or with wrk the bench idling while it waits).
  const loadgenCpu = (self.user + self.system) / 1e6 + result.childLoadgenCpuS;
  const machineCpu = machineBusySeconds() - machineBefore;
  const serverCpu = cpuSecondsOf(pids) - serverBefore;
  const fakeCpu = cpuSecondsOf(fakePids) - fakeBefore;
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
    serverCpuMsPerReq: result.total > 0 ? (serverCpu * 1000) / result.total : null,
    dbCpuPct: dbCpu === null ? null : (dbCpu / wall) * 100,
    loadgenCpuPct: (loadgenCpu / wall) * 100,
    otherCpuPct: (Math.max(0, machineCpu - serverCpu - (dbCpu ?? 0) - loadgenCpu - fakeCpu) / wall) * 100,
    ...(fakePids.length ? { fakeCpuPct: (fakeCpu / wall) * 100 } : {}),
    durationS: wall,
  };
  const codes = Object.entries(result.statusCodes)
    .map(([c, n]) => `${c}×${n}`)
    .join(' ');
  log(
    `  → ${Math.round(result.requestsPerS)}/s, p99 ${result.latencyMs.p99.toFixed(1)} ms, ${codes}${result.errors ? `, ${result.errors} errors` : ''}`,
  );
  run.rows.push(row);
  return row;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * Payment creations with a fresh reference each (`<prefix>-<run>-<n>-<instance>-<counter>`, n
 * unique per scenario in the run), the means taken in turn from `methods`.
 */
function paymentSpec(run: Run, prefix: string, methods: unknown[], path: string, headers: Record<string, string>): RequestSpec {
  return {
    method: 'POST',
    path,
    headers,
    refPrefix: `${prefix}-${run.runId}-${run.seq++}-`,
    variants: methods.map((method) => ({
      body: JSON.stringify({ reference: REF, amount: PAYMENT, currency: 'KES', payment_method: method }),
    })),
  };
}

/**
 * Transfers of 0.01 KES between the 64 funded wallets, each request with a fresh reference:
 * request k moves from wallet k mod 64 to wallet (k + 32) mod 64, so 64 consecutive transfers use
 * every wallet twice (once as source, once as destination).
 */
function transferSpec(run: Run, wallets: string[], headers: Record<string, string>): RequestSpec {
  const half = Math.floor(wallets.length / 2);
  return {
    method: 'POST',
    path: '/v1/transfers',
    headers,
    refPrefix: `transfer-${run.runId}-${run.seq++}-`,
    variants: wallets.map((from, i) => ({
      body: JSON.stringify({
        reference: REF,
        amount: OUTFLOW,
        currency: 'KES',
        source_wallet_id: from,
        destination_wallet_id: wallets[(i + half) % wallets.length],
      }),
    })),
  };
}

/** Wallet payment methods, one per wallet (taken in turn). */
function walletMethods(ids: string[]): unknown[] {
  return ids.map((id) => ({ type: 'wallet', wallet: { wallet_id: id } }));
}

/** What each Purse scenario sends. */
function purseSpecs(run: Run, fx: Fixtures): Record<(typeof PURSE_SCENARIOS)[number], () => RequestSpec> {
  const auth = { ...JSON_HEADERS, authorization: `Bearer ${fx.token}` };
  const payments = (prefix: string, methods: unknown[]) => paymentSpec(run, prefix, methods, '/v1/payments', auth);
  return {
    token: () => ({ method: 'POST', path: '/oauth/token', headers: JSON_HEADERS, body: JSON.stringify(tokenRequest(run, 'bench')) }),
    wallet: () => payments('wallet', walletMethods(fx.wallets)),
    'hot-wallet': () => payments('hot', walletMethods([fx.hotWallet])),
    transfer: () => transferSpec(run, fx.wallets, auth),
    card: () => payments('card', [{ type: 'card', card: CARD }]),
    'card-acquirer': () =>
      paymentSpec(run, 'acq', [{ type: 'card', card: CARD }], '/v1/payments', {
        ...JSON_HEADERS,
        authorization: `Bearer ${fx.acquirerToken}`,
      }),
    'mobile-money': () => payments('mm', [{ type: 'mobile_money', mobile_money: { phone_number: '+254712345678', provider: 'mpesa' } }]),
    get: () => ({
      method: 'GET',
      path: `/v1/payments/${fx.getIds[0]}`,
      headers: auth,
      variants: fx.getIds.map((id) => ({ path: `/v1/payments/${id}` })),
    }),
    list: () => ({ method: 'GET', path: '/v1/payments?limit=10', headers: auth }),
    refund: () => outflowSpec(run, fx.outflows.slice(0, 1), 'refund'),
    'refund-merchants': () => outflowSpec(run, fx.outflows, 'refund'),
    payout: () => outflowSpec(run, fx.outflows.slice(0, 1), 'payout'),
    'payout-merchants': () => outflowSpec(run, fx.outflows, 'payout'),
  };
}

/**
 * Outflows of OUTFLOW each, with a fresh reference, the merchants taken in turn (each request
 * with its merchant's token): wallet refunds of the merchant's large payments in turn, or
 * payouts to its wallets in turn. Either locks the merchant's balance row (shard 0), so one
 * merchant's outflows serialise there; a refund also locks its payment's row. Request k goes to
 * merchant k mod M, its (k div M)-th payment or wallet in turn: M × L variants make the cycle.
 */
function outflowSpec(run: Run, merchants: OutflowMerchant[], kind: 'refund' | 'payout'): RequestSpec {
  const prefix = kind === 'refund' ? 'refund' : 'payout';
  const cycle = kind === 'refund' ? merchants[0]!.refundable.length : merchants[0]!.wallets.length;
  const body = (m: OutflowMerchant, n: number) =>
    kind === 'refund'
      ? { reference: REF, payment_id: m.refundable[n % m.refundable.length], amount: OUTFLOW }
      : { reference: REF, amount: OUTFLOW, currency: 'KES', destination: walletDestination(m.wallets[n % m.wallets.length]!) };
  const headersOf = merchants.map((m) => ({ ...JSON_HEADERS, authorization: `Bearer ${m.token}` }));
  return {
    method: 'POST',
    path: kind === 'refund' ? '/v1/refunds' : '/v1/payouts',
    headers: headersOf[0]!,
    refPrefix: `${prefix}-${run.runId}-${run.seq++}-`,
    variants: Array.from({ length: merchants.length * cycle }, (_, k) => {
      const m = k % merchants.length;
      return { headers: headersOf[m]!, body: JSON.stringify(body(merchants[m]!, Math.floor(k / merchants.length))) };
    }),
  };
}

/** One scenario's load, with the run's load generator, against `baseUrls`. */
function load(run: Run, scenario: string, baseUrls: string[], request: RequestSpec): Promise<LoadResult> {
  return runLoad({
    loadgen: run.opts.loadgen,
    scenario,
    baseUrls,
    connections: run.opts.connections,
    durationS: run.opts.durationS,
    request,
    logDir: LOGS,
  });
}

/** Each chosen Purse scenario in run order, then Purse stopped. */
async function runPurseScenarios(run: Run, purse: Purse, fx: Fixtures): Promise<void> {
  const { opts } = run;
  const specs = purseSpecs(run, fx);
  const serverPids = purse.servers.map((s) => s.pid);
  for (const scenario of PURSE_SCENARIOS) {
    if (!opts.scenarios.includes(scenario)) continue;
    const acquirer = scenario === 'card-acquirer' ? run.acquirerFake : null;
    const row = await measure(
      run,
      scenario,
      'purse',
      serverPids,
      () => load(run, scenario, purse.bases, specs[scenario]()),
      `${purse.base}/readyz`,
      acquirer ? [acquirer.child.pid] : [],
    );
    if (acquirer) row.note = await acquirerNote(row, purse.base, fx.acquirerToken!);
    if (OUTFLOW_SCENARIOS.includes(scenario)) {
      const merchants = scenario.endsWith('-merchants') ? fx.outflows.length : 1;
      row.note = `${scenario.startsWith('refund') ? 'wallet refunds' : 'payouts to wallets'} of ${OUTFLOW} KES, ${merchants} merchant(s) in turn (one merchant's outflows serialise on its balance row)`;
    }
    if (scenario === 'transfer') row.note = `transfers of ${OUTFLOW} KES between the 64 funded wallets (wallet k to wallet k + 32)`;
    if (scenario === 'mobile-money') await settled(purse.base, fx.token);
  }
  // Purse is stopped before the reference points so that nothing of it (settlement worker,
  // pool connections) runs next to them.
  await Promise.all(purse.servers.map((s) => stopChild(s, 10_000)));
  if (run.acquirerFake) await stopChild(run.acquirerFake.child);
}

/** The card-acquirer row's note: what the fake is, its CPU, and the check of the answers and of a sample of payments. */
async function acquirerNote(row: Row, base: string, token: string): Promise<string> {
  const check = await acquirerCheck(base, token, row.statusCodes ?? {});
  return `a live merchant's card 4242424242424242 (automatic capture) through the acquirer connector to the fake acquirer (bench/acquirer-fake.ts, its own process): the fake answers immediately (no network, no delay, no webhooks sent), so this is Purse's own cost of an acquirer card payment, not a real acquirer's latency; fake CPU ${Math.round(row.fakeCpuPct ?? 0)} % (not in other CPU %); ${check}`;
}

/** The baseline: naive Fastify + pg, the same create-path SQL, the same load. */
async function runBaseline(run: Run, fx: Fixtures): Promise<void> {
  if (run.opts.embedded) {
    run.rows.push(nothing('wallet', 'baseline', 'not run with --embedded (needs PostgreSQL: it shares the database with Purse)'));
    return;
  }
  const port = await freePort();
  const baseline = startChild('baseline', process.execPath, ['--import', 'tsx', join(BENCH, 'baseline-server.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: run.databaseUrl!,
      PORT: String(port),
      BASELINE_MERCHANT_ID: run.merchants.baseline!.merchant_id,
      BASELINE_POOL_SIZE: '16',
    },
    logFile: join(LOGS, 'baseline.log'),
  });
  await waitFor(`http://127.0.0.1:${port}/healthz`, baseline);
  await measure(run, 'wallet', 'baseline', [baseline.pid], () =>
    load(
      run,
      'baseline',
      [`http://127.0.0.1:${port}`],
      paymentSpec(run, 'base', walletMethods(fx.baselineWallets), '/payments', JSON_HEADERS),
    ),
  );
  await stopChild(baseline);
}

/** The group-commit reference: the baseline's rows, concurrent payments merged into one statement and one commit. */
async function runGroupCommit(run: Run, fx: Fixtures): Promise<void> {
  if (run.opts.embedded) {
    run.rows.push(nothing('wallet', 'group-commit', 'not run with --embedded (needs PostgreSQL: it shares the database with Purse)'));
    return;
  }
  const port = await freePort();
  const server = startChild('group-commit', process.execPath, ['--import', 'tsx', join(BENCH, 'group-commit-server.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: run.databaseUrl!,
      PORT: String(port),
      GROUP_COMMIT_MERCHANT_ID: run.merchants['group-commit']!.merchant_id,
      GROUP_COMMIT_POOL_SIZE: '16',
    },
    logFile: join(LOGS, 'group-commit.log'),
  });
  await waitFor(`http://127.0.0.1:${port}/healthz`, server);
  const row = await measure(run, 'wallet', 'group-commit', [server.pid], () =>
    load(
      run,
      'group-commit',
      [`http://127.0.0.1:${port}`],
      paymentSpec(run, 'gc', walletMethods(fx.groupCommitWallets), '/payments', JSON_HEADERS),
    ),
  );
  row.note =
    "reference: the baseline's rows, up to 64 concurrent payments per statement and commit, 4 flushes in flight (bench/group-commit-server.ts)";
  await stopChild(server);
}

/**
 * The minimal group-commit reference: the group commit writing only the least rows a payment needs,
 * in its own schema, on copies of Purse's `wallet` wallets; its note checks its tables against its 201s.
 */
async function runMinimal(run: Run, fx: Fixtures): Promise<void> {
  if (run.opts.embedded) {
    run.rows.push(nothing('wallet', 'group-commit-minimal', 'not run with --embedded (needs PostgreSQL)'));
    return;
  }
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = startChild('group-commit-minimal', process.execPath, ['--import', 'tsx', join(BENCH, 'minimal-server.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: run.databaseUrl!,
      PORT: String(port),
      MINIMAL_WALLETS: fx.wallets.join(','),
      MINIMAL_POOL_SIZE: '16',
    },
    logFile: join(LOGS, 'group-commit-minimal.log'),
  });
  await waitFor(`${base}/healthz`, server);
  const row = await measure(run, 'wallet', 'group-commit-minimal', [server.pid], () =>
    load(run, 'group-commit-minimal', [base], paymentSpec(run, 'gcm', walletMethods(fx.wallets), '/payments', JSON_HEADERS)),
  );
  const check = await minimalCheck(run.benchDb!, base, row.statusCodes?.['201'] ?? 0);
  log(`  ${check}`);
  row.note = `reference: a payment row, a conditional wallet debit, two ledger entries, one small event; up to 64 concurrent payments per statement and commit, 4 flushes in flight (bench/minimal-server.ts); ${check}`;
  await stopChild(server);
}

/**
 * Fastify's own ceiling: constants behind hooks of Purse's weight (bench/constant-server.ts), no
 * database. `constant-get` is Purse's `get` without the read, `constant-post` its `token` without
 * the lookup, HMAC and insert.
 */
async function runConstants(run: Run): Promise<void> {
  const chosen = (['constant-get', 'constant-post'] as const).filter((s) => run.opts.scenarios.includes(s));
  if (chosen.length === 0) return;
  const port = await freePort();
  const token = randomBytes(24).toString('base64url');
  const server = startChild('constant', process.execPath, ['--import', 'tsx', join(BENCH, 'constant-server.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), CONSTANT_TOKEN: token },
    logFile: join(LOGS, 'constant.log'),
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/healthz`, server);
  for (const scenario of chosen) {
    const spec: RequestSpec =
      scenario === 'constant-get'
        ? { method: 'GET', path: '/constant', headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` } }
        : {
            method: 'POST',
            path: '/constant',
            headers: JSON_HEADERS,
            body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'cli_constant', client_secret: 'constant-secret' }),
          };
    const row = await measure(run, scenario === 'constant-get' ? 'get' : 'token', 'fastify-constant', [server.pid], () =>
      load(run, scenario, [base], spec),
    );
    row.note =
      scenario === 'constant-get'
        ? 'reference: GET /constant, Bearer looked up in a Map, request id, response schema, no database (bench/constant-server.ts)'
        : 'reference: POST /constant, token-request body validated by a JSON schema, response schema, no database';
  }
  await stopChild(server);
}

/** The ceiling: pgbench running the create-path SQL as one transaction script per payment, at each client count. */
async function runCeiling(run: Run, fx: Fixtures): Promise<void> {
  const pgbench = run.opts.embedded ? null : findPgbench();
  if (run.opts.embedded) run.rows.push(nothing('wallet', 'pgbench', 'not run with --embedded (pgbench needs PostgreSQL)'));
  else if (!pgbench) run.rows.push(nothing('wallet', 'pgbench', 'pgbench not installed (it ships with postgresql-client)'));
  else
    for (const clients of run.opts.ceilingClients)
      run.rows.push(
        await ceiling(
          pgbench,
          run.databaseUrl!,
          run.merchants.ceiling!.merchant_id,
          fx.ceilingWallets,
          { ...run.opts, clients },
          run.benchDb!,
        ),
      );
}

/** What was stored, per reference prefix, means and status: catches business failures hidden behind 201s. */
async function storedOutcomes(benchDb: pg.Client | null): Promise<string[]> {
  const outcomes: string[] = [];
  if (benchDb) {
    const r = await benchDb.query(
      `SELECT split_part(reference, '-', 1) AS prefix, method_type, status, count(*)::int AS n FROM charges WHERE kind = 'payment' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    );
    for (const o of r.rows) outcomes.push(`${o.prefix}, ${o.method_type}, ${o.status}: ${o.n}`);
    // Outflows: a payout refused for funds is written as failed (201), so it must show here.
    const f = await benchDb.query(
      `SELECT split_part(reference, '-', 1) AS prefix, kind, destination_type, status, coalesce(failure_code, '') AS failure, count(*)::int AS n
       FROM outflows GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`,
    );
    for (const o of f.rows)
      outcomes.push(`${o.prefix}, ${o.kind} to ${o.destination_type}, ${o.status}${o.failure ? ` (${o.failure})` : ''}: ${o.n}`);
    const t = await benchDb.query(
      `SELECT split_part(reference, '-', 1) AS prefix, status, coalesce(failure_code, '') AS failure, count(*)::int AS n
       FROM transfers GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    );
    for (const o of t.rows) outcomes.push(`${o.prefix}, transfer, ${o.status}${o.failure ? ` (${o.failure})` : ''}: ${o.n}`);
  }
  return outcomes;
}

/** The best pgbench row (the ceiling the ratio uses). */
function bestCeiling(rows: Row[]): Row | undefined {
  return rows
    .filter((r) => r.target.startsWith('pgbench'))
    .reduce<Row | undefined>((best, r) => (best === undefined || (r.requestsPerS ?? -1) > (best.requestsPerS ?? -1) ? r : best), undefined);
}

/**
 * Purse's wallet scenario against the baseline, the best ceiling row and the two group-commit
 * references; Purse's get and token against Fastify's constants; the outflows against the wallet payment.
 */
function ratiosOf(rows: Row[]): Ratio[] {
  const purse = (s: string) => rows.find((r) => r.scenario === s && r.target === 'purse');
  const reference = (s: string, target: string) => rows.find((r) => r.scenario === s && r.target === target);
  const purseWallet = purse('wallet');
  const ratio = (name: string, a: Row | undefined, b: Row | undefined, scenario = 'wallet'): Ratio =>
    a?.requestsPerS && b?.requestsPerS
      ? {
          name,
          value: a.requestsPerS / b.requestsPerS,
          note: `${Math.round(a.requestsPerS).toLocaleString('en-US')} / ${Math.round(b.requestsPerS).toLocaleString('en-US')} per s, ${b.target}`,
        }
      : { name, value: null, note: !a?.requestsPerS ? `Purse's ${scenario} scenario not run` : (b?.note ?? 'not run') };
  const outflowRatios = OUTFLOW_SCENARIOS.flatMap((s) => {
    const row = purse(s);
    return row && purseWallet ? [ratio(`${s} / wallet payment`, row, purseWallet, s)] : [];
  });
  const optional = (name: string, a: Row | undefined, b: Row | undefined, scenario: string) =>
    a || b ? [ratio(name, a, b, scenario)] : [];
  return [
    ratio('Purse / baseline (wallet payment)', purseWallet, reference('wallet', 'baseline')),
    ratio('Purse / ceiling', purseWallet, bestCeiling(rows)),
    ratio('Purse / group-commit reference (wallet payment)', purseWallet, reference('wallet', 'group-commit')),
    ratio('Purse / minimal group-commit reference (wallet payment)', purseWallet, reference('wallet', 'group-commit-minimal')),
    ...optional('Purse get / Fastify constant (constant-get)', purse('get'), reference('get', 'fastify-constant'), 'get'),
    ...optional('Purse token / Fastify constant (constant-post)', purse('token'), reference('token', 'fastify-constant'), 'token'),
    ...(purse('card-acquirer') && purse('card')
      ? [ratio('card-acquirer / card', purse('card-acquirer'), purse('card'), 'card-acquirer')]
      : []),
    ...outflowRatios,
  ];
}

/** The lines above the table: machine, database, load and how the figures are computed. */
function contextLines(run: Run): string[] {
  const { opts, dbSettings } = run;
  return [
    `${new Date().toISOString()}, ${cpus().length} CPU (${cpus()[0]?.model.trim()}), load average before ${run.loadBefore.toFixed(2)}, Node ${process.version}`,
    opts.embedded
      ? `database: embedded PGlite (temp DATA_DIR) inside the Purse process: its CPU is in server CPU %; Purse: 1 process`
      : `database: PostgreSQL ${dbSettings.server_version} (fsync=${dbSettings.fsync}, synchronous_commit=${dbSettings.synchronous_commit}, shared_buffers=${dbSettings.shared_buffers}×8kB, autovacuum=${dbSettings.autovacuum}; the bench runs ANALYZE and CHECKPOINT before each scenario); Purse: ${opts.workers} process(es), pool ${process.env.PURSE_DB_POOL_SIZE || 16} each`,
    `${opts.durationS} s per scenario, ${opts.connections} connections (${opts.loadgen === 'wrk' ? 'wrk -t1 in its own process, one per port' : 'autocannon in the bench process'})${opts.embedded ? '' : `; ceiling: pgbench -c ${opts.ceilingClients.join(' and -c ')} -j 2`}; load generator, server and database on the same machine`,
    `latency over every ${opts.loadgen === 'wrk' ? "completed response (2xx or not; wrk's histogram)" : 'response (2xx or not)'}; requests/s = ${opts.loadgen === 'wrk' ? "wrk's requests / its duration" : "autocannon's per-second average"}; CPU % = CPU seconds / wall seconds × 100 (100 = one core); server CPU ms/req = the server's CPU seconds over the scenario × 1000 / requests answered; loadgen CPU % = ${opts.loadgen === 'wrk' ? 'wrk (its pid, reaped) + the bench process' : 'the bench process'}; other CPU % = the machine's busy time minus server, database and load generator: anything else running on the machine during the scenario`,
  ];
}

/** bench/results/latest.json and latest.md, and the table on stdout. */
function writeReport(run: Run, outcomes: string[]): void {
  const { opts, rows } = run;
  const ratios = ratiosOf(rows);
  const targets = checkTargets(rows, ratios, opts);
  const md = markdown({
    title: `Purse benchmark (${opts.embedded ? 'embedded PGlite' : 'PostgreSQL'})`,
    context: contextLines(run),
    rows,
    ratios,
    targets,
    outcomes,
  });
  const result = {
    startedAt: new Date(Number.parseInt(run.runId, 36)).toISOString(),
    options: opts,
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model,
      node: process.version,
      loadavgBefore: run.loadBefore,
      loadavgAfter: loadavg(),
    },
    database: opts.embedded ? { kind: 'pglite' } : { kind: 'postgresql', ...run.dbSettings },
    rows,
    ratios: ratios.map((r) => ({ ...r, line: ratioLine(r) })),
    targets,
    outcomes,
  };
  writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(RESULTS, 'latest.md'), md);
  process.stdout.write(`\n${md}`);
  log('wrote bench/results/latest.json and bench/results/latest.md');
}

/** The tables whose rows the long run reports, and whose sequential scans it counts. */
const LONG_TABLES = ['charges', 'ledger_transactions', 'ledger_entries', 'events', 'webhook_deliveries'];

/** What the database holds after a window of the long run; embedded: the payments answered (no connection from outside). */
async function longCounters(run: Run, answered: number) {
  if (!run.benchDb) return { rows: { payments: answered }, seqScans: null, analyzes: null };
  const { rows } = await run.benchDb.query<{ relname: string; live: string; seq: string; analyzes: string }>(
    `SELECT relname, n_live_tup AS live, seq_scan AS seq, analyze_count + autoanalyze_count AS analyzes
       FROM pg_stat_user_tables WHERE schemaname = 'public' AND relname = ANY($1)`,
    [LONG_TABLES],
  );
  const pick = (name: string) => rows.find((r) => r.relname === name);
  return {
    rows: Object.fromEntries(LONG_TABLES.map((t) => [t, Number(pick(t)?.live ?? 0)])),
    seqScans: Object.fromEntries(rows.map((r) => [r.relname, Number(r.seq)])),
    analyzes: rows.reduce((sum, r) => sum + Number(r.analyzes), 0),
  };
}

/**
 * `--long`: wallet payments for --long-duration seconds in windows of --long-window, on a database
 * analyzed while empty (right after the migrations, before any fixture) and never by the bench
 * again: whatever keeps the statistics current is Purse's own (or autovacuum, off on this machine).
 */
async function runLong(run: Run): Promise<void> {
  const { opts } = run;
  await openDatabase(run);
  if (opts.embedded) await createMerchant(run, 'bench', 'bench');
  const purse = await startPurse(run);
  if (!opts.embedded) await createMerchant(run, 'bench', 'bench');
  await run.benchDb?.query('ANALYZE');
  let topupSeq = 0;
  const token = await tokenOf(run, purse.base, 'bench');
  const wallets = await fundedWallets(run, purse.base, token, WALLETS, () => topupSeq++);
  const auth = { ...JSON_HEADERS, authorization: `Bearer ${token}` };
  const windows = Math.max(1, Math.round(opts.longDurationS / opts.longWindowS));
  const loadBefore = loadavg()[0]!;
  log(`long run: ${windows} windows of ${opts.longWindowS} s, ${opts.connections} connections, ${WALLETS} wallets`);
  const list = await runLongWindows({
    windows,
    windowS: opts.longWindowS,
    runWindow: (durationS) =>
      runLoad({
        loadgen: opts.loadgen,
        scenario: 'wallet-long',
        baseUrls: purse.bases,
        connections: opts.connections,
        durationS,
        request: paymentSpec(run, 'long', walletMethods(wallets), '/v1/payments', auth),
        logDir: LOGS,
      }),
    counters: (answered) => longCounters(run, answered),
    log,
  });
  await Promise.all(purse.servers.map((s) => stopChild(s, 10_000)));
  const database = opts.embedded
    ? 'embedded PGlite'
    : `PostgreSQL ${run.dbSettings.server_version} (autovacuum ${run.dbSettings.autovacuum})`;
  const md = longMarkdown(
    `Long run: wallet payments, ${database}`,
    [
      `${new Date(Number.parseInt(run.runId, 36)).toISOString()}; ${windows} × ${opts.longWindowS} s, ${opts.connections} connections (${opts.loadgen}), ${WALLETS} funded wallets of one merchant, a payment of ${PAYMENT} KES on each in turn`,
      `database analyzed once while empty, before the fixtures; the bench never analyzes again`,
      `load average before ${loadBefore.toFixed(1)} on ${cpus().length} CPUs (the last column: during the run)`,
    ],
    list,
  );
  const name = opts.embedded ? 'long-embedded' : 'long-postgres';
  writeFileSync(
    join(RESULTS, `${name}.json`),
    `${JSON.stringify({ options: opts, database: run.dbSettings, windows: list, verdict: longVerdict(list) }, null, 2)}\n`,
  );
  writeFileSync(join(RESULTS, `${name}.md`), md);
  process.stdout.write(`\n${md}`);
  log(`wrote bench/results/${name}.json and bench/results/${name}.md`);
}

async function main(): Promise<void> {
  const run = newRun();
  const cleanup = installCleanup(run);
  try {
    const { opts } = run;
    if (opts.long) return await runLong(run);
    await openDatabase(run);
    const needsReference = !opts.embedded && opts.scenarios.some((s) => s === 'baseline' || s === 'group-commit' || s === 'ceiling');
    // With the embedded database the operator command must run before the server opens DATA_DIR.
    if (opts.embedded) await createMerchant(run, 'bench', 'bench');
    if (opts.embedded) for (const key of outflowMerchantKeys(run)) await createMerchant(run, key, `bench-${key}`);
    const withAcquirer = opts.scenarios.includes('card-acquirer');
    if (withAcquirer) await startAcquirer(run);
    if (withAcquirer && opts.embedded) await createLiveCardMerchant(run, 'acquirer', 'bench-acquirer');
    const purse = await startPurse(run);
    if (!opts.embedded) {
      await createMerchant(run, 'bench', 'bench');
      if (withAcquirer) await createLiveCardMerchant(run, 'acquirer', 'bench-acquirer');
      for (const key of outflowMerchantKeys(run)) await createMerchant(run, key, `bench-${key}`);
      if (needsReference) {
        await createMerchant(run, 'baseline', 'bench-baseline');
        await createMerchant(run, 'group-commit', 'bench-group-commit');
        await createMerchant(run, 'ceiling', 'bench-ceiling');
      }
    }
    const fixtures = await createFixtures(run, purse.base);
    await runPurseScenarios(run, purse, fixtures);
    if (opts.scenarios.includes('baseline')) await runBaseline(run, fixtures);
    if (opts.scenarios.includes('group-commit')) await runGroupCommit(run, fixtures);
    if (opts.scenarios.includes('group-commit-minimal')) await runMinimal(run, fixtures);
    if (opts.scenarios.includes('ceiling')) await runCeiling(run, fixtures);
    await runConstants(run);
    writeReport(run, await storedOutcomes(run.benchDb));
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
    serverCpuMsPerReq: null,
    dbCpuPct: null,
    loadgenCpuPct: null,
    otherCpuPct: null,
    durationS: null,
    note,
  };
}

/** pgbench running the ceiling script (the server's own wallet-payment statement) for `durationS` seconds, logging every transaction under `dir`. */
function pgbenchArgs(
  clients: number,
  durationS: number,
  merchantId: string,
  wallets: string[],
  dir: string,
  script: string,
  databaseUrl: string,
): string[] {
  return [
    '-n',
    '-M',
    'prepared',
    '-c',
    String(clients),
    '-j',
    String(Math.min(2, clients)),
    '-T',
    String(durationS),
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
}

/** pgbench's CPU seconds: the cutime + cstime of the sh that waited for it, from the /proc stat it saved; null without it. */
function pgbenchCpuSeconds(statFile: string): number | null {
  try {
    const stat = readFileSync(statFile, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[13]) + Number(f[14])) / ticksPerSecond();
  } catch {
    return null;
  }
}

/** Every transaction's latency in milliseconds, from pgbench's per-transaction logs (third column, microseconds). */
function pgbenchLatencies(dir: string): number[] {
  const latencies: number[] = [];
  for (const file of readdirSync(dir).filter((f) => f.startsWith('tx'))) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      const us = Number(line.split(' ')[2]);
      if (line && Number.isFinite(us)) latencies.push(us / 1000);
    }
  }
  return latencies;
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
    const args = pgbenchArgs(opts.clients, opts.durationS, merchantId, wallets, dir, script, databaseUrl);
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
    const clientCpu = pgbenchCpuSeconds(statFile);
    const latencies = pgbenchLatencies(dir);
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
      serverCpuMsPerReq: null,
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

function checkTargets(rows: Row[], ratios: Ratio[], opts: { embedded: boolean; connections: number }): Target[] {
  const purse = (s: string) => rows.find((r) => r.scenario === s && r.target === 'purse' && r.requestsPerS !== null);
  const rate = (r: Row | undefined) => (r ? `${Math.round(r.requestsPerS!).toLocaleString('en-US')}/s` : 'not run');
  const byName = (prefix: string) => ratios.find((r) => r.name.startsWith(prefix));
  const times = (r: Ratio | undefined) => (r?.value == null ? 'n/a' : `${r.value.toFixed(2)}×`);
  const out: Target[] = [];
  const wallet = purse('wallet');
  if (opts.embedded) {
    out.push({
      name: 'embedded: wallet payment ≥ 1,000 creations/s',
      met: wallet ? wallet.requestsPerS! >= 1000 : null,
      detail: `wallet ${rate(wallet)}`,
    });
    return out;
  }
  const baseline = byName('Purse / baseline');
  out.push({
    name: 'wallet payment ≥ 3× baseline',
    met: baseline?.value == null ? null : baseline.value >= 3,
    detail: times(baseline),
  });
  const ceiling = byName('Purse / ceiling');
  const clean = wallet ? wallet.non2xx === 0 && (wallet.errors ?? 0) === 0 : false;
  out.push({
    name: `wallet payment ≥ 1.0× the pgbench ceiling with p99 ≤ 50 ms at 64 connections and no errors${opts.connections !== 64 ? ` (this run: ${opts.connections})` : ''}`,
    met: wallet && ceiling?.value != null ? ceiling.value >= 1 && wallet.latencyMs!.p99 <= 50 && clean : null,
    detail: wallet
      ? `${times(ceiling)} (${rate(wallet)} / ${rate(bestCeiling(rows))}), p99 ${wallet.latencyMs!.p99.toFixed(1)} ms, non-2xx ${wallet.non2xx}, errors ${wallet.errors}`
      : 'not run',
  });
  const groupCommit = byName('Purse / group-commit');
  out.push({
    name: 'wallet payment toward 0.8× the group-commit reference',
    met: groupCommit?.value == null ? null : groupCommit.value >= 0.8,
    detail: times(groupCommit),
  });
  const minimal = byName('Purse / minimal group-commit');
  out.push({
    name: 'wallet payment ≥ 0.25× the minimal group-commit reference at p99 ≤ 50 ms',
    met: wallet && minimal?.value != null ? minimal.value >= 0.25 && wallet.latencyMs!.p99 <= 50 : null,
    detail: wallet && minimal?.value != null ? `${times(minimal)}, p99 ${wallet.latencyMs!.p99.toFixed(1)} ms` : 'not measured',
  });
  return out;
}

main().catch((error: unknown) => {
  process.stderr.write(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
