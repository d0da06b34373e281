// `crash`: kill -9 of the server under load, again and again, with clients retrying the same
// reference and body until a 2xx (docs/money-safety.md rule 1).
// A fresh database on the machine's PostgreSQL; the server restarts on it, on the same port.
// After the load: nothing acknowledged is lost, one object per reference, nothing left
// pending, the ledger balanced, every event of the database delivered to the receiver.
//
// `crash-negative-control`: the same on a database whose unique index on (merchant, kind,
// reference) no longer decides (test/negative-controls/duplicate-references.ts: a trigger gives a
// taken reference a new name first); the server is unchanged. A retry after a lost answer, and
// the replay of every acknowledged request after recovery, then make second objects: the
// duplicates figure, computed from the clients' own records, must see them (proof that it can
// be non-zero).

import { freePort, type SpawnedServer, spawnServer, waitReady } from '../helpers/processes.ts';
import { breakReferenceIndex } from '../negative-controls/duplicate-references.ts';
import {
  Cleanups,
  durabilityEnv,
  errorLogLines,
  killsUnderLoad,
  LoadStats,
  recordFailure,
  recoveryFigures,
  runLoad,
  scenarioDatabase,
  setUpFixture,
  tallyLines,
  verifyAfterRecovery,
} from './durability.ts';
import { emptyFigures, type Figures, type Profile, type Scenario, type ScenarioResult } from './figures.ts';

interface Plan {
  kills: number;
  clients: number;
  /** The pause between a server being ready and its kill (ms, min–max). */
  pauseMs: readonly [number, number];
}

const PROFILES: Record<Profile, Plan> = {
  short: { kills: 4, clients: 16, pauseMs: [3_000, 6_000] },
  full: { kills: 12, clients: 24, pauseMs: [3_000, 8_000] },
};
/** The control needs a few lost answers and the replay, not a long run. */
const CONTROL_PROFILES: Record<Profile, Plan> = {
  short: { kills: 2, clients: 16, pauseMs: [2_000, 4_000] },
  full: { kills: 4, clients: 16, pauseMs: [2_000, 4_000] },
};

/** The card a retry could not resume is failed processing_error after 120 s; everything else settles sooner. */
const SETTLE_TIMEOUT_MS = 150_000;
const DELIVERY_TIMEOUT_MS = 60_000;

function crashScenario(name: string, negativeControl: boolean): Scenario {
  return {
    name,
    async run(profile: Profile): Promise<ScenarioResult> {
      const p = (negativeControl ? CONTROL_PROFILES : PROFILES)[profile];
      const figures: Figures = emptyFigures();
      const problems: string[] = [];
      const details: Record<string, unknown> = {};
      const cleanups = new Cleanups();
      const dbName = `purse_faults_${Date.now().toString(36)}_${process.pid}`;
      const errorLines: string[] = [];
      try {
        const { databaseUrl, db } = await scenarioDatabase(cleanups, dbName);
        const port = await freePort();
        const env = durabilityEnv(databaseUrl, port);
        const spawn = () => spawnServer(cleanups, env);
        let server: SpawnedServer = spawn();
        await waitReady(server, 60_000);
        // The first server has run the migrations; the control breaks the index behind it.
        if (negativeControl) await breakReferenceIndex(db.db);
        const base = server.base;
        const fixture = await setUpFixture(cleanups, base, databaseUrl, 8);

        const stats = new LoadStats();
        const killed = await killsUnderLoad({
          server,
          spawn,
          plan: p,
          figures,
          errorLines,
          startLoad: (control) =>
            runLoad({
              base,
              auth: fixture.auth,
              wallets: fixture.wallets,
              clients: p.clients,
              runId: `crash-${Date.now().toString(36)}`,
              hardDeadline: Date.now() + 600_000,
              stats,
              ...control,
            }),
        });
        server = killed.server;
        const { restartMs, loadSeconds } = killed;

        const v = await verifyAfterRecovery({
          db,
          base,
          fixture,
          stats,
          settleTimeoutMs: negativeControl ? 30_000 : SETTLE_TIMEOUT_MS,
          deliveryTimeoutMs: negativeControl ? 20_000 : DELIVERY_TIMEOUT_MS,
        });
        if (!server.running()) problems.push(`the last server exited:\n${server.output().slice(-2000)}`);
        errorLines.push(...errorLogLines(server.output()));
        recoveryFigures(figures, stats, v);
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
        recordFailure(problems, details, error);
      } finally {
        problems.push(...(await cleanups.run()));
      }
      if (!negativeControl) return { name, figures, details, problems };
      // The control is built to duplicate: what it must show is a non-zero count, and a run
      // that broke before counting anything proves nothing.
      const observed = `duplicates = ${figures.duplicates} (${JSON.stringify({
        extraObjectsForAcknowledged: details.extraObjectsForAcknowledged,
        replayOtherId: details.replayOtherId,
      })})`;
      return {
        name,
        figures,
        details,
        problems: problems.filter((x) => x.startsWith('scenario failed') || x.includes('no request was acknowledged')),
        negativeControl: { expected: 'duplicates > 0', observed, failedAsExpected: figures.duplicates > 0 },
      };
    },
  };
}

export const crash = crashScenario('crash', false);
export const crashNegativeControl = crashScenario('crash-negative-control', true);
