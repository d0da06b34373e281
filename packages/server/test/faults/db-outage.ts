// `db-outage`: PostgreSQL stopped with `pg_ctl stop -m immediate` under load, on a private
// cluster this scenario creates (fsync on, synchronous_commit on). Meanwhile the server stays
// up and answers 503 with Retry-After (no other 5xx, no request held past 30 s); when the
// cluster is back the same server process recovers by itself (readyz 200), and afterwards
// nothing acknowledged is lost, one object per reference, the ledger balanced, every event
// delivered. The negative control (db-outage-negative-control.ts) runs the same with
// synchronous_commit off and must see acknowledged writes lost.

import { freePort, type SpawnedServer, sleep, spawnServer, waitReady } from '../helpers/processes.ts';
import {
  type Attempt,
  Cleanups,
  durabilityEnv,
  errorLogLines,
  LoadStats,
  openDb,
  recordFailure,
  recoveryFigures,
  runLoad,
  setUpFixture,
  tallyLines,
  verifyAfterRecovery,
} from './durability.ts';
import { emptyFigures, type Figures, type Profile, type Scenario, type ScenarioResult } from './figures.ts';
import { createDatabase, createPgCluster, type PgCluster } from './pg-cluster.ts';

export interface OutagePlan {
  outages: number;
  clients: number;
  /** Load before each stop (ms). */
  warmMs: number;
  outageMs: number;
  /** Load after the last recovery (ms). */
  tailMs: number;
  /**
   * The WAL writer is paused this long before each stop (0: not paused), so what is durable is
   * only what each commit flushed itself: the same for both scenarios, only synchronous_commit differs.
   */
  walWriterPauseMs: number;
}

const PLANS: Record<Profile, OutagePlan> = {
  short: { outages: 1, clients: 16, warmMs: 8_000, outageMs: 15_000, tailMs: 8_000, walWriterPauseMs: 3_000 },
  full: { outages: 3, clients: 24, warmMs: 8_000, outageMs: 30_000, tailMs: 8_000, walWriterPauseMs: 3_000 },
};

/** A request answered later than this during an outage counts as hanging. */
const HANG_MS = 30_000;

export interface OutageOptions {
  name: string;
  /** postgresql.conf settings of the private cluster. */
  settings: Record<string, string>;
  plan: (profile: Profile) => OutagePlan;
  settleTimeoutMs: number;
  deliveryTimeoutMs: number;
  /** The negative control: the checks are reported, the outage's own rules are details only. */
  negativeControl: boolean;
}

interface OutageWindow {
  stopAt: number;
  startedAt: number;
  readyAt: number;
}

async function readyzStatus(base: string): Promise<number | null> {
  try {
    const res = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(HANG_MS) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return null;
  }
}

/** One outage: stop, hold it (probing readyz), start, wait until the same server is ready again. */
async function outage(cluster: PgCluster, server: SpawnedServer, plan: OutagePlan, probes: Record<string, number>): Promise<OutageWindow> {
  if (plan.walWriterPauseMs > 0) {
    cluster.pauseWalWriter();
    await sleep(plan.walWriterPauseMs);
  }
  const outageMs = plan.outageMs;
  const stopAt = Date.now();
  await cluster.stopImmediate();
  while (Date.now() - stopAt < outageMs) {
    const status = await readyzStatus(server.base);
    probes[String(status ?? 'conn')] = (probes[String(status ?? 'conn')] ?? 0) + 1;
    await sleep(500);
  }
  const startedAt = Date.now();
  await cluster.start();
  const deadline = Date.now() + 60_000;
  for (;;) {
    if ((await readyzStatus(server.base)) === 200) break;
    if (!server.running() || Date.now() > deadline)
      throw new Error(
        `the server did not recover after the database came back (running: ${server.running()})\n${server.output().slice(-3000)}`,
      );
    await sleep(100);
  }
  return { stopAt, startedAt, readyAt: Date.now() };
}

function during(a: Attempt, w: OutageWindow): boolean {
  return a.start < w.startedAt && a.end > w.stopAt;
}

