// `ha-failover-negative-control`: the `ha-failover` run (ha-failover.ts) with what makes a failover
// lose acknowledged payments: asynchronous replication (no synchronous_mode, a standby promoted
// however far behind it is) and, a few seconds before the kill, the primary's WAL senders stopped
// (SIGSTOP), so the standbys receive nothing more while Purse keeps acknowledging. The new
// primary must lack some of those acknowledgements: lost > 0, or the checks cannot see a loss.

import { checkAcknowledgedOutflows } from './crash-outflows.ts';
import { Cleanups, checkAcknowledged, LoadStats, recordFailure } from './durability.ts';
import { emptyFigures, type Figures, type Profile, type Scenario, type ScenarioResult } from './figures.ts';
import { loadAndKill, openPrimary, PLANS, round, setUp, split, windows } from './ha-failover.ts';

const EXPECTED = 'acknowledged writes lost with asynchronous replication and WAL senders stopped before the kill';

export const haFailoverNegativeControl: Scenario = {
  name: 'ha-failover-negative-control',
  fullOnly: true,
  async run(profile: Profile): Promise<ScenarioResult> {
    // One kill in either profile; no rejoin (the dead primary holds what the others lack).
    const plan = { ...PLANS[profile], kills: 1, rejoin: false, walSenderPauseMs: 3_000 };
    const figures: Figures = emptyFigures();
    const problems: string[] = [];
    const details: Record<string, unknown> = {};
    const cleanups = new Cleanups();
    let observed = 'the scenario did not complete';
    let lost = 0;
    try {
      const r = await setUp(cleanups, false, plan);
      const stats = new LoadStats();
      const kills = await loadAndKill(r, plan, 'ha-failover-nc', stats);
      figures.kills = kills.length;
      const primary = await openPrimary(r, cleanups);
      const { charges, outflows } = split(stats);
      const chargeCheck = await checkAcknowledged(primary.db, charges.acks);
      const outflowCheck = await checkAcknowledgedOutflows(primary.db, outflows);
      lost = chargeCheck.lost + outflowCheck.lost;
      const pausedAt = kills[0] ? kills[0].killedAt - plan.walSenderPauseMs : 0;
      const ackedWhilePaused = stats.acks.filter((a) => kills[0] && a.at >= pausedAt && a.at <= kills[0].killedAt).length;
      figures.requests = stats.requests;
      figures.acknowledged = stats.acks.length;
      figures.lost = lost;
      figures.unexpected5xx = stats.unexpected5xx;
      observed = `lost=${lost} of ${ackedWhilePaused} acknowledged while the WAL senders were stopped`;
      Object.assign(details, {
        kills: kills.map((k) => ({ ...k, killedAt: new Date(k.killedAt).toISOString() })),
        unavailableSeconds: windows(kills, stats.attempts),
        walSenderPauseSeconds: round(plan.walSenderPauseMs),
        ackedWhilePaused,
        lostCharges: chargeCheck.lost,
        lostOutflows: outflowCheck.lost,
        lostSamples: [...chargeCheck.samples, ...outflowCheck.samples].slice(0, 5),
        verifiedOn: { node: primary.node, timeline: primary.timeline },
        answers500: stats.byStatus['500'] ?? 0,
        byStatus: stats.byStatus,
        purseLogs: r.logs,
      });
    } catch (error) {
      recordFailure(problems, details, error);
    } finally {
      problems.push(...(await cleanups.run()));
    }
    // Its own breakage is reported in the details: the verdict is whether it lost acknowledged writes.
    if (problems.length > 0) details.problems = problems;
    return {
      name: 'ha-failover-negative-control',
      figures,
      details,
      problems: [],
      negativeControl: { expected: EXPECTED, observed, failedAsExpected: lost > 0 },
    };
  },
};
