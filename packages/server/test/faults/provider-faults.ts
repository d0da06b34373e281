// `provider-faults`: one server with the fault-injecting sandbox (PURSE_SANDBOX_FAULTS=true) on a
// fresh PostgreSQL database; the test acts as the provider, writing its books and sending signed
// callbacks. Callbacks are hints: Purse asks the provider's status and applies that. Cases, each
// over many charges: timeout after processing, duplicate callbacks, failure after success, a
// callback claiming what the books do not say, no callback ever, late success after expiry,
// forged callbacks. Every charge ends as the provider's books say, with at most one posting and
// one final event; a final state never flips; contradictions confirmed by the books are kept in
// late_outcome; forgeries are 401 and change nothing; the ledger is balanced.
import type { SandboxCallbackBody } from '../../src/connectors/sandbox/callbacks.ts';
import { isHealthy, verifyLedger } from '../../src/ledger/verify.ts';
import { eventually, parallel } from '../helpers/processes.ts';
import { emptyFigures, type Figures, type Profile, type Scenario, type ScenarioResult } from './figures.ts';
import {
  type ChargeState,
  Cleanups,
  chargeStates,
  Http,
  mobilePayment,
  Provider,
  percentile,
  type Setup,
  setUp,
  waitFinal,
} from './provider-faults-support.ts';

const PROFILES = { short: { perCase: 20, concurrency: 10 }, full: { perCase: 200, concurrency: 32 } } as const;
const PROVIDER_TIMEOUT_MS = 300;
// Long enough that a charge of the other cases is always settled by its callback before it expires.
const EXPIRY_S = 20;
const SETTLE_TIMEOUT_MS = EXPIRY_S * 1000 + 30_000;

interface Expect {
  status: 'succeeded' | 'failed';
  failureCode: string | null;
  /** What late_outcome must hold: the contradicting status, or nothing. */
  late: 'succeeded' | 'failed' | null;
  /** The provider's books at the end. */
  books: 'succeeded' | 'failed' | 'pending';
  /** Failed by expiry: not before expires_at. */
  expired?: boolean;
}

interface Context {
  setup: Setup;
  http: Http;
  provider: Provider;
  runId: string;
  concurrency: number;
  expectations: Map<string, Expect & { case: string }>;
  problems: string[];
  /** The first final state seen per charge; any later difference is a flip. */
  firstFinal: Map<string, string>;
  flips: number;
  forgedAccepted: number;
}

const finalKey = (s: ChargeState) => `${s.status}/${s.failure_code}/${s.completed_at?.toISOString()}`;

function observe(ctx: Context, states: Map<string, ChargeState>): void {
  for (const s of states.values()) {
    if (s.status === 'pending') continue;
    const seen = ctx.firstFinal.get(s.id);
    if (seen === undefined) ctx.firstFinal.set(s.id, finalKey(s));
    else if (seen !== finalKey(s)) {
      ctx.flips++;
      ctx.problems.push(`${s.id} flipped from ${seen} to ${finalKey(s)}`);
    }
  }
}

function problem(ctx: Context, caseName: string, message: string): void {
  if (ctx.problems.filter((p) => p.startsWith(caseName)).length < 5) ctx.problems.push(`${caseName}: ${message}`);
}

async function createPayment(ctx: Context, body: object): Promise<{ status: number; body: any }> {
  return ctx.http.send('POST', '/v1/payments', JSON.stringify(body), { ...ctx.setup.auth, 'content-type': 'application/json' });
}

