// Payouts racing for a merchant's funds (docs/money-safety.md rule 12): a fresh merchant whose
// available balance covers exactly `covered` payouts (one card payment), `attempts` concurrent
// payouts of `amount` with distinct references, to one of its wallets (settled in the statement)
// and/or to mobile money (pending, reserved until the provider answers). The merchant's locked
// balance row decides: exactly `covered` are not failed, the rest are 201 failed
// insufficient_funds, the funds end at zero. Reusable: the everyday test
// (test/outflows/payout-storm.test.ts) asserts exact counts, the negative control
// (test/negative-control.ts) asserts that an unlocked check-then-act lets more through.
// Successes are counted from the payouts (answers and GET /v1/payouts), never from the balance
// columns, which the broken mode writes as absolute values.
import assert from 'node:assert/strict';
import { cardMethod, uniqueRef } from '../helpers/factories.ts';
import { fundsOf, listAll, settled } from './refund-storm.ts';
import { type ApiClient, inParallel, minorUnits, tally } from './support.ts';

/** wallet: every payout to one wallet; mobile_money: every payout to a phone; mixed: alternating. */
export type PayoutDestinations = 'wallet' | 'mobile_money' | 'mixed';

export interface PayoutStormOptions {
  /** Payouts the funds cover exactly (default 10). */
  covered?: number;
  /** Concurrent payouts (default 50). */
  attempts?: number;
  /** Requests in flight at once (default: all of them). */
  concurrency?: number;
  /** One payout, KES major units (default "1.00"). */
  amount?: string;
  destinations?: PayoutDestinations;
  /** After the storm, wait until no payout is pending (`drive`, or a server process's own worker, settles them). */
  settle?: boolean;
  /** Runs the settlement workers once (a test app has no background worker). */
  drive?: () => Promise<void>;
}

export interface PayoutStormFigures {
  destinations: PayoutDestinations;
  attempts: number;
  covered: number;
  /** 201 with a payout that is not failed (succeeded or pending). */
  successes: number;
  /** Of the successes, to the wallet / to mobile money. */
  walletSuccesses: number;
  mobileSuccesses: number;
  /** 201 failed insufficient_funds. */
  failures: number;
  /** 5xx answers (a CHECK violation in the negative control lands here): never a success. */
  serverErrors: number;
  unexpected: number;
  statuses: Record<string, number>;
  unexpectedSamples: string[];
  /** GET /v1/balance (KES) before the storm and after it (after settling when asked), minor units. */
  availableBefore: bigint;
  available: bigint;
  reserved: bigint;
  /** The destination wallet's balance after the storm. */
  walletBalance: bigint;
  /** GET /v1/payouts (all pages, a fresh merchant: the storm's only): not failed, their sum, still pending. */
  listedNotFailed: number;
  listedNotFailedSum: bigint;
  listedPending: number;
  walletId: string;
  ms: number;
}

const PHONE = '+254712345000';

