// Rendering of the results: the Markdown table, the ratios and the issue's targets.

export interface Row {
  scenario: string;
  /** purse, baseline, group-commit, group-commit-minimal, fastify-constant, or `pgbench -c N`. */
  target: string;
  requestsPerS: number | null;
  latencyMs: { p50: number; p95: number; p99: number; max: number; mean: number } | null;
  total: number | null;
  non2xx: number | null;
  errors: number | null;
  timeouts?: number | null;
  statusCodes?: Record<string, number>;
  serverCpuPct: number | null;
  /** Server CPU milliseconds per request (server CPU seconds / requests): rows whose server the bench started. */
  serverCpuMsPerReq: number | null;
  dbCpuPct: number | null;
  loadgenCpuPct: number | null;
  /** Machine busy time not spent in server, database or load generator (other work on the box). */
  otherCpuPct: number | null;
  /** The card acquirer fake's CPU (card-acquirer only): measured by pid, not counted in other CPU %. */
  fakeCpuPct?: number | null;
  durationS: number | null;
  /** Why the row has no numbers, or anything worth knowing about it. */
  note?: string;
}

export interface Ratio {
  name: string;
  value: number | null;
  note?: string;
}

export interface Target {
  name: string;
  met: boolean | null;
  detail: string;
}

const dash = '—';
/** Other CPU above this (% of one core) marks a row as disturbed by other work on the machine. */
export const DISTURBED_OTHER_CPU_PCT = 20;
const int = (n: number | null | undefined) =>
  n === null || n === undefined || Number.isNaN(n) ? dash : Math.round(n).toLocaleString('en-US');
const ms = (n: number | null | undefined) =>
  n === null || n === undefined || Number.isNaN(n) ? dash : n < 10 ? n.toFixed(2) : n.toFixed(1);

const cpuMs = (n: number | null | undefined) =>
  n === null || n === undefined || Number.isNaN(n) ? dash : n < 1 ? n.toFixed(3) : n.toFixed(2);

export function ratioLine(ratio: Ratio): string {
  return `${ratio.name}: ${ratio.value === null ? 'n/a' : `${ratio.value.toFixed(2)}×`}${ratio.note ? ` (${ratio.note})` : ''}`;
}

export function markdown(input: {
  title: string;
  context: string[];
  rows: Row[];
  ratios: Ratio[];
  targets: Target[];
  outcomes: string[];
}): string {
  const lines: string[] = [];
  lines.push(`## ${input.title}`, '');
  for (const c of input.context) lines.push(`- ${c}`);
  lines.push('');
  lines.push(
    '| scenario | target | requests/s | p50 | p95 | p99 | max (ms) | non-2xx | errors | server CPU % | server CPU ms/req | db CPU % | loadgen CPU % | other CPU % |',
  );
  lines.push('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of input.rows) {
    if (r.requestsPerS === null) {
      lines.push(`| ${r.scenario} | ${r.target} | ${r.note ?? dash} | | | | | | | | | | | |`);
      continue;
    }
    const l = r.latencyMs;
    lines.push(
      `| ${r.scenario} | ${r.target} | ${int(r.requestsPerS)}${(r.otherCpuPct ?? 0) > DISTURBED_OTHER_CPU_PCT ? ' ⚠' : ''} | ${ms(l?.p50)} | ${ms(l?.p95)} | ${ms(l?.p99)} | ${ms(l?.max)} | ${int(r.non2xx)} | ${int(r.errors)} | ${int(r.serverCpuPct)} | ${cpuMs(r.serverCpuMsPerReq)} | ${int(r.dbCpuPct)} | ${int(r.loadgenCpuPct)} | ${int(r.otherCpuPct)} |`,
    );
  }
  lines.push('');
  if (input.rows.some((r) => (r.otherCpuPct ?? 0) > DISTURBED_OTHER_CPU_PCT)) {
    lines.push(
      `⚠ other processes used more than ${DISTURBED_OTHER_CPU_PCT} % of a core during this row: its numbers (and ratios using it) are disturbed; rerun on a quiet machine.`,
      '',
    );
  }
  for (const r of input.ratios) lines.push(`${ratioLine(r)}  `);
  const notes = input.rows.filter((r) => r.note && r.requestsPerS !== null);
  if (notes.length) {
    lines.push('', 'Notes:');
    for (const r of notes) lines.push(`- ${r.scenario} (${r.target}): ${r.note}`);
  }
  if (input.targets.length) {
    lines.push('', 'Targets (issue):');
    for (const t of input.targets) lines.push(`- ${t.met === null ? 'n/a' : t.met ? 'MET' : 'NOT MET'}: ${t.name} — ${t.detail}`);
  }
  if (input.outcomes.length) {
    lines.push('', 'Stored payments and outflows by scenario (reference prefix, method or kind, status: count):');
    for (const o of input.outcomes) lines.push(`- ${o}`);
  }
  lines.push('');
  return lines.join('\n');
}
