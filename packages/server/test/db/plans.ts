// No sequential scan of a growing table on a hot path, whatever the statistics say: the scenario
// of test/db/plans.test.ts and of its negative control (test/negative-control.ts, which drops an
// index first and must see a scan).
//
// The database is analyzed while empty (every table's statistics say "0 rows", as on a fresh
// install whose first ANALYZE came before any traffic), then grown through the API by a first
// server, without another ANALYZE. A second server, with fresh connections (so that what it plans
// depends only on the tables and their stale statistics, not on plans made while they were tiny,
// which is the statistics worker's concern: test/db/statistics.test.ts), then runs a burst of each
// hot operation over real HTTP. `pg_stat_user_tables.seq_scan` of each growing table is read
// before and after each burst: any increase is a plan that reads a whole table.
import { sql } from 'kysely';
import { type ApiClient, httpClient, inParallel } from '../concurrency/support.ts';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import { cardMethod, mobileMethod, uniqueRef, walletMethod } from '../helpers/factories.ts';
import { startReceiver } from '../webhooks/receiver.ts';

/** The tables that grow with traffic (the others grow with merchants and endpoints only). */
export const GROWING_TABLES = [
  'access_tokens',
  'charges',
  'events',
  'ledger_entries',
  'ledger_transactions',
  'outflows',
  'sandbox_provider_charges',
  'transfers',
  'wallets',
  'webhook_attempts',
  'webhook_deliveries',
] as const;

/**
 * Scans known and not yet removed: none. (The JSON page of balance transactions was one until it
 * worked its balances back from the account's total instead of summing the whole account.)
 */
export const KNOWN_SCANS: Readonly<Record<string, readonly string[]>> = {};

/** The scans of the verdict that are not KNOWN_SCANS, per operation. */
export function unexpectedScans(verdict: PlansVerdict): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const [operation, tables] of Object.entries(verdict.scans)) {
    const unexpected = Object.entries(tables).filter(([table]) => !KNOWN_SCANS[operation]?.includes(table));
    if (unexpected.length > 0) out[operation] = Object.fromEntries(unexpected);
  }
  return out;
}

export interface PlansOptions {
  /** How many of each write the first server makes (default 200; wallet payments, wallets and tokens 3×). */
  grow?: number;
  /** Requests per burst (default 24). */
  burst?: number;
  /** Runs on the grown database before the second server starts (the negative control drops an index). */
  beforeBursts?: (app: TestApp) => Promise<void>;
  log?: (line: string) => void;
}

export interface PlansVerdict {
  /** Per operation, the growing tables it scanned and how often; empty: none. */
  scans: Record<string, Record<string, number>>;
  /** Rows per growing table when the bursts ran. */
  rows: Record<string, number>;
  /** Any answer outside 2xx, per operation (the scenario itself went wrong). */
  failures: Record<string, string[]>;
}

const ENV = { PURSE_SANDBOX_DELAY_MS: '0', PURSE_ALLOW_PRIVATE_WEBHOOK_URLS: 'true' };

async function seqScans(app: TestApp): Promise<Record<string, number>> {
  const db = app.deps.db.db;
  // A backend publishes its counts when idle for a second (PostgreSQL) or when told (PGlite's one session).
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  await sql`SELECT pg_stat_force_next_flush()`.execute(db);
  await sql`SELECT pg_stat_clear_snapshot()`.execute(db);
  const rows = await sql<{ relname: string; seq_scan: string }>`
    SELECT relname, seq_scan FROM pg_stat_user_tables WHERE schemaname = current_schema()`.execute(db);
  return Object.fromEntries(rows.rows.map((r) => [r.relname, Number(r.seq_scan)]));
}

async function rowCounts(app: TestApp): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of GROWING_TABLES) {
    const row = await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(app.deps.db.db);
    out[table] = Number(row.rows[0]?.n);
  }
  return out;
}

/** What the bursts need: the merchant, funded wallets, payments to refund, a webhook endpoint. */
interface World {
  merchant: TestMerchant;
  client: ApiClient;
  /** The listening server's URL. */
  base: string;
  wallets: string[];
  payments: string[];
  refundable: string[];
  refunds: string[];
  payouts: string[];
  transfers: string[];
  topups: string[];
}