/** The client's merchant must be fresh: its funds are exactly the one payment this makes. */
export async function runPayoutStorm(client: ApiClient, options: PayoutStormOptions = {}): Promise<PayoutStormFigures> {
  const covered = options.covered ?? 10;
  const attempts = options.attempts ?? 50;
  const amount = options.amount ?? '1.00';
  const destinations = options.destinations ?? 'mixed';
  const fund = minorUnits(amount) * BigInt(covered);

  const wallet = await client.request('POST', '/v1/wallets', { currency: 'KES' });
  if (wallet.status !== 201) throw new Error(`wallet: ${wallet.status} ${JSON.stringify(wallet.body)}`);
  const walletId = wallet.body.id as string;
  const paid = await client.request('POST', '/v1/payments', {
    reference: uniqueRef('ps-fund'),
    amount: `${fund / 100n}.${(fund % 100n).toString().padStart(2, '0')}`,
    currency: 'KES',
    payment_method: cardMethod(),
  });
  if (paid.status !== 201 || paid.body.status !== 'succeeded')
    throw new Error(`funding payment: ${paid.status} ${JSON.stringify(paid.body)}`);
  const availableBefore = (await fundsOf(client)).available;

  const toWallet = (i: number) => destinations === 'wallet' || (destinations === 'mixed' && i % 2 === 0);
  const runId = uniqueRef('ps');
  const started = Date.now();
  const responses = await inParallel(attempts, options.concurrency ?? attempts, (i) =>
    client.request('POST', '/v1/payouts', {
      reference: `${runId}-${i}`,
      amount,
      currency: 'KES',
      destination: toWallet(i)
        ? { type: 'wallet', wallet: { wallet_id: walletId } }
        : { type: 'mobile_money', mobile_money: { phone_number: PHONE } },
    }),
  );
  const ms = Date.now() - started;

  let walletSuccesses = 0;
  let mobileSuccesses = 0;
  let failures = 0;
  let serverErrors = 0;
  const unexpectedSamples: string[] = [];
  responses.forEach((r, i) => {
    if (r.status === 201 && (r.body.status === 'succeeded' || r.body.status === 'pending')) {
      if (toWallet(i)) walletSuccesses += 1;
      else mobileSuccesses += 1;
      return;
    }
    if (r.status === 201 && r.body.status === 'failed' && r.body.failure?.code === 'insufficient_funds') failures += 1;
    else {
      if (r.status >= 500) serverErrors += 1;
      if (unexpectedSamples.length < 5) unexpectedSamples.push(`${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    }
  });
  const successes = walletSuccesses + mobileSuccesses;

  let payouts = await listAll(client, '/v1/payouts');
  if (options.settle) {
    for (const p of payouts.filter((x) => x.status === 'pending')) await settled(client, `/v1/payouts/${p.id}`, options.drive);
    payouts = await listAll(client, '/v1/payouts');
  }
  const notFailed = payouts.filter((p) => p.status !== 'failed');
  const funds = await fundsOf(client);
  const walletRead = await client.request('GET', `/v1/wallets/${walletId}`);
  if (walletRead.status !== 200) throw new Error(`wallet read: ${walletRead.status}`);
  return {
    destinations,
    attempts,
    covered,
    successes,
    walletSuccesses,
    mobileSuccesses,
    failures,
    serverErrors,
    unexpected: attempts - successes - failures,
    statuses: tally(responses.map((r) => r.status)),
    unexpectedSamples,
    availableBefore,
    available: funds.available,
    reserved: funds.reserved,
    walletBalance: minorUnits(walletRead.body.balance as string),
    listedNotFailed: notFailed.length,
    listedNotFailedSum: notFailed.reduce((sum, p) => sum + minorUnits(p.amount), 0n),
    listedPending: payouts.filter((p) => p.status === 'pending').length,
    walletId,
    ms,
  };
}

/** The exact outcome of a correct funds check: `covered` payouts, the funds at zero, the wallet got its share. */
export function assertExactPayoutStorm(figures: PayoutStormFigures, amount = '1.00'): void {
  const unit = minorUnits(amount);
  const fund = unit * BigInt(figures.covered);
  assert.equal(figures.availableBefore, fund, 'the storm starts with exactly the covered funds');
  assert.equal(figures.unexpected, 0, `unexpected answers: ${figures.unexpectedSamples.join(' | ')}`);
  assert.equal(figures.successes, figures.covered, 'exactly the covered number of payouts are not failed');
  assert.equal(figures.failures, figures.attempts - figures.covered, 'the rest are 201 failed insufficient_funds');
  assert.equal(figures.available, 0n, 'the available funds end at zero');
  assert.equal(figures.listedNotFailed, figures.covered, 'one listed payout per accepted request');
  assert.equal(figures.listedNotFailedSum, fund, 'the payouts that are not failed add up to the funds');
  assert.equal(figures.walletBalance, unit * BigInt(figures.walletSuccesses), 'the wallet got exactly its payouts');
  assert.equal(figures.reserved, unit * BigInt(figures.listedPending), 'reserved holds exactly the pending payouts');
}
