// `ha-failover`: Purse on a highly available PostgreSQL cluster (etcd, three PostgreSQL nodes under
// Patroni with strict synchronous replication, HAProxy in front; test/helpers/ha-cluster.ts, the
// templates in deploy/ha/), two Purse processes whose one DATABASE_URL is HAProxy, retrying
// clients sending wallet, card and mobile-money payments, top-ups, refunds and payouts (the same
// reference and body after any error or timeout), and the primary's whole node killed under load
// (the short profile once; the full profile twice, the dead node rejoining in between).
// Reported: acknowledged, lost (0), duplicated (0), answers 500 (0) with their causes from Purse's
// log, the unavailability window of each kill, the ledger verified on the new primary.
// `ha-failover-negative-control`: the same with asynchronous replication and the primary's WAL
// senders stopped for a few seconds before the kill (the standbys receive nothing more): the new
// primary lacks what was acknowledged meanwhile, so it must report lost > 0.
// Both need patroni, etcd and haproxy (Debian: apt-get install -y patroni etcd-server haproxy).
import { sql } from 'kysely';
import { createPostgresDb, type DbHandle } from '../../src/db/db.ts';
import { destroyHaCluster, findPrimary, type HaClusterState, haToolsMissing, startHaCluster } from '../helpers/ha-cluster.ts';
import { freePort, type SpawnedServer, spawnServer, waitReady } from '../helpers/processes.ts';
import { balanceCheck, checkAcknowledgedOutflows, fundMerchant, outflowBooks, waitOutflowsFinal } from './crash-outflows.ts';
import {
  type Ack,
  type Attempt,
  Cleanups,
  durabilityEnv,
  type Fixture,
  LoadStats,
  recordFailure,
  replayAcknowledged,
  runLoad,
  setUpFixture,
  verifyAfterRecovery,
} from './durability.ts';
import { emptyFigures, type Figures, type Profile, type Scenario, type ScenarioResult } from './figures.ts';
import { haOperations, type KillPlan, type KillRecord, killPrimaries } from './ha-failover-load.ts';
import { createDatabase } from './pg-cluster.ts';

export interface HaPlan extends KillPlan {
  clients: number;
  tailMs: number;
  refundable: number;
}

export const PLANS: Record<Profile, HaPlan> = {
  short: { kills: 1, clients: 12, warmMs: 6_000, tailMs: 5_000, refundable: 9, walSenderPauseMs: 0, rejoin: true },
  full: { kills: 2, clients: 16, warmMs: 8_000, tailMs: 8_000, refundable: 18, walSenderPauseMs: 0, rejoin: true },
};

const OUTFLOW_KINDS = new Set(['refund', 'payout']);
export const round = (ms: number) => Math.round(ms / 100) / 10;

/**
 * What a Purse process logs while it runs, tallied as it comes (the spawned server keeps only the
 * first 256 KiB of its output, which the warnings of thousands of 503s fill): error lines (level
 * ≥ 50, an "unhandled error" is a 500) and failed requests (warnings, the 503s), each as
 * "msg: SQLSTATE message", with the request ids of the first errors.
 */
export interface LogTally {
  errors: Record<string, number>;
  failed: Record<string, number>;
  errorRequests: string[];
}

export function tallyLogs(server: SpawnedServer): LogTally {
  const tally: LogTally = { errors: {}, failed: {}, errorRequests: [] };
  let rest = '';
  const onLine = (line: string) => {
    const level = /"level":(\d+)/.exec(line)?.[1];
    if (!level || Number(level) < 40) return;
    let key = line.slice(0, 160);
    let reqId: string | undefined;
    try {
      const e = JSON.parse(line) as { msg?: string; request_id?: string; err?: { code?: string; message?: string } };
      key = `${e.msg ?? ''}: ${e.err?.code ? `${e.err.code} ` : ''}${(e.err?.message ?? '').slice(0, 120)}`;
      reqId = e.request_id;
    } catch {
      /* not JSON: the raw line */
    }
    const into = Number(level) >= 50 ? tally.errors : tally.failed;
    into[key] = (into[key] ?? 0) + 1;
    if (Number(level) >= 50 && reqId && tally.errorRequests.length < 10) tally.errorRequests.push(`${reqId} ${key}`);
  };
  const onData = (chunk: Buffer) => {
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  };
  server.child.stdout?.on('data', onData);
  server.child.stderr?.on('data', onData);
  return tally;
}

/**
 * The unavailability of each kill, in seconds: from the kill to the end of the first request sent
 * after it that was acknowledged (null: none was).
 */