export function outageScenario(o: OutageOptions): Scenario {
  return {
    name: o.name,
    async run(profile: Profile): Promise<ScenarioResult> {
      const plan = o.plan(profile);
      const figures: Figures = emptyFigures();
      const problems: string[] = [];
      const details: Record<string, unknown> = {};
      const cleanups = new Cleanups();
      let result: ScenarioResult | null = null;
      try {
        const cluster = await createPgCluster(o.settings);
        cleanups.after(() => cluster.destroy());
        const databaseUrl = await createDatabase(cluster.url(), 'purse');
        const db = openDb(databaseUrl);
        cleanups.after(() => db.close());
        const port = await freePort();
        const server = spawnServer(cleanups, durabilityEnv(databaseUrl, port));
        await waitReady(server, 60_000);
        const fixture = await setUpFixture(cleanups, server.base, databaseUrl, 8);

        const stats = new LoadStats();
        let stopping = false;
        let aborted = false;
        const load = runLoad({
          base: server.base,
          auth: fixture.auth,
          wallets: fixture.wallets,
          clients: plan.clients,
          runId: `${o.name}-${Date.now().toString(36)}`,
          stop: () => stopping,
          abort: () => aborted,
          hardDeadline: Date.now() + 600_000,
          stats,
        });
        const windows: OutageWindow[] = [];
        const readyzProbes: Record<string, number> = {};
        try {
          for (let i = 0; i < plan.outages; i++) {
            await sleep(plan.warmMs);
            windows.push(await outage(cluster, server, plan, readyzProbes));
            figures.kills++;
          }
          await sleep(plan.tailMs);
        } catch (error) {
          aborted = true;
          throw error;
        } finally {
          stopping = true;
          await load;
        }

        // The outage's own rules: the same process answered throughout, 503 + Retry-After, no hang.
        const inOutage = stats.attempts.filter((a) => windows.some((w) => during(a, w)));
        const answers503 = inOutage.filter((a) => a.status === 503).length;
        const maxLatency = Math.max(0, ...inOutage.map((a) => a.end - a.start));
        const noAnswer = inOutage.filter((a) => a.status === null).length;
        const outageRules: string[] = [];
        if (!server.running()) outageRules.push(`the server exited during the run:\n${server.output().slice(-2000)}`);
        if (answers503 === 0) outageRules.push('no 503 answered during the outage');
        if (maxLatency > HANG_MS) outageRules.push(`a request took ${maxLatency} ms during the outage (limit ${HANG_MS})`);
        if (noAnswer > 0)
          outageRules.push(`${noAnswer} requests got no HTTP answer during the outage (connection error or client timeout)`);
        const other = inOutage.filter((a) => a.status !== null && a.status !== 503 && (a.status < 200 || a.status >= 300));
        if (other.length > 0)
          outageRules.push(
            `${other.length} answers during the outage other than 503 or 2xx: ${JSON.stringify([...new Set(other.map((a) => a.status))])}`,
          );
        const probeOther = Object.entries(readyzProbes).filter(([s]) => s !== '503');
        if (probeOther.length > 0) outageRules.push(`readyz answered other than 503 during the outage: ${JSON.stringify(readyzProbes)}`);

        const v = await verifyAfterRecovery({
          db,
          base: server.base,
          fixture,
          stats,
          settleTimeoutMs: o.settleTimeoutMs,
          deliveryTimeoutMs: o.deliveryTimeoutMs,
        });
        const errorLines = errorLogLines(server.output());
        recoveryFigures(figures, stats, v);
        const round = (ms: number) => Math.round(ms / 100) / 10;
        Object.assign(details, {
          outages: windows.length,
          outageSeconds: round(windows.reduce((s, w) => s + (w.startedAt - w.stopAt), 0)),
          answers503,
          answers503Total: stats.answers503,
          maxLatencyMsDuringOutage: maxLatency,
          recoverySeconds: round(Math.max(0, ...windows.map((w) => w.readyAt - w.startedAt))),
          requestsDuringOutage: inOutage.length,
          readyzDuringOutage: readyzProbes,
          sameServerProcess: server.running() ? server.pid : null,
          clients: plan.clients,
          settings: o.settings,
          walWriterPausedMsBeforeEachStop: plan.walWriterPauseMs,
          serverErrorLogLines: errorLines.length,
          ...(errorLines.length > 0 ? { serverErrorLogs: tallyLines(errorLines) } : {}),
          ...v.details,
        });
        if (o.negativeControl) {
          if (outageRules.length > 0) details.outageRules = outageRules;
          if (v.problems.length > 0) details.checkProblems = v.problems;
          result = {
            name: o.name,
            figures,
            details,
            problems,
            negativeControl: {
              expected: 'acknowledged writes lost with synchronous_commit=off',
              observed: `lost=${v.lost}`,
              failedAsExpected: v.lost > 0,
            },
          };
        } else {
          problems.push(...outageRules, ...v.problems);
        }
      } catch (error) {
        recordFailure(problems, details, error);
      } finally {
        problems.push(...(await cleanups.run()));
      }
      if (result) return result;
      return {
        name: o.name,
        figures,
        details,
        problems,
        ...(o.negativeControl
          ? {
              negativeControl: {
                expected: 'acknowledged writes lost with synchronous_commit=off',
                observed: 'the scenario did not complete',
                failedAsExpected: false,
              },
            }
          : {}),
      };
    },
  };
}

export const dbOutage: Scenario = outageScenario({
  name: 'db-outage',
  settings: { fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' },
  plan: (profile) => PLANS[profile],
  // A card whose first attempt died before the provider call is failed after 120 s; the rest settles sooner.
  settleTimeoutMs: 150_000,
  deliveryTimeoutMs: 60_000,
  negativeControl: false,
});
