// The load and the kills of `ha-failover` (ha-failover.ts): retrying clients spread over two Purse
// processes, each sending wallet and card payments, mobile-money payments, top-ups, refunds and
// payouts, and the primary's whole node killed while they run.
import { findPrimary, type HaClusterState, type HaNode, killNode, startNode, waitHealthy, walSenders } from '../helpers/ha-cluster.ts';
import { continueProcesses, stopProcesses } from '../helpers/ha-processes.ts';
import { sleep } from '../helpers/processes.ts';
import { type Operation, operationParts } from './durability.ts';

const CARD_OK = { number: '4242424242424242', exp_month: 12, exp_year: 2035, cvc: '123' };
const CARD_DECLINED = { ...CARD_OK, number: '4000000000000002' };
const phone = (suffix: string) => `+254712345${suffix}`;

/** Refunds of 1.00 per payment, at most this many each. */
const REFUNDS_PER_PAYMENT = 100;

/**
 * The n-th request of a client: every means and every money movement, a unique reference each.
 * Refunds take turns over the refundable payments; payouts go to mobile money.
 */
export function haOperations(runId: string, wallets: string[], refundable: string[]): (client: number, seq: number) => Operation {
  let refunds = 0;
  return (client, seq) => {
    const { ref, wallet, pay, topup } = operationParts(runId, client, seq, wallets);
    switch (seq % 10) {
      case 0:
      case 5:
        return pay('1.00', { type: 'wallet', wallet: { wallet_id: wallet } });
      case 1:
      case 9:
        return pay('2.50', { type: 'card', card: CARD_OK });
      case 2:
        return pay('3.00', { type: 'mobile_money', mobile_money: { phone_number: phone('000') } });
      case 3:
        return topup('5.00', { type: 'card', card: CARD_OK });
      case 4:
        return topup('4.00', { type: 'mobile_money', mobile_money: { phone_number: phone('000') } });
      case 6: {
        const i = refunds++;
        if (refundable.length > 0 && i < refundable.length * REFUNDS_PER_PAYMENT)
          return {
            ref,
            kind: 'refund',
            path: '/v1/refunds',
            body: { reference: ref, payment_id: refundable[i % refundable.length], amount: '1.00', reason: 'requested_by_customer' },
          };
        return pay('2.00', { type: 'card', card: CARD_DECLINED });
      }
      case 7:
        return {
          ref,
          kind: 'payout',
          path: '/v1/payouts',
          body: {
            reference: ref,
            amount: '1.00',
            currency: 'KES',
            destination: { type: 'mobile_money', mobile_money: { phone_number: phone(seq % 20 === 7 ? '001' : '000') } },
          },
        };
      default:
        return pay('2.00', { type: 'card', card: CARD_DECLINED });
    }
  };
}

export interface KillRecord {
  node: string;
  killedAt: number;
  /** Until another node's Patroni answers /primary. */
  promotedMs: number | null;
  newPrimary: string | null;
  /** WAL senders stopped before the kill (negative control), and for how long. */
  walSendersPaused: number;
  /** Until the killed node, started again, is a streaming standby of a healthy cluster (null: not rejoined). */
  rejoinMs: number | null;
}

export interface KillPlan {
  kills: number;
  warmMs: number;
  /** Negative control: the primary's WAL senders are stopped this long before the kill (0: not). */
  walSenderPauseMs: number;
  /** Start the killed node again after each kill but the last (the next kill needs three nodes). */
  rejoin: boolean;
}

/** Waits until a node other than `dead` answers /primary; null after `timeoutMs`. */
async function waitPromotion(state: HaClusterState, dead: HaNode, timeoutMs: number): Promise<HaNode | null> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const primary = await findPrimary(state);
    if (primary && primary.name !== dead.name) return primary;
    await sleep(200);
  }
  return null;
}

/** `plan.kills` times: load for warmMs, kill the primary's node, wait for the promotion, rejoin. */
export async function killPrimaries(state: HaClusterState, plan: KillPlan): Promise<KillRecord[]> {
  const records: KillRecord[] = [];
  for (let k = 0; k < plan.kills; k++) {
    await sleep(plan.warmMs);
    const primary = await findPrimary(state);
    if (!primary) throw new Error('no primary to kill');
    let paused: number[] = [];
    if (plan.walSenderPauseMs > 0) {
      // The standbys receive nothing more: what the primary commits from now on is on it alone.
      paused = walSenders(primary);
      if (paused.length === 0) throw new Error(`no WAL sender on ${primary.name} to pause`);
      stopProcesses(paused);
      await sleep(plan.walSenderPauseMs);
    }
    const killedAt = Date.now();
    await killNode(state, primary);
    continueProcesses(paused);
    const promoted = await waitPromotion(state, primary, 90_000);
    const record: KillRecord = {
      node: primary.name,
      killedAt,
      promotedMs: promoted ? Date.now() - killedAt : null,
      newPrimary: promoted?.name ?? null,
      walSendersPaused: paused.length,
      rejoinMs: null,
    };
    records.push(record);
    if (!promoted) throw new Error(`no node was promoted within 90 s of killing ${primary.name}`);
    if (plan.rejoin && k < plan.kills - 1) {
      const started = Date.now();
      startNode(state, primary);
      await waitHealthy(state, 120_000);
      record.rejoinMs = Date.now() - started;
    }
  }
  return records;
}
