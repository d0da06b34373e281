import type { Settlement } from '../charges/settlement.ts';
import * as chargeStore from '../charges/store/read.ts';
import { asMovementStatus, type ProviderStatusOutcome, type StatusOutcome } from '../connectors/connector.ts';
import type { ConnectorRegistry } from '../connectors/registry.ts';
import type { Db } from '../db/db.ts';
import type { OutflowSettlement } from '../outflows/settlement.ts';
import * as outflowStore from '../outflows/store/read.ts';
import type { Clock } from '../shared/clock.ts';
import { formatAmount } from '../shared/money.ts';

/** What can disagree between Purse's books and a provider's. */
export type MismatchKind =
  /** The provider settled it; Purse failed it (expired, or failed on a wrong answer): money arrived late. */
  | 'succeeded_at_provider_failed_here'
  /** Purse shows it succeeded; the provider says it failed. */
  | 'failed_at_provider_succeeded_here'
  /** Purse sent it (or shows it final), the provider has no record of it. */
  | 'unknown_at_provider'
  /** Final here, still open at the provider. */
  | 'pending_at_provider_final_here'
  /** Both say succeeded, for different amounts. */
  | 'amount_differs'
  /** The provider could not be asked. */
  | 'provider_unreachable';

export interface Mismatch {
  kind: MismatchKind;
  object: string;
  id: string;
  here: { status: string; amount: string; currency: string };
  provider: { status: string; amount?: string; provider_reference?: string | null; error?: string };
}

export interface ReconcileReport {
  provider: string;
  since: string;
  checked: number;
  /** Pending here, final at the provider: applied now, as the worker would (not a mismatch). */
  applied: { object: string; id: string; status: string }[];
  mismatches: Mismatch[];
  /**
   * Final here, sent, but with no reference the provider can be asked by (an M-Pesa push whose
   * answer was lost and whose callback never came): neither agreement nor a mismatch can be shown.
   */
  unverifiable: { object: string; id: string; status: string }[];
}

/** At most this many objects of each table per run; a larger window is reconciled in parts (--since). */
const WINDOW_LIMIT = 10_000;

interface Subject {
  object: 'payment' | 'topup' | 'refund' | 'payout';
  id: string;
  status: string;
  amount: bigint;
  currency: string;
  sent: boolean;
  /** The provider's reference is known here. */
  referenced: boolean;
  ask(): Promise<StatusOutcome>;
  apply(outcome: Extract<ProviderStatusOutcome, { status: 'succeeded' | 'failed' }>): Promise<unknown>;
}

/**
 * `purse reconcile`: asks a provider about every charge, refund and payout of a window, applies
 * what is safe (a final answer for what is pending here: the same settlement as the worker's), and
 * reports every disagreement. A contradiction of a final state is never applied: it is reported and
 * kept as the object's late_outcome, as a late callback would be.
 */
export function createReconciliation(deps: {
  db: Db;
  clock: Clock;
  registry: ConnectorRegistry;
  settlement: Settlement;
  outflowSettlement: OutflowSettlement;
}) {
  const { db, registry, settlement, outflowSettlement } = deps;

  async function subjects(provider: string, since: Date): Promise<Subject[]> {
    const charges = await chargeStore.findChargesToReconcile(db, provider, since, WINDOW_LIMIT);
    const outflows = await outflowStore.findOutflowsToReconcile(db, provider, since, WINDOW_LIMIT);
    return [
      ...charges.map(
        (c): Subject => ({
          object: c.kind,
          id: c.id,
          status: c.status,
          amount: BigInt(c.amount),
          currency: c.currency,
          sent: c.provider_state === 'initiated' || c.provider_reference !== null,
          referenced: c.provider_reference !== null,
          ask: () => settlement.providerStatus(c),
          apply: (outcome) => settlement.applyOutcome(c, outcome),
        }),
      ),
      ...outflows.map(
        (o): Subject => ({
          object: o.kind,
          id: o.id,
          status: o.status,
          amount: BigInt(o.amount),
          currency: o.currency,
          sent: o.provider_state === 'initiated' || o.provider_reference !== null,
          referenced: o.provider_reference !== null,
          ask: () => outflowSettlement.providerStatus(o),
          apply: (outcome) => outflowSettlement.applyOutcome(o, outcome),
        }),
      ),
    ];
  }

  return {
    async run(provider: string, since: Date): Promise<ReconcileReport> {
      if (!registry.get(provider)) throw new Error(`no connector named ${provider} is configured`);
      const report: ReconcileReport = {
        provider,
        since: since.toISOString(),
        checked: 0,
        applied: [],
        mismatches: [],
        unverifiable: [],
      };
      for (const s of await subjects(provider, since)) {
        report.checked++;
        const here = { status: s.status, amount: formatAmount(s.amount, s.currency), currency: s.currency };
        const mismatch = (kind: MismatchKind, at: Mismatch['provider']) =>
          report.mismatches.push({ kind, object: s.object, id: s.id, here, provider: at });
        let status: ProviderStatusOutcome;
        try {
          status = asMovementStatus(await s.ask());
        } catch (error) {
          mismatch('provider_unreachable', { status: 'unknown', error: error instanceof Error ? error.message : String(error) });
          continue;
        }
        if (status.status === 'not_found') {
          // Never sent and still pending: the worker sends it; anything else should be known there.
          if (s.sent || s.status !== 'pending') mismatch('unknown_at_provider', { status: 'not_found' });
          continue;
        }
        const at = { status: status.status, provider_reference: status.providerReference };
        if (status.status === 'pending' && status.known === false) {
          // The provider could not be asked (no status call, or no reference to ask by): nothing
          // to compare. Final here with no reference ever received: listed as unverifiable.
          if (s.status !== 'pending' && s.sent && !s.referenced) report.unverifiable.push({ object: s.object, id: s.id, status: s.status });
          continue;
        }
        if (status.status === 'pending') {
          if (s.status !== 'pending') mismatch('pending_at_provider_final_here', at);
          continue;
        }
        if (s.status === 'pending') {
          await s.apply(status);
          report.applied.push({ object: s.object, id: s.id, status: status.status });
          continue;
        }
        if (status.status !== s.status) {
          mismatch(status.status === 'succeeded' ? 'succeeded_at_provider_failed_here' : 'failed_at_provider_succeeded_here', at);
          // Kept on the object as its late_outcome (never applied over a final state).
          await s.apply(status);
          continue;
        }
        if (status.status === 'succeeded' && status.amountMinor !== undefined && status.amountMinor !== s.amount) {
          mismatch('amount_differs', { ...at, amount: formatAmount(status.amountMinor, s.currency) });
        }
      }
      return report;
    },
  };
}

export type Reconciliation = ReturnType<typeof createReconciliation>;
