// `provider-faults-outflows`: refunds and payouts to mobile money whose sendOut the fault-injecting
// sandbox (PURSE_SANDBOX_FAULTS=true) processes and then breaks: 090 the answer is lost (the
// server's provider timeout fires), 092 the connection drops. Half are retried by the client at
// once (a 200 replay of the same id). Each must stay pending, then the outflow worker asks
// getStatus, finds the request in the provider's books and settles it from there WITHOUT sending
// it again: succeeded once, with the provider's reference, one hold and one final posting, one
// created and one succeeded event, one request in the provider's books, and exactly one send
// (every send of a fault number fails again and logs "provider call failed" for the outflow, so a
// second send would show as a second line). The ledger (funds, reserved, refund caps) is healthy.

import { sql } from 'kysely';
import { verifyLedger } from '../../src/ledger/verify.ts';
import { parallel, sleep } from '../helpers/processes.ts';
import { recordFailure } from './durability.ts';
import { emptyFigures, type Figures, type Profile, type Scenario, type ScenarioResult } from './figures.ts';
import { Cleanups, Http, mobilePayment, percentile, type Setup, setUp } from './provider-faults-support.ts';

const PROFILES = { short: { perCase: 8, concurrency: 8 }, full: { perCase: 50, concurrency: 16 } } as const;
const PROVIDER_TIMEOUT_MS = 300;
const SETTLE_TIMEOUT_MS = 60_000;
const CARD_OK = { number: '4242424242424242', exp_month: 12, exp_year: 2035, cvc: '123' };
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

interface OutflowState {
  id: string;
  status: string;
  failure_code: string | null;
  provider_reference: string | null;
  holds: number;
  finals: number;
  created_events: number;
  final_events: string[];
  books: number;
  books_outcome: string | null;
  books_reference: string | null;
}

async function outflowStates(setup: Setup, ids: string[]): Promise<Map<string, OutflowState>> {
  if (ids.length === 0) return new Map();
  const result = await sql<OutflowState>`
    SELECT o.id, o.status, o.failure_code, o.provider_reference,
      (SELECT count(*)::int FROM ledger_transactions t WHERE t.source_id = o.id AND t.step = 'hold') AS holds,
      (SELECT count(*)::int FROM ledger_transactions t WHERE t.source_id = o.id AND t.step = 'final') AS finals,
      (SELECT count(*)::int FROM events e WHERE e.object_id = o.id AND e.type LIKE '%.created') AS created_events,
      coalesce((SELECT array_agg(e.type ORDER BY e.id) FROM events e WHERE e.object_id = o.id AND e.type NOT LIKE '%.created'), '{}') AS final_events,
      (SELECT count(*)::int FROM sandbox_provider_charges s WHERE s.idempotency_key = o.id) AS books,
      (SELECT s.outcome FROM sandbox_provider_charges s WHERE s.idempotency_key = o.id) AS books_outcome,
      (SELECT s.provider_reference FROM sandbox_provider_charges s WHERE s.idempotency_key = o.id) AS books_reference
    FROM outflows o WHERE o.id IN (${sql.join(ids)})`.execute(setup.db.db);
  return new Map(result.rows.map((r) => [r.id, r]));
}

/**
 * Sends per outflow, from the server's log as it streams (server.output() keeps only its first
 * 256 KiB, which the full profile's fault lines outgrow): each failed send of a fault number logs
 * one line naming the outflow.
 */
function countSends(setup: Setup): Map<string, number> {
  const sends = new Map<string, number>();
  for (const stream of [setup.server.child.stdout, setup.server.child.stderr]) {
    let partial = '';
    stream?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.includes('provider call failed')) continue;
        try {
          const entry = JSON.parse(line) as { outflow_id?: string };
          if (entry.outflow_id) sends.set(entry.outflow_id, (sends.get(entry.outflow_id) ?? 0) + 1);
        } catch {
          /* not a log line */
        }
      }
    });
  }
  return sends;
}