function expectCreated(failures: string[], res: { status: number; body: unknown }): string | null {
  if (res.status >= 200 && res.status < 300) return (res.body as { id?: string }).id ?? '';
  if (failures.length < 5) failures.push(`${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
  return null;
}

const pay = (wallet: string, amount = '1.00') => ({
  reference: uniqueRef('pl'),
  amount,
  currency: 'KES',
  payment_method: walletMethod(wallet),
});

/** The first server's traffic: every write many times, so that every growing table has thousands of rows. */
async function grow(app: TestApp, world: World, n: number, failures: string[]): Promise<void> {
  const { client, wallets } = world;
  const ok = (res: { status: number; body: unknown }) => expectCreated(failures, res);
  const run = (count: number, task: (i: number) => Promise<unknown>) => inParallel(count, 16, task);
  // Wallets and tokens are small rows: three times as many, so that their tables span pages too.
  await run(n * 3, () => client.request('POST', '/v1/wallets', { currency: 'KES' }).then(ok));
  await run(n * 3, () => tokenRequest(world).then(ok));
  const paid = await run(n * 3, (i) => client.request('POST', '/v1/payments', pay(wallets[i % wallets.length]!, '10.00')).then(ok));
  world.refundable = paid.filter((id): id is string => !!id);
  await run(n, () =>
    client
      .request('POST', '/v1/payments', { reference: uniqueRef('plc'), amount: '5.00', currency: 'KES', payment_method: cardMethod() })
      .then(ok),
  );
  await run(n, () =>
    client
      .request('POST', '/v1/payments', { reference: uniqueRef('plm'), amount: '5.00', currency: 'KES', payment_method: mobileMethod() })
      .then(ok),
  );
  await run(n, (i) =>
    client
      .request('POST', '/v1/topups', {
        reference: uniqueRef('plt'),
        amount: '5.00',
        currency: 'KES',
        wallet_id: wallets[i % wallets.length],
        source: cardMethod(),
      })
      .then(ok),
  );
  await run(n, (i) =>
    client.request('POST', '/v1/refunds', { reference: uniqueRef('plr'), payment_id: world.refundable[i], amount: '0.01' }).then(ok),
  );
  await run(n, (i) =>
    client
      .request('POST', '/v1/payouts', {
        reference: uniqueRef('plp'),
        amount: '0.01',
        currency: 'KES',
        destination: { type: 'wallet', wallet: { wallet_id: wallets[i % wallets.length] } },
      })
      .then(ok),
  );
  await run(n, (i) => client.request('POST', '/v1/transfers', transfer(wallets, i)).then(ok));
  // A merchant's wallets are many small rows: with a few hundred, one page of a batch's lookups
  // is rightly a scan (PGlite's planner hashes the whole table for a batch of eight). Thousands
  // more, cloned from one made through the API, make the table the size where it never is.
  await sql`INSERT INTO wallets SELECT 'wal_' || lpad(g::text, 26, '0'), merchant_id, currency, NULL, request_fingerprint, holder, metadata,
      status, 0, livemode, created_at - interval '1 day', updated_at FROM wallets, generate_series(1, ${sql.lit(n * 25)}) g
    WHERE id = ${wallets[0]}`.execute(app.deps.db.db);
  for (let i = 0; i < 50; i++) if ((await app.deps.worker.runOnce()) + (await app.deps.outflowWorker.runOnce()) === 0) break;
  while ((await app.deps.deliveryWorker.runOnce()) > 0);
}

/** A token request: client credentials in the body, and no Bearer header (the endpoint refuses one). */
async function tokenRequest(world: World) {
  const res = await fetch(`${world.base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: world.merchant.clientId,
      client_secret: world.merchant.clientSecret,
    }),
  });
  return { status: res.status, body: await res.json() };
}

const transfer = (wallets: string[], i: number) => ({
  reference: uniqueRef('plx'),
  amount: '0.01',
  currency: 'KES',
  source_wallet_id: wallets[i % wallets.length],
  destination_wallet_id: wallets[(i + 1) % wallets.length],
});

