// Money writes crossing over a few shared wallets, from two server processes: wallet payments
// (a wallet, then a merchant-balance shard), transfers (two wallets), wallet refunds (a payment,
// its wallet, the merchant's shard 0). Each process batches what arrives in its lanes, so two
// processes' batches hold the same rows in different arrival orders: with the locks taken in
// arrival order they deadlock; in the one global order (src/db/lock-order.ts) they cannot.
// Reusable: test/concurrency/lock-order.test.ts asserts 0 deadlocks and 0 5xx on the real
// group commit; test/negative-control.ts runs the same against arrival-order locks and must see
// deadlocks. Deadlocks are counted by PostgreSQL (pg_stat_database), read once both servers have
// stopped (a backend reports its counts when it exits).
import pg from 'pg';
import { TEST_ENV } from '../helpers/app.ts';
import { cardMethod, walletMethod } from '../helpers/factories.ts';
import { freePort, type SpawnedServer, spawnServer, waitReady } from '../helpers/processes.ts';
import { type ApiClient, httpClient, inParallel, tally } from './support.ts';

export interface LockOrderOptions {
  /** The test database both processes use (a fresh one). */
  databaseUrl: string;
  /** TEST_BATCH_EXECUTOR of test/helpers/serve.ts: unset for the real group commit. */
  executor?: 'arrival-order-locks';
  /** Requests in all (default 1,500) and in flight at once (default 64). */
  requests?: number;
  concurrency?: number;
  /** Wallets shared by every request (default 6: few, so batches of both processes meet). */
  wallets?: number;
}

/** The load of the test and of its negative control: the same for both. */
export const LOCK_ORDER_LOAD = { requests: 3_000, concurrency: 128, wallets: 4 } as const;

export interface LockOrderFigures {
  requests: number;
  statuses: Record<string, number>;
  answers500: number;
  answers5xx: number;
  /** pg_stat_database.deadlocks of the database after the run. */
  deadlocks: number;
  /** The processes' own count of batches run again after a deadlock (purse_group_commit_conflicts_total). */
  retriedConflicts: number;
  samples: string[];
  ms: number;
}

interface Scope {
  after(fn: () => Promise<void> | void): void;
}

async function startServers(scope: Scope, options: LockOrderOptions): Promise<SpawnedServer[]> {
  const servers: SpawnedServer[] = [];
  for (let i = 0; i < 2; i++) {
    servers.push(
      spawnServer(
        scope,
        {
          DATABASE_URL: options.databaseUrl,
          PORT: String(await freePort()),
          PURSE_BOOTSTRAP_MERCHANT: 'false',
          // The in-process app's key: the caller's merchant token works on both processes.
          PURSE_SECRET_KEY: TEST_ENV.PURSE_SECRET_KEY as string,
          PURSE_WORKER: 'false',
          // One lane per process: every batch holds several of the shared wallets, in arrival
          // order, so two processes' batches meet on the same rows all the time.
          PURSE_GROUP_COMMIT_LANES: '1',
          ...(options.executor ? { TEST_BATCH_EXECUTOR: options.executor } : {}),
        },
        'test/helpers/serve.ts',
      ),
    );
  }
  await Promise.all(servers.map((s) => waitReady(s)));
  return servers;
}

async function fundedWallets(client: ApiClient, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const created = await client.request('POST', '/v1/wallets', { currency: 'KES' });
    if (created.status !== 201) throw new Error(`wallet: ${created.status} ${JSON.stringify(created.body)}`);
    const id = created.body.id as string;
    const topup = await client.request('POST', '/v1/topups', {
      reference: `lock-order-fund-${id}`,
      amount: '100000.00',
      currency: 'KES',
      wallet_id: id,
      source: cardMethod(),
    });
    if (topup.status !== 201 || topup.body.status !== 'succeeded') throw new Error(`top-up: ${topup.status} ${JSON.stringify(topup.body)}`);
    ids.push(id);
  }
  return ids;
}

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)] as T;

/**
 * One request of the mix, at random (requests alternate between the processes, so anything tied
 * to the index would give each process its own wallets): payments, transfers, refunds of earlier
 * payments, all over the same few wallets.
 */
function requestFor(i: number, runId: string, wallets: string[], paid: string[]): [string, Record<string, unknown>] {
  const a = pick(wallets);
  const b = pick(wallets);
  const reference = `${runId}-${i}`;
  const kind = Math.random();
  if (kind < 0.25 && paid.length > 0) return ['/v1/refunds', { reference, payment_id: pick(paid), amount: '0.01' }];
  if (kind < 0.5 && a !== b) {
    return ['/v1/transfers', { reference, amount: '1.00', currency: 'KES', source_wallet_id: a, destination_wallet_id: b }];
  }
  return ['/v1/payments', { reference, amount: '1.00', currency: 'KES', payment_method: walletMethod(a) }];
}

async function metricSum(server: SpawnedServer, name: string): Promise<number> {
  const text = await (await fetch(`${server.base}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.split(' ').pop());
  return sum;
}

async function deadlocksOf(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ deadlocks: string }>('SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()');
    return Number(rows[0]?.deadlocks ?? 0);
  } finally {
    await client.end();
  }
}

/**
 * The count once it stops moving: a backend reports its statistics when it exits or at most once a
 * second, so right after the servers stop their backends' deadlocks may not be counted yet.
 */
async function settledDeadlocks(databaseUrl: string): Promise<number> {
  let last = await deadlocksOf(databaseUrl);
  for (let i = 0; i < 6; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = await deadlocksOf(databaseUrl);
    if (now === last && i >= 2) return now;
    last = now;
  }
  return last;
}

/** Two processes, one merchant, the mix over shared wallets; the servers are stopped before the deadlocks are read. */
export async function runLockOrder(scope: Scope, options: LockOrderOptions, auth: { authorization: string }): Promise<LockOrderFigures> {
  const servers = await startServers(scope, options);
  const client = httpClient(
    servers.map((s) => s.base),
    auth,
  );
  const wallets = await fundedWallets(client, options.wallets ?? 6);
  const runId = `lock-order-${Date.now()}`;
  const before = await deadlocksOf(options.databaseUrl);
  const requests = options.requests ?? 1_500;
  const paid: string[] = [];
  const started = Date.now();
  const responses = await inParallel(requests, options.concurrency ?? 64, async (i) => {
    const [path, body] = requestFor(i, runId, wallets, paid);
    const res = await client.request('POST', path, body);
    if (path === '/v1/payments' && res.status === 201 && res.body.status === 'succeeded') paid.push(res.body.id as string);
    return res;
  });
  const ms = Date.now() - started;
  let retriedConflicts = 0;
  for (const s of servers) retriedConflicts += await metricSum(s, 'purse_group_commit_conflicts_total');
  for (const s of servers) {
    process.kill(s.pid, 'SIGTERM');
    await s.exited;
  }
  const failed = responses.filter((r) => r.status >= 500);
  return {
    requests,
    statuses: tally(responses.map((r) => r.status)),
    answers500: responses.filter((r) => r.status === 500).length,
    answers5xx: failed.length,
    deadlocks: (await settledDeadlocks(options.databaseUrl)) - before,
    retriedConflicts,
    samples: failed.slice(0, 3).map((r) => `${r.status} ${JSON.stringify(r.body).slice(0, 200)}`),
    ms,
  };
}
