// npm run test:faults [-- --profile full] [--only name,name]  (scenarios marked fullOnly run in the full profile or by --only)
// Runs the fault and security scenarios one after another against real server processes on
// 127.0.0.1 and real PostgreSQL, writes .tmp/faults-report.json (--only: faults-report-<names>.json) and prints a summary table.
// Exit 1 when a must-be-zero figure is not zero, a negative control did not fail, or a scenario broke.
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { emptyFigures, type Figures, MUST_BE_ZERO, type Profile, type Scenario, type ScenarioResult } from './figures.ts';
import { SCENARIOS } from './scenarios.ts';

const { values } = parseArgs({ options: { profile: { type: 'string', default: 'short' }, only: { type: 'string' } } });
const profile = values.profile as Profile;
if (profile !== 'short' && profile !== 'full') throw new Error('--profile must be short or full');
const only = values.only ? new Set(values.only.split(',')) : null;

async function runOne(scenario: Scenario): Promise<ScenarioResult> {
  const started = Date.now();
  process.stdout.write(`\n== ${scenario.name} (${profile})\n`);
  try {
    const result = await scenario.run(profile);
    result.details.seconds = Math.round((Date.now() - started) / 100) / 10;
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return result;
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stdout.write(`scenario crashed: ${message}\n`);
    return {
      name: scenario.name,
      figures: emptyFigures(),
      details: { seconds: (Date.now() - started) / 1000 },
      problems: [`crashed: ${message.split('\n')[0]}`],
    };
  }
}

function table(results: ScenarioResult[], total: Figures): string {
  const keys = Object.keys(total) as (keyof Figures)[];
  const header = `| scenario | ${keys.join(' | ')} | verdict |`;
  const rule = `|---|${keys.map(() => '---:').join('|')}|---|`;
  const row = (name: string, f: Figures, verdict: string) => `| ${name} | ${keys.map((k) => f[k]).join(' | ')} | ${verdict} |`;
  const verdictOf = (r: ScenarioResult) =>
    r.problems.length > 0
      ? `FAIL: ${r.problems.join('; ')}`
      : r.negativeControl
        ? r.negativeControl.failedAsExpected
          ? 'negative control failed as expected'
          : 'NEGATIVE CONTROL DID NOT FAIL'
        : 'ok';
  return [header, rule, ...results.map((r) => row(r.name, r.figures, verdictOf(r))), row('**total**', total, '')].join('\n');
}

const results: ScenarioResult[] = [];
const selected = (s: Scenario) => (only ? only.has(s.name) : profile === 'full' || !s.fullOnly);
for (const scenario of SCENARIOS) if (selected(scenario)) results.push(await runOne(scenario));

// Negative controls are built to lose or leak: their figures are reported, not summed.
const total = emptyFigures();
for (const r of results) if (!r.negativeControl) for (const k of Object.keys(total) as (keyof Figures)[]) total[k] += r.figures[k];

const failures: string[] = [];
for (const r of results) {
  for (const p of r.problems) failures.push(`${r.name}: ${p}`);
  if (r.negativeControl && !r.negativeControl.failedAsExpected)
    failures.push(`${r.name}: negative control did not fail (${r.negativeControl.observed})`);
  if (!r.negativeControl) for (const k of MUST_BE_ZERO) if (r.figures[k] !== 0) failures.push(`${r.name}: ${k} = ${r.figures[k]}`);
}

const report = { profile, finishedAt: new Date().toISOString(), total, results, failures };
// A run of chosen scenarios (--only) writes a report of its own: it never replaces the profile's.
const reportName = only ? `faults-report-${[...only].sort().join('+')}.json` : 'faults-report.json';
mkdirSync(new URL('../../.tmp/', import.meta.url), { recursive: true });
writeFileSync(new URL(`../../.tmp/${reportName}`, import.meta.url), JSON.stringify(report, null, 2));
process.stdout.write(`\n${table(results, total)}\n\nreport: packages/server/.tmp/${reportName}\n`);
const failedScenarios = new Set(failures.map((f) => f.split(':')[0]));
process.stdout.write(`\nfaults: ${results.length - failedScenarios.size} passed, ${failedScenarios.size} failed\n`);
if (failures.length > 0) {
  process.stdout.write(`\nFAILED:\n${failures.map((f) => `- ${f}`).join('\n')}\n`);
  process.exit(1);
}