type Operation = [name: string, run: (i: number) => Promise<{ status: number; body: unknown } | number>];

/** Every hot path, each a burst of requests over HTTP (or a worker's pass). */
function operations(app: TestApp, world: World): Operation[] {
  const { client, wallets } = world;
  const pick = (list: string[], i: number) => list[i % list.length]!;
  const post = (path: string, body: unknown) => client.request('POST', path, body);
  const get = (path: string) => client.request('GET', path);
  return [
    ['token', () => tokenRequest(world)],
    ['wallet create', () => post('/v1/wallets', { currency: 'KES' })],
    ['wallet payment', (i) => post('/v1/payments', pay(pick(wallets, i)))],
    [
      'card payment',
      () => post('/v1/payments', { reference: uniqueRef('pc'), amount: '2.00', currency: 'KES', payment_method: cardMethod() }),
    ],
    [
      'mobile-money payment',
      () => post('/v1/payments', { reference: uniqueRef('pm'), amount: '2.00', currency: 'KES', payment_method: mobileMethod() }),
    ],
    [
      'top-up',
      (i) =>
        post('/v1/topups', {
          reference: uniqueRef('pt'),
          amount: '2.00',
          currency: 'KES',
          wallet_id: pick(wallets, i),
          source: cardMethod(),
        }),
    ],
    ['refund', (i) => post('/v1/refunds', { reference: uniqueRef('pr'), payment_id: pick(world.refundable, i + 7), amount: '0.01' })],
    [
      'payout',
      (i) =>
        post('/v1/payouts', {
          reference: uniqueRef('pp'),
          amount: '0.01',
          currency: 'KES',
          destination: { type: 'wallet', wallet: { wallet_id: pick(wallets, i) } },
        }),
    ],
    ['transfer', (i) => post('/v1/transfers', transfer(wallets, i + 3))],
    ['settlement worker', () => app.deps.worker.runOnce()],
    ['outflow worker', () => app.deps.outflowWorker.runOnce()],
    ['delivery worker', () => app.deps.deliveryWorker.runOnce()],
    ['GET payment', (i) => get(`/v1/payments/${pick(world.payments, i)}`)],
    ['GET top-up', (i) => get(`/v1/topups/${pick(world.topups, i)}`)],
    ['GET wallet', (i) => get(`/v1/wallets/${pick(wallets, i)}`)],
    ['GET refund', (i) => get(`/v1/refunds/${pick(world.refunds, i)}`)],
    ['GET payout', (i) => get(`/v1/payouts/${pick(world.payouts, i)}`)],
    ['GET transfer', (i) => get(`/v1/transfers/${pick(world.transfers, i)}`)],
    ['GET balance', () => get('/v1/balance')],
    ['list payments', () => get('/v1/payments?limit=20')],
    [
      'list payments, filtered',
      (i) => get(`/v1/payments?status=succeeded&payment_method_type=${['wallet', 'card', 'mobile_money'][i % 3]}&limit=20`),
    ],
    ['list payments by reference', () => get('/v1/payments?reference=no-such-reference')],
    ['list top-ups', () => get('/v1/topups?limit=20')],
    ['list wallets', () => get('/v1/wallets?limit=20')],
    ['wallet transactions', (i) => get(`/v1/wallets/${pick(wallets, i)}/transactions?limit=20`)],
    ['list refunds', () => get('/v1/refunds?limit=20')],
    ['list payouts', () => get('/v1/payouts?limit=20')],
    ['list transfers', () => get('/v1/transfers?limit=20')],
    ['list events', () => get('/v1/events?limit=20')],
    ['list events by type', () => get('/v1/events?type=payment.succeeded&limit=20')],
    ['balance transactions', () => get('/v1/balance_transactions?limit=20')],
  ];
}

async function collect(client: ApiClient, path: string): Promise<string[]> {
  const res = await client.request('GET', `${path}?limit=100`);
  return ((res.body as { data?: { id: string }[] }).data ?? []).map((o) => o.id);
}