export function windows(kills: KillRecord[], attempts: Attempt[]): (number | null)[] {
  return kills.map((k) => {
    let first: number | null = null;
    for (const a of attempts)
      if (a.start > k.killedAt && a.status !== null && a.status >= 200 && a.status < 300 && (first === null || a.end < first))
        first = a.end;
    return first === null ? null : round(first - k.killedAt);
  });
}

export interface Running {
  state: HaClusterState;
  servers: SpawnedServer[];
  logs: LogTally[];
  fixture: Fixture;
  refundable: string[];
  databaseUrl: string;
  setUpSeconds: Record<string, number>;
}

/** The cluster, the database `purse` through HAProxy, two Purse processes, the merchant and its funds. */
export async function setUp(cleanups: Cleanups, synchronous: boolean, plan: HaPlan): Promise<Running> {
  const t0 = Date.now();
  const setUpSeconds: Record<string, number> = {};
  const lap = (what: string) => {
    setUpSeconds[what] = round(Date.now() - t0 - Object.values(setUpSeconds).reduce((a, b) => a + b * 1000, 0));
  };
  const state = await startHaCluster({ synchronous, maximumLagOnFailover: synchronous ? 1_048_576 : 1 << 30 });
  cleanups.after(() => destroyHaCluster(state));
  lap('cluster');
  const databaseUrl = await createDatabase(`postgres://postgres@127.0.0.1:${state.haproxy.port}/postgres`, 'purse');
  const servers: SpawnedServer[] = [];
  const logs: LogTally[] = [];
  // Both at once: the second waits for the first's migrations (Kysely's migration lock).
  for (let i = 0; i < 2; i++) {
    const server = spawnServer(cleanups, durabilityEnv(databaseUrl, await freePort()));
    logs.push(tallyLogs(server));
    servers.push(server);
  }
  await Promise.all(servers.map((s) => waitReady(s, 90_000)));
  lap('purse');
  const fixture = await setUpFixture(cleanups, servers[0]!.base, databaseUrl, 4);
  lap('fixture');
  const db = createPostgresDb(databaseUrl, 2);
  try {
    const refundable = await fundMerchant(db, servers[0]!.base, fixture, { count: 4, amount: '5000.00' }, plan.refundable);
    lap('funds');
    return { state, servers, logs, fixture, refundable, databaseUrl, setUpSeconds };
  } finally {
    await db.close();
  }
}

/** The load on both processes (half the clients each) while the primary is killed. */
export async function loadAndKill(r: Running, plan: HaPlan, name: string, stats: LoadStats): Promise<KillRecord[]> {
  let stopping = false;
  let aborted = false;
  const runId = `${name}-${Date.now().toString(36)}`;
  const ops = haOperations(runId, r.fixture.wallets, r.refundable);
  const loads = r.servers.map((server, i) =>
    runLoad({
      base: server.base,
      auth: r.fixture.auth,
      wallets: r.fixture.wallets,
      clients: plan.clients / 2,
      runId,
      stop: () => stopping,
      abort: () => aborted,
      hardDeadline: Date.now() + 600_000,
      stats,
      operation: (client, seq) => ops(client * 2 + i, seq),
    }),
  );
  try {
    const kills = await killPrimaries(r.state, plan);
    await new Promise((resolve) => setTimeout(resolve, plan.tailMs));
    return kills;
  } catch (error) {
    aborted = true;
    throw error;
  } finally {
    stopping = true;
    await Promise.all(loads);
  }
}

/** The clients' records split: charges (payments, top-ups) and outflows (refunds, payouts). */
export function split(stats: LoadStats): { charges: LoadStats; outflows: Ack[] } {
  const charges = Object.assign(new LoadStats(), stats, { acks: stats.acks.filter((a) => !OUTFLOW_KINDS.has(a.op.kind)) });
  return { charges, outflows: stats.acks.filter((a) => OUTFLOW_KINDS.has(a.op.kind)) };
}

/** The new primary, directly (not through HAProxy), and that it is writable. */
export async function openPrimary(r: Running, cleanups: Cleanups): Promise<{ db: DbHandle; node: string; timeline: number }> {
  const primary = await findPrimary(r.state);
  if (!primary) throw new Error('no primary after the kills');
  const db = createPostgresDb(`postgres://postgres@127.0.0.1:${primary.pgPort}/purse`, 4);
  cleanups.after(() => db.close());
  const row = await sql<{ recovery: boolean; timeline: number }>`
    SELECT pg_is_in_recovery() AS recovery, (SELECT timeline_id FROM pg_control_checkpoint()) AS timeline`.execute(db.db);
  if (row.rows[0]!.recovery) throw new Error(`${primary.name} answers /primary but is in recovery`);
  return { db, node: primary.name, timeline: Number(row.rows[0]!.timeline) };
}

