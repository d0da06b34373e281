import type { Payment, Purse } from '@purse/sdk';
import { fractionDigits, fromMinor, toMinor } from './money.ts';
import { dayBoundary, today } from './time.ts';

/** A day's payments are read page by page; past this many the figures say they are partial. */
const MAX_PAYMENTS = 1000;

export interface TodayStats {
  /** Succeeded volume per currency, exact decimal strings. */
  volume: { currency: string; amount: string }[];
  succeeded: number;
  failed: number;
  pending: number;
  partial: boolean;
}

/** Today's payments (the browser's day): volume of the succeeded ones and the success rate of the settled ones. */
export async function readTodayStats(client: Purse): Promise<TodayStats> {
  const sums = new Map<string, { minor: bigint; digits: number }>();
  const stats: TodayStats = { volume: [], succeeded: 0, failed: 0, pending: 0, partial: false };
  let seen = 0;
  for await (const payment of client.payments.list({ created_gte: dayBoundary(today(), false), limit: 100 }) as AsyncIterable<Payment>) {
    if (++seen > MAX_PAYMENTS) {
      stats.partial = true;
      break;
    }
    // A card waiting on 3-D Secure or on its capture is not settled yet; a canceled one is neither outcome.
    const status: string = payment.status;
    if (status === 'succeeded' || status === 'failed') stats[status] += 1;
    else if (status === 'pending' || status.startsWith('requires_')) stats.pending += 1;
    if (status !== 'succeeded') continue;
    const digits = fractionDigits(payment.amount);
    const sum = sums.get(payment.currency) ?? { minor: 0n, digits };
    sum.minor += toMinor(payment.amount, digits);
    sums.set(payment.currency, sum);
  }
  stats.volume = [...sums].map(([currency, { minor, digits }]) => ({ currency, amount: fromMinor(minor, digits) }));
  return stats;
}