export const providerFaultsOutflows: Scenario = {
  name: 'provider-faults-outflows',
  async run(profile: Profile): Promise<ScenarioResult> {
    const p = PROFILES[profile];
    const figures: Figures = emptyFigures();
    const details: Record<string, unknown> = { perCase: p.perCase, providerTimeoutMs: PROVIDER_TIMEOUT_MS };
    const problems: string[] = [];
    const problem = (message: string) => {
      if (problems.length < 12) problems.push(message);
    };
    const cleanups = new Cleanups();
    try {
      const setup = await setUp(cleanups, { PURSE_PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS), PURSE_SANDBOX_DELAY_MS: '200' });
      const sends = countSends(setup);
      const http = new Http(setup.server.base);
      const headers = { ...setup.auth, 'content-type': 'application/json' };
      const post = (path: string, body: unknown) => http.send('POST', path, JSON.stringify(body), headers);
      const runId = `pfo-${Date.now().toString(36)}`;

      // Funds: a card payment (succeeded at once). Refundable: mobile-money payments on the fault
      // numbers themselves (the refund goes back to the paying phone), settled by the worker's poll.
      const funds = await post('/v1/payments', {
        reference: `${runId}-funds`,
        amount: '10000.00',
        currency: 'KES',
        payment_method: { type: 'card', card: CARD_OK },
      });
      if (funds.status !== 201 || funds.body.status !== 'succeeded') throw new Error(`funding payment: ${funds.status}`);
      const suffixes = ['090', '092'] as const;
      const refundable = new Map<string, string>();
      await parallel(
        suffixes.flatMap((s) => range(p.perCase).map((i) => [s, i] as const)),
        p.concurrency,
        async ([suffix, i]) => {
          const res = await post('/v1/payments', mobilePayment(`${runId}-pay-${suffix}`, i, suffix));
          if (res.status !== 201) throw new Error(`refundable payment: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
          refundable.set(`${suffix}-${i}`, res.body.id);
        },
      );
      const deadline = Date.now() + SETTLE_TIMEOUT_MS;
      for (;;) {
        const r = await sql<{ n: string }>`
          SELECT count(*)::text AS n FROM charges WHERE id IN (${sql.join([...refundable.values()])}) AND status = 'succeeded'`.execute(
          setup.db.db,
        );
        if (Number(r.rows[0]!.n) === refundable.size) break;
        if (Date.now() > deadline) throw new Error(`refundable payments not all succeeded: ${r.rows[0]!.n} of ${refundable.size}`);
        await sleep(200);
      }

      const ids: string[] = [];
      const caseOf = new Map<string, string>();
      const createMs: number[] = [];
      const cases = (['payout', 'refund'] as const).flatMap((kind) =>
        suffixes.flatMap((s) => range(p.perCase).map((i) => ({ kind, s, i }))),
      );
      await parallel(cases, p.concurrency, async ({ kind, s, i }) => {
        const name = `${kind} ${s}`;
        const reference = `${runId}-${kind}-${s}-${i}`;
        const body =
          kind === 'payout'
            ? {
                reference,
                amount: '5.00',
                currency: 'KES',
                destination: {
                  type: 'mobile_money',
                  mobile_money: { phone_number: mobilePayment('x', i, s).payment_method.mobile_money.phone_number },
                },
              }
            : { reference, payment_id: refundable.get(`${s}-${i}`), amount: '5.00' };
        const path = kind === 'payout' ? '/v1/payouts' : '/v1/refunds';
        const started = Date.now();
        const res = await post(path, body);
        createMs.push(Date.now() - started);
        if (res.status !== 201 || res.body.status !== 'pending') {
          problem(`${name}: create answered ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
          if (res.status !== 201) return;
        }
        ids.push(res.body.id);
        caseOf.set(res.body.id, name);
        if (i % 2 === 1) return;
        const retry = await post(path, body);
        if (retry.status !== 200 || retry.body.id !== res.body.id) {
          if (retry.status >= 200 && retry.status < 300) figures.duplicates++;
          problem(`${name}: retry answered ${retry.status} ${retry.body?.id} for ${res.body.id}`);
        }
      });

      const settleStarted = Date.now();
      let states = await outflowStates(setup, ids);
      while ([...states.values()].some((s) => s.status === 'pending') && Date.now() - settleStarted < SETTLE_TIMEOUT_MS) {
        await sleep(200);
        states = await outflowStates(setup, ids);
      }
      const settleMs = Date.now() - settleStarted;
      const sendCounts: Record<string, number> = {};
      for (const id of ids) {
        const s = states.get(id);
        const name = caseOf.get(id)!;
        const sent = sends.get(id) ?? 0;
        sendCounts[String(sent)] = (sendCounts[String(sent)] ?? 0) + 1;
        if (!s) {
          figures.lost++;
          problem(`${name}: ${id} is missing`);
          continue;
        }
        if (s.status === 'pending') {
          figures.unresolved++;
          continue;
        }
        if (s.finals > 1 || s.holds > 1 || s.final_events.length > 1 || s.books > 1 || sent > 1) {
          figures.duplicates++;
          problem(
            `${name}: ${id} sent ${sent} times, ${s.books} provider requests, ${s.holds} holds, ${s.finals} final postings, events ${s.final_events.join(',')}`,
          );
        }
        if (s.created_events !== 1 || s.final_events.length === 0) figures.eventsMissing++;
        if (s.status !== 'succeeded' || s.books_outcome !== 'succeeded')
          problem(`${name}: ${id} is ${s.status}/${s.failure_code}, the provider's books ${s.books_outcome}`);
        if (s.books === 0 || sent === 0) problem(`${name}: ${id} with ${s.books} provider requests and ${sent} sends logged`);
        if (s.status === 'succeeded' && s.provider_reference !== s.books_reference)
          problem(`${name}: ${id} provider_reference ${s.provider_reference} is not the books' ${s.books_reference}`);
      }
      const report = await verifyLedger(setup.db.db);
      figures.ledgerImbalance =
        report.unbalanced.length +
        report.walletMismatches.length +
        report.negativeWallets.length +
        report.chargePostingMismatches.length +
        report.fundsMismatches.length +
        report.overRefunded.length +
        report.outflowPostingMismatches.length;
      const balance = await http.send('GET', '/v1/balance', undefined, setup.auth);
      const reserved = (balance.body?.reserved as { currency: string; amount: string }[] | undefined)?.find((b) => b.currency === 'KES');
      if (balance.status !== 200 || (reserved && Number(reserved.amount) !== 0)) {
        figures.ledgerImbalance++;
        problem(`balance after settling: ${balance.status} reserved ${JSON.stringify(reserved)}`);
      }
      figures.requests = http.requests;
      figures.acknowledged = Object.entries(http.statuses).reduce((sum, [status, count]) => sum + (Number(status) < 300 ? count : 0), 0);
      figures.unexpected5xx = http.unexpected5xx;
      const serverErrors = setup.server
        .output()
        .split('\n')
        .filter((line) => /"level":(50|60)/.test(line));
      if (serverErrors.length > 0) problem(`server logged ${serverErrors.length} errors, first: ${serverErrors[0]!.slice(0, 300)}`);
      Object.assign(details, {
        outflows: ids.length,
        sendsPerOutflow: sendCounts,
        createMsP50: percentile(createMs, 50),
        createMsMax: percentile(createMs, 100),
        settleSeconds: Math.round(settleMs / 100) / 10,
        statuses: http.statuses,
        ledger: { transactions: report.transactions, entries: report.entries },
      });
    } catch (error) {
      recordFailure(problems, details, error);
    } finally {
      problems.push(...(await cleanups.run()));
    }
    return { name: 'provider-faults-outflows', figures, details, problems };
  },
};
