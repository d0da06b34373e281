// The double spend: a wallet that covers exactly `covered` payments, `attempts`
// parallel wallet payments with unique references. Reusable: the everyday test asserts exact
// counts, the negative control (test/negative-control.ts) asserts that a broken debit loses updates.
import assert from 'node:assert/strict';
import { cardMethod, uniqueRef, walletMethod } from '../helpers/factories.ts';
import { type ApiClient, inParallel, minorUnits, tally } from './support.ts';

export interface DoubleSpendOptions {
  /** Payments the wallet covers exactly (default 100). */
  covered?: number;
  /** Parallel payments (default 1,000). */
  attempts?: number;
  /** Requests in flight at once (default 64). */
  concurrency?: number;
  /** Amount of one payment, KES major units (default "10.00"). */
  amount?: string;
}

export interface DoubleSpendFigures {
  attempts: number;
  covered: number;
  concurrency: number;
  /** 201 succeeded. */
  successes: number;
  /** 201 failed insufficient_funds. */
  failures: number;
  /** Anything else (another status, another failure code): always a finding. */
  unexpected: number;
  statuses: Record<string, number>;
  unexpectedSamples: string[];
  /** The lowest balance any GET /v1/wallets/{id} returned during the storm, minor units. */
  minBalance: bigint;
  balanceSamples: number;
  finalBalance: bigint;
  /** Entries of GET /v1/wallets/{id}/transactions (all pages) and the lowest balance_after among them. */
  transactions: number;
  minBalanceAfter: bigint;
  debits: number;
  walletId: string;
  ms: number;
}

/** Funds a fresh wallet with one card top-up, then runs the storm while sampling the balance. */
export async function runDoubleSpend(client: ApiClient, options: DoubleSpendOptions = {}): Promise<DoubleSpendFigures> {
  const covered = options.covered ?? 100;
  const attempts = options.attempts ?? 1_000;
  const concurrency = options.concurrency ?? 64;
  const amount = options.amount ?? '10.00';
  const amountMinor = minorUnits(amount);
  const fund = amountMinor * BigInt(covered);
  const fundText = `${fund / 100n}.${(fund % 100n).toString().padStart(2, '0')}`;

  const created = await client.request('POST', '/v1/wallets', { currency: 'KES' });
  if (created.status !== 201) throw new Error(`wallet: ${created.status} ${JSON.stringify(created.body)}`);
  const walletId = created.body.id as string;
  const topup = await client.request('POST', '/v1/topups', {
    reference: uniqueRef('ds-fund'),
    amount: fundText,
    currency: 'KES',
    wallet_id: walletId,
    source: cardMethod(),
  });
  if (topup.status !== 201 || topup.body.status !== 'succeeded') throw new Error(`top-up: ${topup.status} ${JSON.stringify(topup.body)}`);

  // The sampler reads the balance in a loop for as long as the storm runs.
  let running = true;
  let minBalance = fund;
  let balanceSamples = 0;
  const sampler = (async () => {
    while (running) {
      const res = await client.request('GET', `/v1/wallets/${walletId}`);
      if (res.status === 200) {
        const balance = minorUnits(res.body.balance as string);
        if (balance < minBalance) minBalance = balance;
        balanceSamples += 1;
      }
      await new Promise((r) => setImmediate(r));
    }
  })();

  const runId = uniqueRef('ds');
  const started = Date.now();
  let responses;
  try {
    responses = await inParallel(attempts, concurrency, (i) =>
      client.request('POST', '/v1/payments', {
        reference: `${runId}-${i}`,
        amount,
        currency: 'KES',
        payment_method: walletMethod(walletId),
      }),
    );
  } finally {
    running = false;
    await sampler;
  }
  const ms = Date.now() - started;

  let successes = 0;
  let failures = 0;
  const unexpectedSamples: string[] = [];
  for (const r of responses) {
    if (r.status === 201 && r.body.status === 'succeeded') successes += 1;
    else if (r.status === 201 && r.body.status === 'failed' && r.body.failure?.code === 'insufficient_funds') failures += 1;
    else if (unexpectedSamples.length < 5) unexpectedSamples.push(`${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  }
  const unexpected = attempts - successes - failures;

  const final = await client.request('GET', `/v1/wallets/${walletId}`);
  if (final.status !== 200) throw new Error(`wallet read: ${final.status}`);
  const finalBalance = minorUnits(final.body.balance as string);
  if (finalBalance < minBalance) minBalance = finalBalance;

  let transactions = 0;
  let debits = 0;
  let minBalanceAfter = fund;
  let cursor: string | null = null;
  for (;;) {
    const page = await client.request('GET', `/v1/wallets/${walletId}/transactions?limit=100${cursor ? `&starting_after=${cursor}` : ''}`);
    if (page.status !== 200) throw new Error(`transactions: ${page.status} ${JSON.stringify(page.body)}`);
    for (const entry of page.body.data as Array<{ id: string; amount: string; balance_after: string }>) {
      transactions += 1;
      if (entry.amount.startsWith('-')) debits += 1;
      const after = minorUnits(entry.balance_after);
      if (after < minBalanceAfter) minBalanceAfter = after;
      cursor = entry.id;
    }
    if (!page.body.has_more) break;
  }

  return {
    attempts,
    covered,
    concurrency,
    successes,
    failures,
    unexpected,
    statuses: tally(responses.map((r) => r.status)),
    unexpectedSamples,
    minBalance,
    balanceSamples,
    finalBalance,
    transactions,
    minBalanceAfter,
    debits,
    walletId,
    ms,
  };
}

/** The exact outcome of a correct debit: the everyday test and two-processes.test.ts. */
export function assertExactDoubleSpend(figures: DoubleSpendFigures): void {
  const { attempts, covered } = figures;
  assert.equal(figures.unexpected, 0, `unexpected answers: ${figures.unexpectedSamples.join(' | ')}`);
  assert.equal(figures.successes, covered, 'exactly the covered number of payments succeed');
  assert.equal(figures.failures, attempts - covered, 'the rest fail with insufficient_funds');
  assert.equal(figures.finalBalance, 0n, 'the wallet ends empty');
  assert.ok(figures.minBalance >= 0n, `the balance was seen below zero: ${figures.minBalance}`);
  assert.ok(figures.minBalanceAfter >= 0n, `a ledger entry left the balance below zero: ${figures.minBalanceAfter}`);
  assert.equal(figures.transactions, covered + 1, 'one top-up and one entry per successful payment');
  assert.equal(figures.debits, covered);
}