/** A pending mobile-money payment, or null (reported) when the create did not answer 201 pending. */
async function pendingPayment(
  ctx: Context,
  caseName: string,
  i: number,
  suffix: string,
): Promise<{ id: string; provider_reference: string } | null> {
  const res = await createPayment(ctx, mobilePayment(`${ctx.runId}-${caseName}`, i, suffix));
  if (res.status !== 201 || res.body.status !== 'pending') {
    problem(ctx, caseName, `create answered ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    return null;
  }
  return res.body;
}

const success = (id: string, providerReference: string): SandboxCallbackBody => ({
  idempotency_key: id,
  provider_reference: providerReference,
  status: 'succeeded',
});
const failure = (
  id: string,
  providerReference: string,
  code: 'payer_declined' | 'insufficient_funds' = 'payer_declined',
): SandboxCallbackBody => ({
  idempotency_key: id,
  provider_reference: providerReference,
  status: 'failed',
  failure_code: code,
});

function expectCallbacks(ctx: Context, caseName: string, statuses: number[]): void {
  const bad = statuses.filter((s) => s !== 200);
  if (bad.length > 0) problem(ctx, caseName, `callbacks answered ${bad.join(',')} instead of 200`);
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/**
 * The provider processes the request, then its answer is lost (090: the caller times out) or the
 * connection drops (092). Variants by i % 4: 090 and 092 followed by a client retry (the replay
 * asks the provider first); 090 with the provider's callback arriving while the create still
 * waits; 090 left to the worker's status poll alone. Every one: pending (never failed), then
 * succeeded once, with the provider's reference and no second provider charge.
 */
async function timeoutAfterProcessing(ctx: Context, n: number): Promise<Record<string, unknown>> {
  const name = 'timeout';
  const createMs: number[] = [];
  const ids: string[] = [];
  const variants = ['090 + retry', '092 + retry', '090 + callback during the call', '090, worker only'];
  const perVariant: Record<string, number> = {};
  await parallel(range(n), ctx.concurrency, async (i) => {
    const variant = i % 4;
    const body = mobilePayment(`${ctx.runId}-${name}`, i, variant === 1 ? '092' : '090');
    const started = Date.now();
    const creating = createPayment(ctx, body);
    if (variant === 2) {
      // As the provider: the request is in its books; it settles and calls back before Purse hears its answer.
      const id = await eventually(`charge ${body.reference} in the books`, async () => {
        const row = await ctx.setup.db.db.selectFrom('charges').select('id').where('reference', '=', body.reference).executeTakeFirst();
        return row && (await ctx.provider.books(row.id)).length > 0 ? row.id : null;
      });
      const reference = await ctx.provider.settle(id, 'succeeded');
      expectCallbacks(ctx, name, [await ctx.provider.callback(success(id, reference))]);
    }
    const res = await creating;
    createMs.push(Date.now() - started);
    const okStatus = variant === 2 ? ['pending', 'succeeded'] : ['pending'];
    if (res.status !== 201 || !okStatus.includes(res.body.status) || (variant !== 2 && res.body.provider_reference !== null)) {
      problem(ctx, name, `create (${variants[variant]}) answered ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      if (res.status !== 201) return;
    }
    ids.push(res.body.id);
    perVariant[variants[variant]!] = (perVariant[variants[variant]!] ?? 0) + 1;
    ctx.expectations.set(res.body.id, { case: name, status: 'succeeded', failureCode: null, late: null, books: 'succeeded' });
    if (variant > 1) return;
    const retry = await createPayment(ctx, body);
    if (retry.status !== 200 || retry.body.id !== res.body.id)
      problem(ctx, name, `retry answered ${retry.status} ${retry.body?.id} for ${res.body.id}`);
  });
  const started = Date.now();
  observe(ctx, await waitFinal(ctx.setup.db, ids, SETTLE_TIMEOUT_MS));
  return {
    charges: ids.length,
    perVariant,
    createMsP50: percentile(createMs, 50),
    createMsMax: percentile(createMs, 100),
    settleWaitMs: Date.now() - started,
  };
}

/** The same callback 2–5 times, concurrently for half of the charges; a quarter are failures. */
async function duplicateCallbacks(ctx: Context, n: number): Promise<Record<string, unknown>> {
  const name = 'duplicates';
  let callbacks = 0;
  const ids: string[] = [];
  await parallel(range(n), ctx.concurrency, async (i) => {
    // …000 also settles by itself after the delay: the worker's poll races the callbacks.
    const payment = await pendingPayment(ctx, name, i, i % 2 === 0 ? '000' : '005');
    if (!payment) return;
    ids.push(payment.id);
    const fails = i % 4 === 3;
    const reference = await ctx.provider.settle(payment.id, fails ? 'failed' : 'succeeded', fails ? 'insufficient_funds' : null);
    const body = fails ? failure(payment.id, reference, 'insufficient_funds') : success(payment.id, reference);
    ctx.expectations.set(payment.id, {
      case: name,
      status: body.status,
      failureCode: fails ? 'insufficient_funds' : null,
      late: null,
      books: body.status,
    });
    const copies = 2 + (i % 4);
    callbacks += copies;
    const statuses =
      i % 2 === 0
        ? await Promise.all(range(copies).map(() => ctx.provider.callback(body)))
        : await (async () => {
            const out: number[] = [];
            for (let k = 0; k < copies; k++) out.push(await ctx.provider.callback(body));
            return out;
          })();
    expectCallbacks(ctx, name, statuses);
  });
  observe(ctx, await waitFinal(ctx.setup.db, ids, SETTLE_TIMEOUT_MS));
  return { charges: ids.length, callbacks };
}

