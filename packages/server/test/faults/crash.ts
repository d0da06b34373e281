// `crash`: kill -9 of the server under load, again and again, with clients retrying the same
// reference and body until a 2xx (docs/money-safety.md rule 1).
// A fresh database on the machine's PostgreSQL; the server restarts on it, on the same port.
// After the load: nothing acknowledged is lost, one object per reference, nothing left
// pending, the ledger balanced, every event of the database delivered to the receiver.

import { freePort, type SpawnedServer, sleep, spawnServer, waitReady } from '../helpers/processes.ts';
import {
  ADMIN_DATABASE_URL,
  Cleanups,
  durabilityEnv,
  errorLogLines,
  LoadStats,
  openDb,
  runLoad,
  setUpFixture,
  tallyLines,
  verifyAfterRecovery,
} from './durability.ts';
import { emptyFigures, type Figures, type Profile, type Scenario, type ScenarioResult } from './figures.ts';
import { createDatabase, dropDatabase } from './pg-cluster.ts';

const PROFILES = {
  // kills, clients, pause between a server being ready and its kill (ms, min–max)
  short: { kills: 4, clients: 16, pauseMs: [3_000, 6_000] },
  full: { kills: 12, clients: 24, pauseMs: [3_000, 8_000] },
} as const;

/** The card a retry could not resume is failed processing_error after 120 s; everything else settles sooner. */
const SETTLE_TIMEOUT_MS = 150_000;
const DELIVERY_TIMEOUT_MS = 60_000;

export const crash: Scenario = {
  name: 'crash',
  async run(profile: Profile): Promise<ScenarioResult> {
    const p = PROFILES[profile];
    const figures: Figures = emptyFigures();
    const problems: string[] = [];
    const details: Record<string, unknown> = {};
    const cleanups = new Cleanups();
    const dbName = `purse_faults_${Date.now().toString(36)}_${process.pid}`;
    const errorLines: string[] = [];
    try {
      const databaseUrl = await createDatabase(ADMIN_DATABASE_URL, dbName);
      cleanups.after(() => dropDatabase(ADMIN_DATABASE_URL, dbName));
      const db = openDb(databaseUrl);
      cleanups.after(() => db.close());
      const port = await freePort();
      const spawn = () => spawnServer(cleanups, durabilityEnv(databaseUrl, port));
      let server: SpawnedServer = spawn();
      await waitReady(server, 60_000);
      const base = server.base;
      const fixture = await setUpFixture(cleanups, base, databaseUrl, 8);

      const stats = new LoadStats();
      let stopping = false;
      let aborted = false;
      const loadStarted = Date.now();
      const load = runLoad({
        base,
        auth: fixture.auth,
        wallets: fixture.wallets,
        clients: p.clients,
        runId: `crash-${Date.now().toString(36)}`,
        stop: () => stopping,
        abort: () => aborted,
        hardDeadline: Date.now() + 600_000,
        stats,
      });

      const restartMs: number[] = [];
      try {
        for (let k = 0; k < p.kills; k++) {
          await sleep(p.pauseMs[0] + Math.random() * (p.pauseMs[1] - p.pauseMs[0]));
          if (!server.running()) throw new Error(`server ${server.pid} died on its own:\n${server.output().slice(-2000)}`);
          process.kill(server.pid, 'SIGKILL');
          await server.exited;
          figures.kills++;
          errorLines.push(...errorLogLines(server.output()));
          const killedAt = Date.now();
          await sleep(Math.random() * 500);
          server = spawn();
          await waitReady(server, 60_000);
          restartMs.push(Date.now() - killedAt);
        }
        // A last stretch under load on the final server, so its recovery work overlaps new traffic.
        await sleep(p.pauseMs[0]);
      } catch (error) {
        aborted = true;
        throw error;
      } finally {
        stopping = true;
        await load;
      }
      const loadSeconds = (Date.now() - loadStarted) / 1000;

      const v = await verifyAfterRecovery({
        db,
        base,
        fixture,
        stats,
        settleTimeoutMs: SETTLE_TIMEOUT_MS,
        deliveryTimeoutMs: DELIVERY_TIMEOUT_MS,
      });
      if (!server.running()) problems.push(`the last server exited:\n${server.output().slice(-2000)}`);
      errorLines.push(...errorLogLines(server.output()));
      figures.requests = stats.requests;
      figures.acknowledged = stats.acks.length;
      figures.lost = v.lost;
      figures.duplicates = v.duplicates;
      figures.unresolved = v.unresolved;
      figures.ledgerImbalance = v.ledgerImbalance;
      figures.eventsMissing = v.eventsMissing;
      figures.unexpected5xx = stats.unexpected5xx;
      problems.push(...v.problems);
      Object.assign(details, {
        loadSeconds: Math.round(loadSeconds * 10) / 10,
        clients: p.clients,
        restartSecondsMax: Math.round(Math.max(...restartMs) / 100) / 10,
        answers503: stats.answers503,
        serverErrorLogLines: errorLines.length,
        ...(errorLines.length > 0 ? { serverErrorLogs: tallyLines(errorLines) } : {}),
        ...v.details,
      });
    } catch (error) {
      problems.push(`scenario failed: ${error instanceof Error ? error.message.split('\n').slice(0, 3).join(' | ') : String(error)}`);
      details.error = (error instanceof Error ? (error.stack ?? error.message) : String(error)).slice(0, 4000);
    } finally {
      problems.push(...(await cleanups.run()));
    }
    return { name: 'crash', figures, details, problems };
  },
};
