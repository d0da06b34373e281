// Refunds racing for one payment (docs/money-safety.md rule 11): a payment of `paymentAmount`,
// `attempts` concurrent refunds of `amount` with distinct references. The payment's locked row
// decides, so exactly what the payment covers is refunded; the rest is 400 amount_too_large.
// Reusable: the everyday test (test/outflows/refund-storm.test.ts) asserts exact counts, the
// negative control (test/negative-control.ts) asserts that an unlocked check-then-act lets more
// through. Successes are counted from the refunds themselves (answers and GET /v1/refunds), never
// from amount_refunded: the broken mode writes that column as an absolute value, so its CHECK
// holds while the refunds add up to more than the payment.
import assert from 'node:assert/strict';
import { cardMethod, mobileMethod, uniqueRef, walletMethod } from '../helpers/factories.ts';
import { type ApiClient, inParallel, minorUnits, tally } from './support.ts';

export type RefundMeans = 'card' | 'mobile_money' | 'wallet';

export interface RefundStormOptions {
  /**
   * card: the sandbox answers a card refund at once (succeeded; held in reserve for the instant of
   * the provider call); mobile_money: pending until the provider settles; wallet: back into the
   * paying wallet inside the statement (nothing reserved).
   */
  means?: RefundMeans;
  /** The refunded payment, KES major units (default "10.00"). */
  paymentAmount?: string;
  /** One refund of the storm (default "1.00"). */
  amount?: string;
  /** Refunded (and left as it is) before the storm, e.g. a pending mobile-money refund (default none). */
  refundedFirst?: string;
  /** Concurrent refunds (default 30). */
  attempts?: number;
  /** Requests in flight at once (default: all of them). */
  concurrency?: number;
  /**
   * Runs the settlement workers once: a test app has no background worker (main.ts starts it), so
   * the payment is settled by calling this until it is no longer pending. Without it, a server
   * process's own worker must settle.
   */
  drive?: () => Promise<void>;
}

export interface RefundStormFigures {
  means: RefundMeans;
  attempts: number;
  /** Refunds of `amount` the payment still covers when the storm starts. */
  covered: number;
  /** Refunds made before the storm (refundedFirst): 0 or 1. */
  earlierRefunds: number;
  /** 201 with a refund that is not failed (succeeded or pending). */
  successes: number;
  /** Of the successes, answered pending. */
  pendingAnswers: number;
  /** 400 amount_too_large (the payment's locked row refused). */
  tooLarge: number;
  /** 5xx answers (a CHECK violation in the negative control lands here): never a success. */
  serverErrors: number;
  /** Anything else (another status, a failed refund, another error code): always a finding. */
  unexpected: number;
  statuses: Record<string, number>;
  unexpectedSamples: string[];
  /** GET /v1/payments/{id}.amount_refunded after the storm, minor units. */
  amountRefunded: bigint;
  /** GET /v1/refunds?payment_id= (all pages): refunds not failed, and their sum in minor units (the first refund included). */
  listedNotFailed: number;
  listedNotFailedSum: bigint;
  listedPending: number;
  /** The merchant's GET /v1/balance (KES) after the storm, minor units. */
  available: bigint;
  reserved: bigint;
  paymentId: string;
  ms: number;
}

const text = (minor: bigint) => `${minor / 100n}.${(minor % 100n).toString().padStart(2, '0')}`;

async function pause(ms: number) {
  await new Promise((r) => setTimeout(r, ms));
}

/** GET until the object is no longer pending, running `drive` (the settlement workers once) before each read when given. */
export async function settled(client: ApiClient, path: string, drive?: () => Promise<void>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (drive) await drive();
    const res = await client.request('GET', path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    if (res.body.status !== 'pending') return res.body;
    if (Date.now() > deadline) throw new Error(`${path}: still pending after ${timeoutMs} ms`);
    await pause(20);
  }
}

/** The merchant's KES funds (GET /v1/balance), minor units. */
export async function fundsOf(client: ApiClient): Promise<{ available: bigint; reserved: bigint }> {
  const res = await client.request('GET', '/v1/balance');
  if (res.status !== 200) throw new Error(`balance: ${res.status} ${JSON.stringify(res.body)}`);
  const pick = (list: Array<{ currency: string; amount: string }>) => minorUnits(list.find((x) => x.currency === 'KES')?.amount ?? '0.00');
  return { available: pick(res.body.available), reserved: pick(res.body.reserved) };
}

/** Every object of a list route (`path` has a query already or not), following starting_after. */
export async function listAll(client: ApiClient, path: string): Promise<Array<{ id: string; status: string; amount: string }>> {
  const out: Array<{ id: string; status: string; amount: string }> = [];
  let cursor: string | null = null;
  const sep = path.includes('?') ? '&' : '?';
  for (;;) {
    const page = await client.request('GET', `${path}${sep}limit=100${cursor ? `&starting_after=${cursor}` : ''}`);
    if (page.status !== 200) throw new Error(`${path}: ${page.status} ${JSON.stringify(page.body)}`);
    for (const item of page.body.data as Array<{ id: string; status: string; amount: string }>) {
      out.push(item);
      cursor = item.id;
    }
    if (!page.body.has_more) return out;
  }
}

/**
 * A cushion payment first (so the merchant's available funds never limit the storm: only the
 * refund cap decides), then the refunded payment, settled, then the storm.
 */