/**
 * A success callback; a failure callback while the books still say succeeded (changes nothing);
 * then the provider reverses it in its books and calls back once or twice: stays succeeded, the
 * confirmed failure kept in late_outcome.
 */
async function failureAfterSuccess(ctx: Context, n: number): Promise<Record<string, unknown>> {
  const name = 'failure-after-success';
  const ids: string[] = [];
  await parallel(range(n), ctx.concurrency, async (i) => {
    const payment = await pendingPayment(ctx, name, i, '005');
    if (!payment) return;
    ids.push(payment.id);
    ctx.expectations.set(payment.id, { case: name, status: 'succeeded', failureCode: null, late: 'failed', books: 'failed' });
    const reference = await ctx.provider.settle(payment.id, 'succeeded');
    expectCallbacks(ctx, name, [await ctx.provider.callback(success(payment.id, reference))]);
    observe(ctx, await chargeStates(ctx.setup.db, [payment.id]));
    expectCallbacks(ctx, name, [await ctx.provider.callback(failure(payment.id, reference))]);
    const unconfirmed = (await chargeStates(ctx.setup.db, [payment.id])).get(payment.id)!;
    if (unconfirmed.late_outcome !== null) problem(ctx, name, `${payment.id} kept a failure the books never said`);
    await ctx.provider.settle(payment.id, 'failed', 'payer_declined');
    const late = [await ctx.provider.callback(failure(payment.id, reference))];
    if (i % 2 === 0) late.push(await ctx.provider.callback(failure(payment.id, reference)));
    expectCallbacks(ctx, name, late);
  });
  observe(ctx, await waitFinal(ctx.setup.db, ids, SETTLE_TIMEOUT_MS));
  return { charges: ids.length };
}

/**
 * Callbacks claiming what the provider's books do not say. A success claimed while the books are
 * pending changes nothing; then the books settle failed and a success is claimed again (half of
 * the charges) or the matching failure arrives: failed with the books' code, no posting, nothing
 * kept in late_outcome.
 */
async function claimsAgainstBooks(ctx: Context, n: number): Promise<Record<string, unknown>> {
  const name = 'claims-against-books';
  const ids: string[] = [];
  let unchangedWhilePending = 0;
  await parallel(range(n), ctx.concurrency, async (i) => {
    const payment = await pendingPayment(ctx, name, i, '005');
    if (!payment) return;
    ids.push(payment.id);
    ctx.expectations.set(payment.id, { case: name, status: 'failed', failureCode: 'insufficient_funds', late: null, books: 'failed' });
    const claimed = success(payment.id, payment.provider_reference);
    expectCallbacks(ctx, name, [await ctx.provider.callback(claimed)]);
    const state = (await chargeStates(ctx.setup.db, [payment.id])).get(payment.id)!;
    if (state.status === 'pending' && state.postings === 0 && state.final_events.length === 0) unchangedWhilePending++;
    else problem(ctx, name, `a success claimed against pending books changed ${payment.id}: ${JSON.stringify(state)}`);
    const reference = await ctx.provider.settle(payment.id, 'failed', 'insufficient_funds');
    const body = i % 2 === 0 ? success(payment.id, reference) : failure(payment.id, reference, 'insufficient_funds');
    expectCallbacks(ctx, name, [await ctx.provider.callback(body)]);
  });
  observe(ctx, await waitFinal(ctx.setup.db, ids, SETTLE_TIMEOUT_MS));
  return { charges: ids.length, unchangedWhilePending };
}

/** What a case that waits for expires_at does once the other cases have run. */
type Finish = () => Promise<Record<string, unknown>>;

/** 091 (answer lost, never settles) and 005 (never settles): failed expired at expires_at, nothing else. */
async function noCallbackEver(ctx: Context, n: number): Promise<Finish> {
  const name = 'no-callback';
  const ids: string[] = [];
  await parallel(range(n), ctx.concurrency, async (i) => {
    const payment = await pendingPayment(ctx, name, i, i % 2 === 0 ? '091' : '005');
    if (!payment) return;
    ids.push(payment.id);
    ctx.expectations.set(payment.id, { case: name, status: 'failed', failureCode: 'expired', late: null, books: 'pending', expired: true });
  });
  return async () => {
    const states = await waitFinal(ctx.setup.db, ids, SETTLE_TIMEOUT_MS);
    observe(ctx, states);
    const lateByMs = [...states.values()]
      .filter((s) => s.completed_at && s.expires_at)
      .map((s) => s.completed_at!.getTime() - s.expires_at!.getTime());
    return {
      charges: ids.length,
      expiredAfterExpiresAtMsP50: percentile(lateByMs, 50),
      expiredAfterExpiresAtMsMax: percentile(lateByMs, 100),
    };
  };
}