/** Runs the scenario on the test database (fresh, migrated): see the file's head. */
export async function runPlans(options: PlansOptions = {}): Promise<PlansVerdict> {
  const n = options.grow ?? 200;
  const burst = options.burst ?? 24;
  const log = options.log ?? (() => {});
  const receiver = await startReceiver();
  const failures: Record<string, string[]> = {};
  try {
    const first = await buildTestApp(null, { env: ENV });
    let world: World;
    try {
      await sql`ANALYZE`.execute(first.deps.db.db);
      const merchant = await createTestMerchant(first, 'Plans');
      await first.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(first.server.address() as { port: number }).port}`;
      const client = httpClient([base], merchant.auth);
      await client.request('POST', '/v1/webhook_endpoints', { url: receiver.url });
      world = { merchant, client, base, wallets: [], payments: [], refundable: [], refunds: [], payouts: [], transfers: [], topups: [] };
      failures.grow = [];
      for (let i = 0; i < 16; i++) {
        const wallet = expectCreated(failures.grow, await client.request('POST', '/v1/wallets', { currency: 'KES' }));
        const body = { reference: uniqueRef('plf'), amount: '100000.00', currency: 'KES', wallet_id: wallet, source: cardMethod() };
        expectCreated(failures.grow, await client.request('POST', '/v1/topups', body));
        if (wallet) world.wallets.push(wallet);
      }
      const started = Date.now();
      await grow(first, world, n, failures.grow);
      log(`grown in ${Date.now() - started} ms`);
      if (options.beforeBursts) await options.beforeBursts(first);
      // The embedded database is one session, which a second server could not reopen (a test
      // loads a fresh copy of the template): the same server goes on, its plans dropped instead.
      if (first.deps.db.kind === 'pglite') {
        await sql`DISCARD PLANS`.execute(first.deps.db.db);
        return await bursts(first, world, burst, failures, log);
      }
    } finally {
      await first.close();
      await first.deps.close();
    }
    const second = await buildTestApp(null, { env: ENV });
    try {
      await second.listen({ port: 0, host: '127.0.0.1' });
      world.base = `http://127.0.0.1:${(second.server.address() as { port: number }).port}`;
      return await bursts(second, world, burst, failures, log);
    } finally {
      await second.close();
      await second.deps.close();
    }
  } finally {
    await receiver.close();
  }
}

async function bursts(
  app: TestApp,
  world: World,
  burst: number,
  failures: Record<string, string[]>,
  log: (line: string) => void,
): Promise<PlansVerdict> {
  const client = httpClient([world.base], world.merchant.auth);
  world.client = client;
  world.payments = await collect(client, '/v1/payments');
  world.topups = await collect(client, '/v1/topups');
  world.refunds = await collect(client, '/v1/refunds');
  world.payouts = await collect(client, '/v1/payouts');
  world.transfers = await collect(client, '/v1/transfers');
  const rows = await rowCounts(app);
  log(`rows: ${JSON.stringify(rows)}`);
  const scans: Record<string, Record<string, number>> = {};
  for (const [name, run] of operations(app, world)) {
    const before = await seqScans(app);
    const answers = await inParallel(burst, 8, run);
    const after = await seqScans(app);
    const scanned = Object.fromEntries(
      GROWING_TABLES.map((t) => [t, (after[t] ?? 0) - (before[t] ?? 0)] as const).filter(([, d]) => d > 0),
    );
    scans[name] = scanned;
    const bad = answers.filter((a) => typeof a !== 'number' && (a.status < 200 || a.status >= 300));
    if (bad.length > 0)
      failures[name] = bad.slice(0, 3).map((a) => (typeof a === 'number' ? '' : `${a.status} ${JSON.stringify(a.body).slice(0, 200)}`));
    log(`${name}: ${Object.keys(scanned).length === 0 ? 'no sequential scan' : `SCANNED ${JSON.stringify(scanned)}`}`);
  }
  for (const [key, list] of Object.entries(failures)) if (list.length === 0) delete failures[key];
  return { scans, rows, failures };
}
