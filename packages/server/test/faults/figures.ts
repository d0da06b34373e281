/**
 * What every fault scenario reports. The runner sums them into one JSON report and table; a
 * "must be zero" figure above zero fails the run, and each negative control must show loss.
 */
export interface Figures {
  kills: number;
  requests: number;
  acknowledged: number;
  lost: number;
  duplicates: number;
  unresolved: number;
  /** Ledger transactions that do not sum to zero, plus wallets whose balance differs from their entries. */
  ledgerImbalance: number;
  eventsMissing: number;
  probes: number;
  leaks: number;
  forgedTokensAccepted: number;
  /** 5xx answers other than the 503s a database outage is allowed. */
  unexpected5xx: number;
}

export const MUST_BE_ZERO: (keyof Figures)[] = [
  'lost',
  'duplicates',
  'unresolved',
  'ledgerImbalance',
  'eventsMissing',
  'leaks',
  'forgedTokensAccepted',
  'unexpected5xx',
];

export function emptyFigures(): Figures {
  return {
    kills: 0,
    requests: 0,
    acknowledged: 0,
    lost: 0,
    duplicates: 0,
    unresolved: 0,
    ledgerImbalance: 0,
    eventsMissing: 0,
    probes: 0,
    leaks: 0,
    forgedTokensAccepted: 0,
    unexpected5xx: 0,
  };
}

export type Profile = 'short' | 'full';

export interface ScenarioResult {
  name: string;
  figures: Figures;
  /** Scenario-specific numbers worth printing (latencies, counts, durations). */
  details: Record<string, unknown>;
  /** A negative control: passes only when it shows the failure it is built to show. */
  negativeControl?: { expected: string; observed: string; failedAsExpected: boolean };
  /** Anything wrong that the figures do not capture; the run fails if non-empty. */
  problems: string[];
}

export interface Scenario {
  name: string;
  /** Run only in the full profile (too long for the short one CI runs); `--only` still runs it in either. */
  fullOnly?: boolean;
  /** Needs the machine's PostgreSQL (and its binaries for a private cluster). */
  run(profile: Profile): Promise<ScenarioResult>;
}