/** Expired first; then the provider settles succeeded and calls back (1–3 times): stays failed, the success kept. */
async function lateSuccessAfterExpiry(ctx: Context, n: number): Promise<Finish> {
  const name = 'late-success';
  const ids: string[] = [];
  await parallel(range(n), ctx.concurrency, async (i) => {
    const payment = await pendingPayment(ctx, name, i, '005');
    if (!payment) return;
    ids.push(payment.id);
    ctx.expectations.set(payment.id, {
      case: name,
      status: 'failed',
      failureCode: 'expired',
      late: 'succeeded',
      books: 'succeeded',
      expired: true,
    });
  });
  return async () => {
    const expired = await waitFinal(ctx.setup.db, ids, SETTLE_TIMEOUT_MS);
    observe(ctx, expired);
    let callbacks = 0;
    await parallel(ids, ctx.concurrency, async (id, i) => {
      if (expired.get(id)?.status === 'pending') return; // reported as unresolved at the end
      const reference = await ctx.provider.settle(id, 'succeeded');
      const statuses: number[] = [];
      for (let k = 0; k <= i % 3; k++) statuses.push(await ctx.provider.callback(success(id, reference)));
      callbacks += statuses.length;
      expectCallbacks(ctx, name, statuses);
    });
    observe(ctx, await chargeStates(ctx.setup.db, ids));
    return { charges: ids.length, lateCallbacks: callbacks };
  };
}

/** Six forgeries per pending charge: all 401, nothing changed; then the real callback settles it. */
async function forgedCallbacks(ctx: Context, n: number): Promise<Record<string, unknown>> {
  const name = 'forged';
  const ids: string[] = [];
  let forgeries = 0;
  let changed = 0;
  await parallel(range(n), ctx.concurrency, async (i) => {
    const payment = await pendingPayment(ctx, name, i, '005');
    if (!payment) return;
    ids.push(payment.id);
    ctx.expectations.set(payment.id, { case: name, status: 'failed', failureCode: 'payer_declined', late: null, books: 'failed' });
    const forged = success(payment.id, payment.provider_reference);
    const statuses = await ctx.provider.forgeries(forged, success(ids[0]!, 'sbx_other'));
    forgeries += statuses.length;
    for (const s of statuses) if (s !== 401) ctx.forgedAccepted++;
    const state = (await chargeStates(ctx.setup.db, [payment.id])).get(payment.id)!;
    if (state.status !== 'pending' || state.late_outcome !== null || state.final_events.length > 0 || state.postings > 0) {
      changed++;
      problem(ctx, name, `a forgery changed ${payment.id}: ${JSON.stringify(state)}`);
    }
    const reference = await ctx.provider.settle(payment.id, 'failed', 'payer_declined');
    expectCallbacks(ctx, name, [await ctx.provider.callback(failure(payment.id, reference))]);
  });
  observe(ctx, await waitFinal(ctx.setup.db, ids, SETTLE_TIMEOUT_MS));
  return { charges: ids.length, forgeries, refused: forgeries - ctx.forgedAccepted, changedByForgery: changed };
}

