// `provider-card`: a live merchant's card payments through the real acquirer connector, against
// the fake acquirer (Stripe's PaymentIntents API, test/fakes/acquirer.ts) over HTTP, with a
// spawned server on the machine's PostgreSQL and the acquirer's webhooks sent to it. Automatic
// payments, manual ones captured afterwards, one decline per phase, and refunds. Each fault in
// turn: answers lost after the acquirer acted (authorise, capture, refund), 500s before and after
// it acted (after: saved under the idempotency key, as Stripe saves them), lost answers with no webhook
// at all, webhooks twice and out of order, and kill -9 of the server while the acquirer holds its
// answer to an authorisation or a capture it is about to make. Then, from the clients'
// acknowledgements and the acquirer's own records (provider-card-checks.ts):
//   - nothing lost: every acknowledged payment is there, in its acknowledged state or a later one;
//   - every state is the acquirer's (no intent at the acquirer → never succeeded);
//   - exactly one authorisation per Purse payment, at most one capture, one refund per refund;
//   - one posting each, the ledger balanced, one created and one final event, no 5xx.

import { deriveHashKey } from '../../src/deps.ts';
import { createMerchantService } from '../../src/merchants/service.ts';
import { systemClock } from '../../src/shared/clock.ts';
import {
  type Endpoint,
  type FakeAcquirer,
  type FaultKind,
  fakeAcquirerEnv,
  startFakeAcquirer,
  type WebhookMode,
} from '../fakes/acquirer.ts';
import { freePort, parallel, type SpawnedServer, sleep, spawnServer, tokenFor, waitReady } from '../helpers/processes.ts';
import { Cleanups, durabilityEnv, FAULT_SECRET_KEY, type openDb, recordFailure, scenarioDatabase } from './durability.ts';
import { emptyFigures, type Profile, type Scenario, type ScenarioResult } from './figures.ts';
import { type Acked, checkCards, paymentStates } from './provider-card-checks.ts';
import { Http } from './provider-faults-support.ts';

const PROFILES = {
  short: { automatic: 3, manual: 2, refunds: 4 },
  full: { automatic: 12, manual: 8, refunds: 16 },
} as const;

interface Phase {
  name: string;
  /** Armed on create_intent for this phase's authorisations. */
  authorise?: FaultKind[];
  /** Armed on capture_intent for this phase's captures. */
  capture?: FaultKind[];
  webhooks?: WebhookMode;
  /** kill -9 while the acquirer holds its answer to these calls. */
  kill?: 'authorise' | 'capture';
}

const PHASES: Phase[] = [
  { name: 'none' },
  { name: 'lost answers', authorise: ['lose_answer'], capture: ['lose_answer'] },
  { name: 'lost answers, no webhook', authorise: ['lose_answer', 'drop_webhooks'], capture: ['lose_answer', 'drop_webhooks'] },
  { name: '500 before', authorise: ['error_500_before'] },
  { name: '500 after', authorise: ['error_500_after'], capture: ['error_500_after'] },
  { name: 'webhooks twice', webhooks: 'twice' },
  { name: 'webhooks out of order', webhooks: 'out_of_order' },
  { name: 'kill while authorising', authorise: ['slow'], kill: 'authorise' },
  { name: 'kill while capturing', capture: ['slow'], kill: 'capture' },
  // A capture made and answered with a 500 kept under its key: the worker reads the intent first.
  { name: 'capture 500 after, no webhook', authorise: ['drop_webhooks'], capture: ['error_500_after', 'drop_webhooks'] },
  // A 500 kept under the key before the acquirer acted: the next attempt goes out under a renewed key.
  { name: 'capture 500 before', capture: ['error_500_before'] },
];

/** How long the acquirer holds a slow answer: the server is killed meanwhile (its own timeout is longer). */
const HOLD_MS = 4_000;
const SETTLE_TIMEOUT_MS = 60_000;
const CARD = { exp_month: 12, exp_year: 2035, cvc: '123' };
const OK = '4242424242424242';
const DECLINED = '4000000000000002';