export const haFailover: Scenario = {
  name: 'ha-failover',
  // Needs patroni, etcd and haproxy: .ci/run installs them and runs it by name (--only).
  fullOnly: true,
  async run(profile: Profile): Promise<ScenarioResult> {
    const plan = PLANS[profile];
    const figures: Figures = emptyFigures();
    const problems: string[] = [];
    const details: Record<string, unknown> = {};
    const cleanups = new Cleanups();
    try {
      const missing = haToolsMissing();
      if (missing.length > 0) throw new Error(`missing: ${missing.join(', ')} (apt-get install -y patroni etcd-server haproxy)`);
      const started = Date.now();
      const r = await setUp(cleanups, true, plan);
      details.setUpSeconds = { total: round(Date.now() - started), ...r.setUpSeconds };
      const stats = new LoadStats();
      const kills = await loadAndKill(r, plan, 'ha-failover', stats);
      figures.kills = kills.length;
      const primary = await openPrimary(r, cleanups);
      const { charges, outflows } = split(stats);
      const base = r.servers[0]!.base;
      const v = await verifyAfterRecovery({
        db: primary.db,
        base,
        fixture: r.fixture,
        stats: charges,
        settleTimeoutMs: 150_000,
        deliveryTimeoutMs: 60_000,
      });
      const outSettled = await waitOutflowsFinal(primary.db, r.fixture.merchantId, 90_000);
      const outAck = await checkAcknowledgedOutflows(primary.db, outflows);
      const books = await outflowBooks(primary.db, r.fixture.merchantId);
      const outReplay = await replayAcknowledged(base, r.fixture.auth, outflows);
      const balance = await balanceCheck(primary.db, base, r.fixture);

      figures.requests = stats.requests;
      figures.acknowledged = stats.acks.length;
      figures.lost = v.lost + outAck.lost;
      figures.duplicates = v.duplicates + books.duplicateReferences + books.postedTwice.length + books.sentTwice.length + outReplay.otherId;
      figures.unresolved = v.unresolved + outSettled.pending;
      figures.ledgerImbalance = v.ledgerImbalance + (balance.ok ? 0 : 1);
      figures.eventsMissing = v.eventsMissing;
      figures.unexpected5xx = stats.unexpected5xx;
      problems.push(...v.problems);
      if (outReplay.notReplay > 0 || outReplay.failures > 0)
        problems.push(
          `outflow replay after recovery: ${outReplay.notReplay} not a 200 replay, ${outReplay.failures} errors (${outReplay.samples.join('; ')})`,
        );
      if (books.neverSent.length > 0) problems.push(`${books.neverSent.length} outflows holding funds the provider never received`);
      if (!balance.ok) problems.push(`balance: available ${balance.available}, expected ${balance.expected}, reserved ${balance.reserved}`);
      for (const s of r.servers) if (!s.running()) problems.push(`Purse process ${s.pid} exited:\n${s.output().slice(-1500)}`);
      const w = windows(kills, stats.attempts);
      for (const [i, seconds] of w.entries())
        if (seconds === null || seconds > 40) problems.push(`kill ${i + 1}: unavailable ${seconds ?? 'until the end'} s (limit 40)`);
      const ackKinds: Record<string, number> = {};
      for (const a of stats.acks) ackKinds[a.op.kind] = (ackKinds[a.op.kind] ?? 0) + 1;
      Object.assign(details, {
        clients: plan.clients,
        purseProcesses: r.servers.length,
        acknowledgedByKind: ackKinds,
        answers500: stats.byStatus['500'] ?? 0,
        answers503: stats.answers503,
        unavailableSeconds: w,
        kills: kills.map((k) => ({
          ...k,
          promotedSeconds: k.promotedMs === null ? null : round(k.promotedMs),
          killedAt: new Date(k.killedAt).toISOString(),
        })),
        verifiedOn: { node: primary.node, timeline: primary.timeline },
        lostOutflows: outAck.lost,
        lostOutflowSamples: outAck.samples,
        outflowsPendingAfterSettle: outSettled.pending,
        outflowsByStatus: books.byStatus,
        purseLogs: r.logs,
        ...v.details,
      });
    } catch (error) {
      recordFailure(problems, details, error);
    } finally {
      problems.push(...(await cleanups.run()));
    }
    return { name: 'ha-failover', figures, details, problems };
  },
};