/** Each charge against its expectation and the provider's books; the figures of the whole run. */
async function verify(ctx: Context, figures: Figures): Promise<Record<string, unknown>> {
  const states = await chargeStates(ctx.setup.db, [...ctx.expectations.keys()]);
  observe(ctx, states);
  const mismatches: Record<string, number> = {};
  for (const [id, expect] of ctx.expectations) {
    const s = states.get(id);
    const wrong = (what: string) => {
      mismatches[expect.case] = (mismatches[expect.case] ?? 0) + 1;
      problem(ctx, expect.case, `${id} ${what}`);
    };
    if (!s) {
      wrong('is missing');
      continue;
    }
    if (s.status === 'pending') {
      figures.unresolved++;
      continue;
    }
    if (s.postings > 1) figures.duplicates++;
    if (s.final_events.length > 1) figures.duplicates++;
    if (s.final_events.length === 0 || s.created_events !== 1) figures.eventsMissing++;
    if (s.final_events.some((type) => type !== `payment.${s.status}`)) wrong(`has events ${s.final_events.join(',')} but is ${s.status}`);
    if (s.status !== expect.status || s.failure_code !== expect.failureCode)
      wrong(`is ${s.status}/${s.failure_code}, expected ${expect.status}/${expect.failureCode}`);
    if ((s.late_outcome?.status ?? null) !== expect.late) wrong(`late_outcome ${JSON.stringify(s.late_outcome)}, expected ${expect.late}`);
    if (s.late_events !== (s.late_outcome === null ? 0 : 1))
      wrong(`has ${s.late_events} late_outcome events for late_outcome ${JSON.stringify(s.late_outcome)}`);
    if (s.books !== 1) wrong(`has ${s.books} provider charges`);
    if (s.books_outcome !== expect.books) wrong(`provider books say ${s.books_outcome}, expected ${expect.books}`);
    if (s.status === 'succeeded' && s.provider_reference !== s.books_reference)
      wrong(`provider_reference ${s.provider_reference} is not the books' ${s.books_reference}`);
    if ((s.status === 'succeeded') !== (s.postings === 1)) wrong(`${s.status} with ${s.postings} postings`);
    if (expect.expired && s.completed_at! < s.expires_at!)
      wrong(`expired at ${s.completed_at?.toISOString()}, before expires_at ${s.expires_at?.toISOString()}`);
  }
  const report = await verifyLedger(ctx.setup.db.db);
  if (!isHealthy(report)) {
    figures.ledgerImbalance +=
      report.unbalanced.length + report.walletMismatches.length + report.negativeWallets.length + report.chargePostingMismatches.length;
  }
  return {
    charges: states.size,
    mismatches,
    flips: ctx.flips,
    ledger: { transactions: report.transactions, entries: report.entries, healthy: isHealthy(report) },
  };
}

export const providerFaults: Scenario = {
  name: 'provider-faults',
  async run(profile: Profile): Promise<ScenarioResult> {
    const p = PROFILES[profile];
    const figures = emptyFigures();
    const details: Record<string, unknown> = { perCase: p.perCase, providerTimeoutMs: PROVIDER_TIMEOUT_MS, expiryS: EXPIRY_S };
    const cleanups = new Cleanups();
    const problems: string[] = [];
    try {
      const setup = await setUp(cleanups, {
        PURSE_PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS),
        PURSE_MOBILE_MONEY_EXPIRY_S: String(EXPIRY_S),
        PURSE_SANDBOX_DELAY_MS: '200',
      });
      const http = new Http(setup.server.base);
      const ctx: Context = {
        setup,
        http,
        provider: new Provider(setup, http),
        runId: `pf-${Date.now().toString(36)}`,
        concurrency: p.concurrency,
        expectations: new Map(),
        problems,
        firstFinal: new Map(),
        flips: 0,
        forgedAccepted: 0,
      };
      const timed = async (key: string, run: () => Promise<Record<string, unknown>>) => {
        const before = http.requests;
        const started = Date.now();
        const caseDetails = await run();
        details[key] = { ...caseDetails, requests: http.requests - before, ms: Date.now() - started };
      };
      // The charges that must reach expires_at first; the other cases run while they wait.
      const finishNoCallback = await noCallbackEver(ctx, p.perCase);
      const finishLateSuccess = await lateSuccessAfterExpiry(ctx, p.perCase);
      await timed('timeout', () => timeoutAfterProcessing(ctx, p.perCase));
      await timed('duplicates', () => duplicateCallbacks(ctx, p.perCase));
      await timed('failureAfterSuccess', () => failureAfterSuccess(ctx, p.perCase));
      await timed('claimsAgainstBooks', () => claimsAgainstBooks(ctx, p.perCase));
      await timed('forged', () => forgedCallbacks(ctx, p.perCase));
      await timed('noCallback', finishNoCallback);
      await timed('lateSuccess', finishLateSuccess);
      details.verify = await verify(ctx, figures);
      figures.requests = http.requests;
      figures.acknowledged = Object.entries(http.statuses).reduce((sum, [status, count]) => sum + (Number(status) < 300 ? count : 0), 0);
      figures.unexpected5xx = http.unexpected5xx;
      // The closest figure for a forged provider signature accepted: a forged credential accepted.
      figures.forgedTokensAccepted = ctx.forgedAccepted;
      details.statuses = http.statuses;
      if (ctx.flips > 0) problems.push(`${ctx.flips} final states flipped`);
      const serverErrors = setup.server
        .output()
        .split('\n')
        .filter((line) => /"level":(50|60)/.test(line));
      details.serverErrorLines = serverErrors.length;
      if (serverErrors.length > 0) problems.push(`server logged ${serverErrors.length} errors, first: ${serverErrors[0]!.slice(0, 300)}`);
    } finally {
      await cleanups.run();
    }
    return { name: 'provider-faults', figures, details, problems };
  },
};
