// The double spend through transfers: a wallet holding `covered` × amount, `attempts` parallel
// transfers of `amount` to a second wallet with unique references. Reusable: the everyday test
// (test/transfers/storm.test.ts) asserts exact counts, the negative control
// (test/negative-control.ts) asserts that a broken debit lets more through.
import assert from 'node:assert/strict';
import { cardMethod, uniqueRef } from '../helpers/factories.ts';
import { type ApiClient, inParallel, minorUnits, tally } from './support.ts';

export interface TransferStormOptions {
  /** Transfers the source covers exactly (default 10). */
  covered?: number;
  /** Parallel transfers (default 100). */
  attempts?: number;
  /** Requests in flight at once (default 100: all at once). */
  concurrency?: number;
  /** Amount of one transfer, KES major units (default "1.00"). */
  amount?: string;
}

export interface TransferStormFigures {
  attempts: number;
  covered: number;
  successes: number;
  /** 201 failed insufficient_funds. */
  failures: number;
  unexpected: number;
  statuses: Record<string, number>;
  unexpectedSamples: string[];
  sourceBalance: bigint;
  destinationBalance: bigint;
  /** Lines listed under each wallet (GET /v1/wallets/{id}/transactions, first 100). */
  sourceLines: number;
  destinationLines: number;
  sourceId: string;
  destinationId: string;
  ms: number;
}

async function wallet(client: ApiClient): Promise<string> {
  const created = await client.request('POST', '/v1/wallets', { currency: 'KES' });
  if (created.status !== 201) throw new Error(`wallet: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id as string;
}

async function balanceOf(client: ApiClient, walletId: string): Promise<bigint> {
  const res = await client.request('GET', `/v1/wallets/${walletId}`);
  if (res.status !== 200) throw new Error(`wallet read: ${res.status}`);
  return minorUnits(res.body.balance as string);
}

async function lineCount(client: ApiClient, walletId: string): Promise<number> {
  const res = await client.request('GET', `/v1/wallets/${walletId}/transactions?limit=100`);
  if (res.status !== 200) throw new Error(`transactions: ${res.status}`);
  return (res.body.data as unknown[]).length;
}

export async function runTransferStorm(client: ApiClient, options: TransferStormOptions = {}): Promise<TransferStormFigures> {
  const covered = options.covered ?? 10;
  const attempts = options.attempts ?? 100;
  const amount = options.amount ?? '1.00';
  const fund = minorUnits(amount) * BigInt(covered);
  const sourceId = await wallet(client);
  const destinationId = await wallet(client);
  const topup = await client.request('POST', '/v1/topups', {
    reference: uniqueRef('storm-fund'),
    amount: `${fund / 100n}.${(fund % 100n).toString().padStart(2, '0')}`,
    currency: 'KES',
    wallet_id: sourceId,
    source: cardMethod(),
  });
  if (topup.status !== 201 || topup.body.status !== 'succeeded') throw new Error(`top-up: ${topup.status} ${JSON.stringify(topup.body)}`);

  const runId = uniqueRef('storm');
  const started = Date.now();
  const responses = await inParallel(attempts, options.concurrency ?? attempts, (i) =>
    client.request('POST', '/v1/transfers', {
      reference: `${runId}-${i}`,
      amount,
      currency: 'KES',
      source_wallet_id: sourceId,
      destination_wallet_id: destinationId,
    }),
  );
  const ms = Date.now() - started;

  let successes = 0;
  let failures = 0;
  const unexpectedSamples: string[] = [];
  for (const r of responses) {
    if (r.status === 201 && r.body.status === 'succeeded') successes += 1;
    else if (r.status === 201 && r.body.status === 'failed' && r.body.failure?.code === 'insufficient_funds') failures += 1;
    else if (unexpectedSamples.length < 5) unexpectedSamples.push(`${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  }
  return {
    attempts,
    covered,
    successes,
    failures,
    unexpected: attempts - successes - failures,
    statuses: tally(responses.map((r) => r.status)),
    unexpectedSamples,
    sourceBalance: await balanceOf(client, sourceId),
    destinationBalance: await balanceOf(client, destinationId),
    sourceLines: await lineCount(client, sourceId),
    destinationLines: await lineCount(client, destinationId),
    sourceId,
    destinationId,
    ms,
  };
}

/** The exact outcome of a correct debit: `covered` succeed, the rest fail, the money moved once. */
export function assertExactTransferStorm(figures: TransferStormFigures, amount = '1.00'): void {
  const { attempts, covered } = figures;
  assert.equal(figures.unexpected, 0, `unexpected answers: ${figures.unexpectedSamples.join(' | ')}`);
  assert.equal(figures.successes, covered, 'exactly the covered number of transfers succeed');
  assert.equal(figures.failures, attempts - covered, 'the rest fail with insufficient_funds');
  assert.equal(figures.sourceBalance, 0n, 'the source ends empty');
  assert.equal(figures.destinationBalance, minorUnits(amount) * BigInt(covered), 'the destination got exactly what left the source');
  assert.equal(figures.sourceLines, covered + 1, 'the funding top-up and one debit per successful transfer');
  assert.equal(figures.destinationLines, covered, 'one credit per successful transfer');
}
