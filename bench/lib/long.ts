// The long run (`npm run bench -- --long`): one load, wallet payments, for minutes, measured in
// back-to-back windows (one load-generator run per window, the server and its connections kept
// across them), each reported with the rows the database holds after it. Throughput must not
// decay as the data grows: the last window is compared with the best one.
import { loadavg } from 'node:os';
import type { LoadResult } from './load-spec.ts';

export interface LongWindow {
  /** 1-based. */
  index: number;
  /** Seconds since the first window started, at this window's end. */
  endS: number;
  requestsPerS: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
  /** Rows per table after the window (PostgreSQL: the statistics system's live rows; embedded: payments answered so far). */
  rows: Record<string, number>;
  /** Sequential scans of the growing tables during the window (PostgreSQL only). */
  seqScans: number | null;
  /** The same, per table that had any. */
  seqScansByTable: Record<string, number>;
  /** ANALYZEs (Purse's and autovacuum's) of Purse's tables so far (PostgreSQL only). */
  analyzes: number | null;
  loadavg1: number;
}

export interface LongVerdict {
  best: LongWindow;
  last: LongWindow;
  /** last / best requests per second. */
  ratio: number;
  held: boolean;
}

/** The last window within 10 % of the best one. */
export const HOLD_RATIO = 0.9;

export interface LongRunOptions {
  windows: number;
  windowS: number;
  /** Runs one window's load (a fresh spec each time: new references). */
  runWindow: (durationS: number) => Promise<LoadResult>;
  /** What the database holds now, and its scan and analyze counters (null where unknown). */
  counters: (
    answered: number,
  ) => Promise<{ rows: Record<string, number>; seqScans: Record<string, number> | null; analyzes: number | null }>;
  log: (text: string) => void;
}

export async function runLongWindows(options: LongRunOptions): Promise<LongWindow[]> {
  const { windows, windowS, runWindow, counters, log } = options;
  const started = Date.now();
  const out: LongWindow[] = [];
  let answered = 0;
  let scansBefore = (await counters(0)).seqScans;
  for (let i = 1; i <= windows; i++) {
    const result = await runWindow(windowS);
    answered += result.total - result.non2xx;
    const now = await counters(answered);
    const byTable =
      now.seqScans === null || scansBefore === null
        ? null
        : Object.fromEntries(
            Object.entries(now.seqScans)
              .map(([t, v]) => [t, v - (scansBefore?.[t] ?? 0)] as const)
              .filter(([, d]) => d > 0),
          );
    const window: LongWindow = {
      index: i,
      endS: Math.round((Date.now() - started) / 1000),
      requestsPerS: result.requestsPerS,
      p50: result.latencyMs.p50,
      p99: result.latencyMs.p99,
      total: result.total,
      non2xx: result.non2xx,
      errors: result.errors,
      rows: now.rows,
      seqScans: byTable === null ? null : Object.values(byTable).reduce((a, b) => a + b, 0),
      seqScansByTable: byTable ?? {},
      analyzes: now.analyzes,
      loadavg1: loadavg()[0]!,
    };
    scansBefore = now.seqScans;
    out.push(window);
    log(
      `long window ${i}/${windows}: ${Math.round(window.requestsPerS)}/s, p99 ${window.p99.toFixed(1)} ms, rows ${JSON.stringify(window.rows)}` +
        `${window.seqScans === null ? '' : `, seq scans ${JSON.stringify(window.seqScansByTable)}`}, load ${window.loadavg1.toFixed(1)}`,
    );
  }
  return out;
}

export function longVerdict(windows: LongWindow[]): LongVerdict {
  const best = windows.reduce((a, b) => (b.requestsPerS > a.requestsPerS ? b : a));
  const last = windows[windows.length - 1]!;
  const ratio = best.requestsPerS > 0 ? last.requestsPerS / best.requestsPerS : 0;
  return { best, last, ratio, held: ratio >= HOLD_RATIO };
}

const n = (x: number) => Math.round(x).toLocaleString('en-US');

/** The windows as a Markdown table, with the verdict under it. */
export function longMarkdown(title: string, context: string[], windows: LongWindow[]): string {
  const tables = Object.keys(windows[0]?.rows ?? {});
  const head = [
    'window',
    'end (s)',
    'payments/s',
    'p50 (ms)',
    'p99 (ms)',
    'non-2xx',
    'errors',
    ...tables,
    'seq scans',
    'analyzes',
    'load avg',
  ];
  const lines = [`| ${head.join(' | ')} |`, `| ${head.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`];
  for (const w of windows) {
    lines.push(
      `| ${[
        w.index,
        w.endS,
        n(w.requestsPerS),
        w.p50.toFixed(1),
        w.p99.toFixed(1),
        w.non2xx,
        w.errors,
        ...tables.map((t) => n(w.rows[t] ?? 0)),
        w.seqScans ?? '—',
        w.analyzes ?? '—',
        w.loadavg1.toFixed(1),
      ].join(' | ')} |`,
    );
  }
  const v = longVerdict(windows);
  const verdict = `${v.held ? 'HELD' : 'DECAYED'}: the last window ${n(v.last.requestsPerS)}/s is ${(v.ratio * 100).toFixed(0)} % of the best (window ${v.best.index}, ${n(v.best.requestsPerS)}/s); the target is ≥ ${HOLD_RATIO * 100} %.`;
  return [`## ${title}`, '', ...context.map((c) => `- ${c}`), '', ...lines, '', verdict, ''].join('\n');
}