export async function runRefundStorm(client: ApiClient, options: RefundStormOptions = {}): Promise<RefundStormFigures> {
  const means = options.means ?? 'card';
  const paymentAmount = options.paymentAmount ?? '10.00';
  const amount = options.amount ?? '1.00';
  const attempts = options.attempts ?? 30;
  const amountMinor = minorUnits(amount);
  const first = options.refundedFirst ? minorUnits(options.refundedFirst) : 0n;
  const covered = Number((minorUnits(paymentAmount) - first) / amountMinor);

  const cushion = await client.request('POST', '/v1/payments', {
    reference: uniqueRef('rs-cushion'),
    amount: text(minorUnits(paymentAmount) * BigInt(attempts) + 10_000n),
    currency: 'KES',
    payment_method: cardMethod(),
  });
  if (cushion.status !== 201 || cushion.body.status !== 'succeeded')
    throw new Error(`cushion: ${cushion.status} ${JSON.stringify(cushion.body)}`);

  let method: unknown = means === 'card' ? cardMethod() : mobileMethod('+254712345000');
  if (means === 'wallet') {
    const wallet = await client.request('POST', '/v1/wallets', { currency: 'KES' });
    if (wallet.status !== 201) throw new Error(`wallet: ${wallet.status} ${JSON.stringify(wallet.body)}`);
    const topup = await client.request('POST', '/v1/topups', {
      reference: uniqueRef('rs-fund'),
      amount: paymentAmount,
      currency: 'KES',
      wallet_id: wallet.body.id,
      source: cardMethod(),
    });
    if (topup.status !== 201 || topup.body.status !== 'succeeded') throw new Error(`top-up: ${topup.status} ${JSON.stringify(topup.body)}`);
    method = walletMethod(wallet.body.id as string);
  }
  const created = await client.request('POST', '/v1/payments', {
    reference: uniqueRef('rs-pay'),
    amount: paymentAmount,
    currency: 'KES',
    payment_method: method,
  });
  if (created.status !== 201) throw new Error(`payment: ${created.status} ${JSON.stringify(created.body)}`);
  const paymentId = created.body.id as string;
  const payment = created.body.status === 'pending' ? await settled(client, `/v1/payments/${paymentId}`, options.drive) : created.body;
  if (payment.status !== 'succeeded') throw new Error(`payment did not succeed: ${JSON.stringify(payment)}`);

  if (first > 0n) {
    const res = await client.request('POST', '/v1/refunds', {
      reference: uniqueRef('rs-first'),
      payment_id: paymentId,
      amount: text(first),
    });
    if (res.status !== 201 || res.body.status === 'failed') throw new Error(`first refund: ${res.status} ${JSON.stringify(res.body)}`);
  }

  const runId = uniqueRef('rs');
  const started = Date.now();
  const responses = await inParallel(attempts, options.concurrency ?? attempts, (i) =>
    client.request('POST', '/v1/refunds', { reference: `${runId}-${i}`, payment_id: paymentId, amount }),
  );
  const ms = Date.now() - started;

  let successes = 0;
  let pendingAnswers = 0;
  let tooLarge = 0;
  let serverErrors = 0;
  const unexpectedSamples: string[] = [];
  for (const r of responses) {
    if (r.status === 201 && (r.body.status === 'succeeded' || r.body.status === 'pending')) {
      successes += 1;
      if (r.body.status === 'pending') pendingAnswers += 1;
      continue;
    }
    if (r.status === 400 && r.body.error?.code === 'amount_too_large') tooLarge += 1;
    else {
      if (r.status >= 500) serverErrors += 1;
      if (unexpectedSamples.length < 5) unexpectedSamples.push(`${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    }
  }

  const read = await client.request('GET', `/v1/payments/${paymentId}`);
  if (read.status !== 200) throw new Error(`payment read: ${read.status}`);
  const refunds = await listAll(client, `/v1/refunds?payment_id=${paymentId}`);
  const notFailed = refunds.filter((r) => r.status !== 'failed');
  const funds = await fundsOf(client);
  return {
    means,
    attempts,
    covered,
    earlierRefunds: first > 0n ? 1 : 0,
    successes,
    pendingAnswers,
    tooLarge,
    serverErrors,
    unexpected: attempts - successes - tooLarge,
    statuses: tally(responses.map((r) => r.status)),
    unexpectedSamples,
    amountRefunded: minorUnits(read.body.amount_refunded as string),
    listedNotFailed: notFailed.length,
    listedNotFailedSum: notFailed.reduce((sum, r) => sum + minorUnits(r.amount), 0n),
    listedPending: refunds.filter((r) => r.status === 'pending').length,
    available: funds.available,
    reserved: funds.reserved,
    paymentId,
    ms,
  };
}

/** The exact outcome of a correct refund cap: the payment is refunded exactly in full, never more. */
export function assertExactRefundStorm(figures: RefundStormFigures, paymentAmount = '10.00'): void {
  const full = minorUnits(paymentAmount);
  assert.equal(figures.unexpected, 0, `unexpected answers: ${figures.unexpectedSamples.join(' | ')}`);
  assert.equal(figures.successes, figures.covered, 'exactly the refunds the payment covers are accepted');
  assert.equal(figures.tooLarge, figures.attempts - figures.covered, 'the rest are 400 amount_too_large');
  assert.equal(figures.amountRefunded, full, 'amount_refunded is the whole payment');
  assert.equal(figures.listedNotFailedSum, full, 'the refunds that are not failed add up to the payment');
  assert.equal(figures.listedNotFailed, figures.successes + figures.earlierRefunds, 'one listed refund per accepted request');
}