/** What the phases share: the servers, the clients' records, the fake. */
class Run {
  readonly acked = new Map<string, Acked>();
  readonly refunds: { id: string; paymentId: string; status: string }[] = [];
  readonly problems: string[] = [];
  kills = 0;
  private seq = 0;
  private readonly runId = `card-${Date.now().toString(36)}`;

  constructor(
    readonly fake: FakeAcquirer,
    readonly db: ReturnType<typeof openDb>,
    readonly http: Http,
    readonly headers: Record<string, string>,
    private server: SpawnedServer,
    private readonly restart: () => Promise<SpawnedServer>,
  ) {}

  get last(): SpawnedServer {
    return this.server;
  }

  ref(): string {
    return `${this.runId}-${this.seq++}`;
  }

  /** The same request until a 2xx, as a merchant's client does (connection errors while the server is down included). */
  async send(path: string, body: Record<string, unknown>, what: string): Promise<{ id: string; status: string } | null> {
    const deadline = Date.now() + 90_000;
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      try {
        const res = await this.http.send('POST', path, JSON.stringify(body), this.headers);
        if (res.status === 200 || res.status === 201) return { id: res.body.id, status: res.body.status };
        if (res.status < 500 && res.status !== 429) {
          this.problems.push(`${what}: refused ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
          return null;
        }
      } catch {
        // The server is down (killed): try again.
      }
      await sleep(Math.min(1000, 50 * 2 ** attempt));
    }
    this.problems.push(`${what} never acknowledged`);
    return null;
  }

  async pay(phase: string, capture: 'automatic' | 'manual', number: string): Promise<void> {
    const reference = this.ref();
    const body = {
      reference,
      amount: '100.00',
      currency: 'KES',
      capture_method: capture,
      payment_method: { type: 'card', card: { number, ...CARD } },
    };
    const ack = await this.send('/v1/payments', body, `${phase}: payment ${reference}`);
    if (ack)
      this.acked.set(ack.id, { id: ack.id, phase, body, manual: capture === 'manual', declined: number === DECLINED, status: ack.status });
  }

  async capture(a: Acked): Promise<void> {
    const ack = await this.send(`/v1/payments/${a.id}/capture`, {}, `${a.phase}: capture of ${a.id}`);
    if (ack) {
      a.captureAcked = ack.status;
      a.status = ack.status;
    }
  }

  async refund(paymentId: string): Promise<void> {
    const reference = this.ref();
    const ack = await this.send('/v1/refunds', { reference, payment_id: paymentId, amount: '40.00' }, `refund ${reference}`);
    if (ack) this.refunds.push({ id: ack.id, paymentId, status: ack.status });
  }

  /**
   * Runs `load`; with `killOn`, kill -9 of the server once the acquirer holds the phase's calls
   * of that endpoint (or after 3 s), then a new server on the same port; the clients retry.
   */
  async underKill(load: () => Promise<unknown>, killOn: Endpoint | null, calls: number): Promise<void> {
    if (!killOn) return void (await load());
    const before = this.fake.requests.filter((r) => r.endpoint === killOn).length;
    const running = load();
    const until = Date.now() + 3_000;
    while (Date.now() < until && this.fake.requests.filter((r) => r.endpoint === killOn).length - before < calls) await sleep(50);
    await sleep(200);
    if (!this.server.running()) throw new Error(`server ${this.server.pid} died on its own:\n${this.server.output().slice(-2000)}`);
    process.kill(this.server.pid, 'SIGKILL');
    await this.server.exited;
    this.kills++;
    this.server = await this.restart();
    await running;
  }

  /**
   * Waits until the phase's payments leave pending and their captures finish. Like a real client
   * (durability.ts waitSettled), it sends a still-pending payment's request again every 2 s: a
   * card the acquirer never saw can only be sent again by a request that carries it. Captures are
   * not retried after their 2xx: finishing them is Purse's work.
   */
  async settle(phase: string): Promise<void> {
    const mine = [...this.acked.values()].filter((a) => a.phase === phase);
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    let lastRetry = Date.now();
    for (;;) {
      const states = await paymentStates(
        this.db,
        mine.map((a) => a.id),
      );
      const open = mine.filter((a) => {
        const s = states.get(a.id);
        return s !== undefined && (s.status === 'pending' || s.pending_operation !== null);
      });
      if (open.length === 0 || Date.now() > deadline) return;
      if (Date.now() - lastRetry >= 2_000) {
        lastRetry = Date.now();
        const pending = open.filter((a) => states.get(a.id)?.status === 'pending');
        await parallel(pending, 8, (a) => this.send('/v1/payments', a.body, `${phase}: retry of ${a.id}`));
      }
      await sleep(250);
    }
  }
}

function arm(fake: FakeAcquirer, endpoint: Endpoint, kinds: FaultKind[] | undefined, times: number): void {
  // A 500 before acting is a gateway's (not saved under the key): Stripe's saved 500 would keep the
  // key from ever authorising, and the payment would fail processing_error only after 120 s.
  for (const kind of kinds ?? []) fake.inject(endpoint, kind, { times, delayMs: HOLD_MS, remember: kind !== 'error_500_before' });
}

async function runPhase(run: Run, phase: Phase, p: (typeof PROFILES)[Profile]): Promise<void> {
  const { fake } = run;
  fake.webhooks.mode = phase.webhooks ?? 'immediate';
  const payments: ['automatic' | 'manual', string][] = [
    ...Array.from({ length: p.automatic }, () => ['automatic', OK] as ['automatic', string]),
    ...Array.from({ length: p.manual }, () => ['manual', OK] as ['manual', string]),
    ['automatic', DECLINED],
  ];
  arm(fake, 'create_intent', phase.authorise, payments.length);
  await run.underKill(
    () => parallel(payments, payments.length, ([capture, number]) => run.pay(phase.name, capture, number)),
    phase.kill === 'authorise' ? 'create_intent' : null,
    payments.length,
  );
  await run.settle(phase.name);
  fake.clearFaults();
  const states = await paymentStates(
    run.db,
    [...run.acked.values()].filter((a) => a.phase === phase.name).map((a) => a.id),
  );
  const holds = [...run.acked.values()].filter((a) => a.phase === phase.name && states.get(a.id)?.status === 'requires_capture');
  if (holds.length !== p.manual) run.problems.push(`${phase.name}: ${holds.length} holds to capture, ${p.manual} expected`);
  arm(fake, 'capture_intent', phase.capture, holds.length);
  await run.underKill(
    () => parallel(holds, holds.length, (a) => run.capture(a)),
    phase.kill === 'capture' ? 'capture_intent' : null,
    holds.length,
  );
  await run.settle(phase.name);
  fake.clearFaults();
  fake.webhooks.flush();
  fake.webhooks.mode = 'immediate';
}

/** Refunds of succeeded payments, half of them with the acquirer's answer lost; the outflow worker settles them. */
async function runRefunds(run: Run, count: number): Promise<void> {
  const states = await paymentStates(run.db, [...run.acked.keys()]);
  const succeeded = [...run.acked.values()].filter((a) => states.get(a.id)?.status === 'succeeded').slice(0, count);
  run.fake.inject('create_refund', 'lose_answer', { times: Math.ceil(succeeded.length / 2) });
  await parallel(succeeded, succeeded.length, (a) => run.refund(a.id));
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const r = await run.db.db
      .selectFrom('outflows')
      .select('id')
      .where('status', '=', 'pending')
      .where(
        'id',
        'in',
        run.refunds.map((x) => x.id),
      )
      .execute();
    if (r.length === 0) break;
    await sleep(250);
  }
  run.fake.clearFaults();
}

async function start(cleanups: Cleanups, profile: Profile, details: Record<string, unknown>): Promise<Run> {
  const fake = await startFakeAcquirer();
  cleanups.after(() => fake.close());
  const { databaseUrl, db } = await scenarioDatabase(cleanups, `purse_faults_card_${Date.now().toString(36)}`);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  fake.webhooks.url = `${base}/provider-callbacks/acquirer`;
  const env = { ...durabilityEnv(databaseUrl, port), ...fakeAcquirerEnv(fake, base), PURSE_PROVIDER_TIMEOUT_MS: String(HOLD_MS + 3_000) };
  const restarts: number[] = [];
  details.restartSeconds = restarts;
  const restart = async () => {
    const killedAt = Date.now();
    const server = spawnServer(cleanups, env);
    await waitReady(server, 60_000);
    restarts.push(Math.round((Date.now() - killedAt) / 100) / 10);
    return server;
  };
  const server = spawnServer(cleanups, env);
  await waitReady(server, 60_000);
  const merchants = createMerchantService({ db: db.db, clock: systemClock, hashKey: deriveHashKey(FAULT_SECRET_KEY) });
  const created = await merchants.createMerchant({ name: `Live card shop (${profile})`, livemode: true });
  if (!created.ok) throw new Error(created.error);
  await db.db.updateTable('merchants').set({ raw_card_data: true }).where('id', '=', created.value.merchant_id).execute();
  const auth = await tokenFor(server.base, created.value.client_id, created.value.client_secret);
  const http = new Http(server.base);
  return new Run(fake, db, http, { ...auth, 'content-type': 'application/json' }, server, restart);
}

export const providerCard: Scenario = {
  name: 'provider-card',
  // Two kills each wait out the dead process's 15 s lease: about two minutes, past the short profile's budget.
  fullOnly: true,
  async run(profile: Profile): Promise<ScenarioResult> {
    const p = PROFILES[profile];
    const figures = emptyFigures();
    const problems: string[] = [];
    const details: Record<string, unknown> = {};
    const cleanups = new Cleanups();
    try {
      const run = await start(cleanups, profile, details);
      const phaseSeconds: Record<string, number> = {};
      // PURSE_FAULTS_CARD_PHASES=name,name runs only those phases (while working on one fault).
      const only = process.env.PURSE_FAULTS_CARD_PHASES?.split(',');
      for (const phase of only ? PHASES.filter((ph) => only.includes(ph.name)) : PHASES) {
        const started = Date.now();
        await runPhase(run, phase, p);
        phaseSeconds[phase.name] = Math.round((Date.now() - started) / 100) / 10;
      }
      const started = Date.now();
      await runRefunds(run, p.refunds);
      phaseSeconds.refunds = Math.round((Date.now() - started) / 100) / 10;
      await run.fake.webhooks.settled();
      await sleep(500);
      const checked = await checkCards(run.db, run.fake, [...run.acked.values()], run.refunds);
      Object.assign(figures, checked.figures);
      figures.kills = run.kills;
      figures.requests = run.http.requests;
      figures.acknowledged = run.acked.size + run.refunds.length + [...run.acked.values()].filter((a) => a.captureAcked).length;
      figures.unexpected5xx = run.http.unexpected5xx;
      problems.push(...run.problems, ...checked.problems);
      if (!run.last.running()) problems.push(`the last server exited:\n${run.last.output().slice(-2000)}`);
      process.stderr.write(run.fake.requests.map((r) => `${r.method} ${r.path} ${r.idempotencyKey} ${r.status}`).join('\n'));
      Object.assign(details, { byStatus: run.http.statuses, phaseSeconds, ...checked.details });
    } catch (error) {
      recordFailure(problems, details, error);
    } finally {
      problems.push(...(await cleanups.run()));
    }
    return { name: 'provider-card', figures, details, problems };
  },
};
