// Graceful shutdown (docs/money-safety.md rule 1, docs/api.md §11): under load, SIGTERM.
// Every request the server had received completes with its normal answer, new connections are
// refused or answered 503, the process exits by itself (status 0) within 10 s even with open
// connections that never sent a whole request, and nothing acknowledged is missing afterwards.

import { mkdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Deps } from '../../src/deps.ts';
import {
  Cleanup,
  cardPayment,
  createDatabase,
  createMerchant,
  issueToken,
  ledgerImbalance,
  type Merchant,
  newSecretKey,
  operatorDeps,
  parseResponses,
  type RawOutcome,
  rawExchange,
  round,
  type Server,
  sleep,
  startServer,
  summary,
  TMP_DIR,
  trickle,
} from './edge-support.ts';
import { emptyFigures, type Figures, type Profile, type Scenario, type ScenarioResult } from './figures.ts';

interface Call {
  reference: string;
  kind: 'card' | 'wallet' | 'slow';
  startedAt: number;
  /** When the whole request had been handed to the socket. */
  sentAt: number | null;
  answeredAt: number | null;
  status: number | null;
  body: string;
  error: string | null;
}

const CARDS = ['4242424242424242', '5555555555554444', '4000000000000002'];

/** One POST on a keep-alive agent; never throws. */
function post(agent: Agent, port: number, path: string, token: string, body: Record<string, unknown>, kind: Call['kind']): Promise<Call> {
  const call: Call = {
    reference: String(body.reference),
    kind,
    startedAt: Date.now(),
    sentAt: null,
    answeredAt: null,
    status: null,
    body: '',
    error: null,
  };
  const payload = JSON.stringify(body);
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          call.answeredAt = Date.now();
          call.status = res.statusCode ?? null;
          call.body = text;
          resolve(call);
        });
        res.on('error', (error: NodeJS.ErrnoException) => {
          call.error = `response: ${error.code ?? error.message}`;
          resolve(call);
        });
      },
    );
    req.on('finish', () => (call.sentAt = Date.now()));
    req.on('error', (error: NodeJS.ErrnoException) => {
      call.error = error.code ?? error.message;
      resolve(call);
    });
    req.end(payload);
  });
}

/** The body of a raw HTTP/1.1 response (Content-Length framing). */
function rawBody(outcome: RawOutcome): string {
  const at = outcome.response.indexOf('\r\n\r\n');
  return at < 0 ? '' : Buffer.from(outcome.response.slice(at + 4), 'latin1').toString('utf8');
}

/** What every step shares: the figures and what was found wrong. */
interface Ctx {
  profile: Profile;
  figures: Figures;
  problems: string[];
  cleanup: Cleanup;
}

interface Stage {
  deps: Deps;
  merchant: Merchant;
  server: Server;
  token: string;
  walletId: string;
  logFile: string;
}

/** Shared by the load, the held connections and the probes: when the signal went, whether they may go on. */
interface Clock {
  sigtermAt: number;
  exited: boolean;
  /** Set right after SIGTERM: the held requests may finish their bodies. */
  released: boolean;
}

type ProbeResult = { at: number; outcome: string; status: number | null; body: string };
type StoredRow = { id: string; reference: string; status: string };

/** A merchant, the server (logging to a file), a token, and a wallet that covers every wallet payment of the run. */
async function setUp(ctx: Ctx): Promise<Stage> {
  const db = await createDatabase('shutdown', ctx.cleanup);
  const secretKey = newSecretKey();
  const deps = await operatorDeps(db.url, secretKey, ctx.cleanup);
  const merchant = await createMerchant(deps, 'Shutdown merchant');
  mkdirSync(TMP_DIR, { recursive: true });
  const logFile = join(TMP_DIR, `faults-shutdown-${Date.now()}.log`);
  const server = await startServer(ctx.cleanup, { DATABASE_URL: db.url, PURSE_SECRET_KEY: secretKey, LOG_LEVEL: 'info' }, { logFile });
  const token = await issueToken(server.base, merchant);
  const json = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const wallet = (await (
    await fetch(`${server.base}/v1/wallets`, { method: 'POST', headers: json, body: JSON.stringify({ currency: 'KES' }) })
  ).json()) as { id: string };
  const funding = await fetch(`${server.base}/v1/topups`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({
      reference: 'fund',
      amount: '1000000.00',
      currency: 'KES',
      wallet_id: wallet.id,
      source: cardPayment('x').payment_method,
    }),
  });
  if (funding.status !== 201) throw new Error(`funding top-up: ${funding.status} ${await funding.text()}`);
  return { deps, merchant, server, token, walletId: wallet.id, logFile };
}

/** Load: loops of card and wallet payments on keep-alive connections, each ending at its first refusal after the signal. */
function startLoad(stage: Stage, agent: Agent, clock: Clock, concurrency: number): { calls: Call[]; done: Promise<unknown> } {
  const calls: Call[] = [];
  let counter = 0;
  const loop = async (worker: number) => {
    while (!clock.exited) {
      const n = counter++;
      const reference = `sd-${worker}-${n}`;
      const body =
        n % 2 === 0
          ? cardPayment(reference, CARDS[n % CARDS.length], '123', '10.00')
          : { reference, amount: '1.00', currency: 'KES', payment_method: { type: 'wallet', wallet: { wallet_id: stage.walletId } } };
      const call = await post(agent, stage.server.port, '/v1/payments', stage.token, body, n % 2 === 0 ? 'card' : 'wallet');
      calls.push(call);
      // After the signal, a refusal (503, reset, refused) ends this loop.
      if (call.startedAt > clock.sigtermAt && (call.error !== null || call.status === 503)) return;
    }
  };
  return { calls, done: Promise.all(Array.from({ length: concurrency }, (_, i) => loop(i))) };
}

/** A promise resolved when `socket` has received `pattern`. */
function whenReceived(socket: Socket, pattern: RegExp): Promise<void> {
  let seen = '';
  return new Promise<void>((resolve) => {
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('latin1');
      if (pattern.test(seen)) {
        socket.off('data', onData);
        resolve();
      }
    };
    socket.on('data', onData);
  });
}

/** A payment's headers with `Expect: 100-continue`: the server's "100 Continue" says it has read them. */
const continueHead = (token: string, length: number) =>
  `POST /v1/payments HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`;

/** A promise that resolves when the caller says so, and the way to say it. */
function readiness(): { ready: Promise<void>; markReady: () => void } {
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  return { ready, markReady };
}

/**
 * Requests received but not finished at the signal: headers read (100 Continue), half the body
 * sent; the rest is trickled in over ~1.5 s once released. Each is ready when half its body is out.
 */
function holdSlowBodies(stage: Stage, clock: Clock, count: number): { outcomes: Promise<RawOutcome>[]; ready: Promise<void>[] } {
  const ready: Promise<void>[] = [];
  const outcomes = Array.from({ length: count }, (_, i) => {
    const text = JSON.stringify(cardPayment(`sd-slow-${i}`, CARDS[i % 2], '123', '25.00'));
    const gate = readiness();
    ready.push(gate.ready);
    return rawExchange(
      stage.server.port,
      async (socket, state) => {
        const continued = whenReceived(socket, /^HTTP\/1\.1 100 Continue\r\n\r\n/);
        socket.write(continueHead(stage.token, Buffer.byteLength(text)));
        await continued;
        const half = Math.floor(text.length / 2);
        socket.write(text.slice(0, half));
        gate.markReady();
        while (!clock.released) await sleep(10);
        await trickle(socket, state, text.slice(half), 150, Math.ceil((text.length - half) / 10));
      },
      30_000,
      { untilResponse: true },
    );
  });
  return { outcomes, ready };
}

/**
 * A keep-alive connection whose body completes after SIGTERM with a second request pipelined
 * behind it: the first is answered 201; the second, read while draining, gets the documented 503
 * (or the connection closes after the first answer, which HTTP allows).
 */
function holdPipelined(stage: Stage, clock: Clock): { outcome: Promise<RawOutcome>; ready: Promise<void> } {
  const body = JSON.stringify(cardPayment('sd-pipelined', CARDS[0], '123', '30.00'));
  const gate = readiness();
  const outcome = rawExchange(
    stage.server.port,
    async (socket) => {
      const continued = whenReceived(socket, /^HTTP\/1\.1 100 Continue\r\n\r\n/);
      socket.write(continueHead(stage.token, Buffer.byteLength(body)));
      await continued;
      socket.write(body.slice(0, 20));
      gate.markReady();
      while (!clock.released) await sleep(10);
      await sleep(300);
      socket.write(`${body.slice(20)}GET /v1/merchant HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${stage.token}\r\n\r\n`);
    },
    30_000,
  );
  return { outcome, ready: gate.ready };
}

/** Connections that must not hold the shutdown: one silent, one whose headers dribble (slowloris), one idle keep-alive. */
function holdIdleConnections(stage: Stage) {
  const [silentGate, dribbleGate, idleGate] = [readiness(), readiness(), readiness()];
  const silent = rawExchange(stage.server.port, () => silentGate.markReady(), 30_000);
  const dribble = rawExchange(
    stage.server.port,
    (socket, state) => {
      setTimeout(dribbleGate.markReady, 600); // a few header bytes read by then: a request being parsed
      return trickle(
        socket,
        state,
        `GET /v1/merchant HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${stage.token}\r\n${'X-Pad: a\r\n'.repeat(40)}\r\n`,
        200,
      );
    },
    30_000,
  );
  const idle = rawExchange(
    stage.server.port,
    async (socket) => {
      const answered = whenReceived(socket, /^HTTP\/1\.1 200 [\s\S]*\r\n\r\n/);
      socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      await answered;
      idleGate.markReady();
    },
    30_000,
  );
  return { silent, dribble, idle, ready: [silentGate.ready, dribbleGate.ready, idleGate.ready] };
}

/** New connections once the server has said it is shutting down, until it exits: each must be refused or answered 503. */
async function probeNewConnections(server: Server, clock: Clock, probes: ProbeResult[]): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!clock.exited && Date.now() < deadline) {
    if (/shutting down/.test(server.output())) break;
    await sleep(5);
  }
  while (!clock.exited && Date.now() < deadline) {
    const at = Date.now() - clock.sigtermAt;
    const outcome = await rawExchange(
      server.port,
      (socket) => void socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`),
      3_000,
      { untilResponse: true },
    );
    probes.push({
      at,
      outcome: outcome.status !== null ? `status ${outcome.status}` : outcome.ended,
      status: outcome.status,
      body: rawBody(outcome),
    });
    await sleep(50);
  }
}

/** The pipelined connection: 201 for the request in progress, then at most the 503 envelope with Connection: close and Retry-After. */
function checkPipelined(ctx: Ctx, outcome: RawOutcome): ReturnType<typeof parseResponses> {
  const answers = parseResponses(outcome.response);
  if (answers[0]?.status !== 201)
    ctx.problems.push(`the request completed after SIGTERM on a keep-alive connection got ${answers[0]?.status ?? outcome.ended}, not 201`);
  const second = answers[1];
  if (
    second &&
    !(
      second.status === 503 &&
      /"code":"service_unavailable"/.test(second.body) &&
      second.headers.connection === 'close' &&
      second.headers['retry-after'] !== undefined
    )
  ) {
    ctx.problems.push(
      `the request pipelined behind it got ${second.status} ${second.body.slice(0, 120)} (expected 503 service_unavailable, Connection: close, Retry-After)`,
    );
  }
  if (answers.length > 2) ctx.problems.push(`${answers.length} answers on the pipelined connection`);
  return answers;
}

/** The merchant's payments as stored, grouped by reference; more than one per reference is a duplicate. */
async function storedPayments(
  ctx: Ctx,
  stage: Stage,
): Promise<{ rows: StoredRow[]; byReference: Map<string, { id: string; status: string }[]> }> {
  const result = await sql<StoredRow>`
    SELECT id, reference, status FROM charges WHERE merchant_id = ${stage.merchant.merchantId} AND kind = 'payment'`.execute(
    stage.deps.db.db,
  );
  const byReference = new Map<string, { id: string; status: string }[]>();
  for (const row of result.rows)
    byReference.set(row.reference, [...(byReference.get(row.reference) ?? []), { id: row.id, status: row.status }]);
  ctx.figures.duplicates = [...byReference.values()].filter((list) => list.length > 1).length;
  return { rows: result.rows, byReference };
}

/** The held slow requests as calls: their bodies end only after the signal, so any answer came after it. */
function slowCalls(outcomes: RawOutcome[], preparedAt: number, sigtermAt: number): Call[] {
  return outcomes.map((outcome, i) => ({
    reference: `sd-slow-${i}`,
    kind: 'slow',
    startedAt: preparedAt,
    sentAt: preparedAt,
    answeredAt: outcome.status === null ? null : sigtermAt + 1,
    status: outcome.status,
    body: rawBody(outcome),
    error: outcome.status === null ? outcome.ended : null,
  }));
}

/** Every 200/201 is stored as answered; 5xx other than 503 are unexpected; every 503 is the envelope and stored nothing. */
function checkAcknowledged(ctx: Ctx, calls: Call[], byReference: Map<string, { id: string; status: string }[]>): Call[] {
  const { figures, problems } = ctx;
  figures.requests = calls.length;
  const acknowledged = calls.filter((c) => c.status === 200 || c.status === 201);
  figures.acknowledged = acknowledged.length;
  for (const call of acknowledged) {
    const sent = JSON.parse(call.body) as { id: string; status: string; reference: string };
    const stored = byReference.get(call.reference);
    if (!stored?.some((s) => s.id === sent.id)) figures.lost += 1;
    else if (sent.status !== 'pending' && !stored.some((s) => s.id === sent.id && s.status === sent.status)) {
      problems.push(`${call.reference}: answered ${sent.status}, stored ${stored[0]!.status}`);
    }
  }
  figures.unexpected5xx = calls.filter((c) => c.status !== null && c.status >= 500 && c.status !== 503).length;
  const refused503 = calls.filter((c) => c.status === 503);
  const bad503 = refused503.filter((c) => {
    try {
      const body = JSON.parse(c.body) as { error?: { code?: string; type?: string; request_id?: string } };
      return body.error?.code !== 'service_unavailable' || body.error.type !== 'api_error' || !/^req_/.test(body.error.request_id ?? '');
    } catch {
      return true;
    }
  });
  if (bad503.length > 0)
    problems.push(
      `${bad503.length} 503 answers are not the documented envelope (service_unavailable), e.g. ${bad503[0]!.body.slice(0, 120)}`,
    );
  const stored503 = refused503.filter((c) => byReference.has(c.reference));
  if (stored503.length > 0) problems.push(`${stored503.length} requests answered 503 were stored anyway (${stored503[0]!.reference})`);
  return acknowledged;
}

/** In flight at the signal (sent before it, not answered before it): completed or 503, never cut; every held slow body 201. */
function checkInFlight(ctx: Ctx, calls: Call[], sigtermAt: number, byReference: Map<string, unknown>, slowOutcomes: RawOutcome[]) {
  const inFlight = calls.filter((c) => c.sentAt !== null && c.sentAt < sigtermAt && (c.answeredAt === null || c.answeredAt >= sigtermAt));
  const completed = inFlight.filter((c) => c.status === 200 || c.status === 201);
  const inFlight503 = inFlight.filter((c) => c.status === 503);
  const cut = inFlight.filter((c) => c.status === null || (c.status !== 200 && c.status !== 201 && c.status !== 503));
  for (const c of cut.slice(0, 5))
    ctx.problems.push(`in-flight ${c.kind} request ${c.reference} cut: ${c.error ?? c.status} (stored: ${byReference.has(c.reference)})`);
  if (cut.length > 5) ctx.problems.push(`… ${cut.length - 5} more in-flight requests cut`);
  const slowOk = slowOutcomes.filter((o) => o.status === 201).length;
  if (slowOk !== slowOutcomes.length)
    ctx.problems.push(
      `${slowOutcomes.length - slowOk} of ${slowOutcomes.length} requests whose body was still arriving at SIGTERM did not get 201: ${slowOutcomes
        .filter((o) => o.status !== 201)
        .map((o) => o.status ?? o.ended)
        .join(', ')}`,
    );
  return { inFlight: inFlight.length, completed: completed.length, inFlight503: inFlight503.length, cut: cut.length, slowOk };
}

/** Requests started after the signal (refused, 503, or served before the signal was handled) and new connections (never served). */
function checkAfterSigterm(ctx: Ctx, calls: Call[], probes: ProbeResult[], sigtermAt: number) {
  const afterOutcomes: Record<string, number> = {};
  for (const c of calls.filter((x) => x.startedAt >= sigtermAt)) {
    const key = c.status !== null ? String(c.status) : (c.error ?? 'none');
    afterOutcomes[key] = (afterOutcomes[key] ?? 0) + 1;
  }
  const probeOutcomes: Record<string, number> = {};
  for (const p of probes) probeOutcomes[p.outcome] = (probeOutcomes[p.outcome] ?? 0) + 1;
  const served = probes.filter((p) => p.status !== null && p.status !== 503);
  if (served.length > 0)
    ctx.problems.push(`${served.length} new connections after shutdown began were served (${served[0]!.outcome} at ${served[0]!.at} ms)`);
  if (probes.length === 0) ctx.problems.push('no new-connection probe ran between the shutdown log line and the exit');
  const acceptedProbe = probes.filter((p) => p.status === 503 && !/service_unavailable/.test(p.body));
  if (acceptedProbe.length > 0)
    ctx.problems.push(`a 503 to a new connection is not the documented envelope: ${acceptedProbe[0]!.body.slice(0, 120)}`);
  return { afterOutcomes, probeOutcomes };
}

type Exit = Awaited<Server['exited']> | null;

/** Exit status 0 within 10 s, and not by the shutdown deadline. */
function checkExit(ctx: Ctx, server: Server, exit: Exit, exitSeconds: number | null): void {
  if (!exit) ctx.problems.push('the process did not exit within 20 s of SIGTERM');
  else {
    if (exitSeconds! > 10) ctx.problems.push(`exit took ${exitSeconds} s (> 10 s)`);
    if (exit.code !== 0 || exit.signal !== null) ctx.problems.push(`exit status ${exit.code ?? exit.signal} (expected 0: a clean drain)`);
  }
  if (/shutdown deadline passed/.test(server.output())) ctx.problems.push('the shutdown deadline fired: something held the server open');
}

/** Every stored payment has its payment.created event and, once final, its final one. */
async function checkEvents(ctx: Ctx, stage: Stage, rows: StoredRow[]): Promise<void> {
  const events = await sql<{ object_id: string; type: string }>`
    SELECT object_id, type FROM events WHERE merchant_id = ${stage.merchant.merchantId} AND type LIKE 'payment.%'`.execute(
    stage.deps.db.db,
  );
  const typesOf = new Map<string, Set<string>>();
  for (const e of events.rows) typesOf.set(e.object_id, (typesOf.get(e.object_id) ?? new Set()).add(e.type));
  for (const row of rows) {
    const types = typesOf.get(row.id) ?? new Set<string>();
    if (!types.has('payment.created')) ctx.figures.eventsMissing += 1;
    if (row.status !== 'pending' && !types.has(`payment.${row.status}`)) ctx.figures.eventsMissing += 1;
  }
}

/** Load, requests held across the signal, SIGTERM, then everything the server and the clients saw until it exited. */
async function signalUnderLoad(ctx: Ctx, stage: Stage, agent: Agent) {
  const CONCURRENCY = 64;
  const WARMUP_MS = ctx.profile === 'full' ? 5_000 : 2_000;
  const SLOW = ctx.profile === 'full' ? 16 : 8;
  const { server } = stage;
  const clock: Clock = { sigtermAt: Infinity, exited: false, released: false };
  void server.exited.then(() => (clock.exited = true));
  const load = startLoad(stage, agent, clock, CONCURRENCY);
  await sleep(WARMUP_MS);
  // SIGTERM waits for every held request to be in progress at the server, so a loaded machine
  // cannot turn "sent" into "not yet read".
  const slow = holdSlowBodies(stage, clock, SLOW);
  const pipelined = holdPipelined(stage, clock);
  const held = holdIdleConnections(stage);
  const ready = [...slow.ready, pipelined.ready, ...held.ready];
  const readyWithin = await Promise.race([Promise.all(ready).then(() => true), sleep(20_000).then(() => false)]);
  if (!readyWithin) throw new Error('the slow requests were not all in progress at the server within 20 s');
  const preparedAt = Date.now();

  clock.sigtermAt = Date.now();
  process.kill(server.pid, 'SIGTERM');
  clock.released = true;
  const probes: ProbeResult[] = [];
  const probing = probeNewConnections(server, clock, probes);

  const exit: Exit = await Promise.race([server.exited, sleep(20_000).then(() => null)]);
  const exitSeconds = exit ? round((exit.at - clock.sigtermAt) / 1000, 2) : null;
  await load.done;
  await probing;
  const slowOutcomes = await Promise.all(slow.outcomes);
  const [silent, dribble, idle, pipelinedOutcome] = await Promise.all([held.silent, held.dribble, held.idle, pipelined.outcome]);
  return {
    concurrency: CONCURRENCY,
    calls: load.calls,
    sigtermAt: clock.sigtermAt,
    preparedAt,
    probes,
    exit,
    exitSeconds,
    slowOutcomes,
    silent,
    dribble,
    idle,
    pipelinedOutcome,
  };
}

async function runShutdown(ctx: Ctx, details: Record<string, unknown>, agent: Agent): Promise<void> {
  const stage = await setUp(ctx);
  const seen = await signalUnderLoad(ctx, stage, agent);
  const pipelinedAnswers = checkPipelined(ctx, seen.pipelinedOutcome);
  const { rows, byReference } = await storedPayments(ctx, stage);
  const calls = [...seen.calls, ...slowCalls(seen.slowOutcomes, seen.preparedAt, seen.sigtermAt)];
  const acknowledged = checkAcknowledged(ctx, calls, byReference);
  const inFlight = checkInFlight(ctx, calls, seen.sigtermAt, byReference, seen.slowOutcomes);
  const after = checkAfterSigterm(ctx, calls, seen.probes, seen.sigtermAt);
  checkExit(ctx, stage.server, seen.exit, seen.exitSeconds);
  await checkEvents(ctx, stage, rows);
  const ledger = await ledgerImbalance(stage.deps);
  ctx.figures.ledgerImbalance = ledger.count;
  if (ledger.count > 0) details.ledger = ledger.report;

  const latencies = acknowledged.filter((c) => c.kind !== 'slow' && c.answeredAt !== null).map((c) => c.answeredAt! - c.startedAt);
  Object.assign(details, {
    concurrency: seen.concurrency,
    inFlightAtSigterm: inFlight.inFlight,
    completed: inFlight.completed,
    inFlightRefused503: inFlight.inFlight503,
    inFlightCut: inFlight.cut,
    slowBodiesAcrossSigterm: `${inFlight.slowOk}/${seen.slowOutcomes.length} answered 201`,
    exitSeconds: seen.exitSeconds,
    exitStatus: seen.exit ? (seen.exit.code ?? seen.exit.signal) : 'none',
    requestsAfterSigterm: after.afterOutcomes,
    newConnectionProbes: after.probeOutcomes,
    silentConnection: `${seen.silent.ended} after ${round((seen.silent.endMs - 0) / 1000, 2)} s`,
    dribblingHeaders: seen.dribble.status ?? seen.dribble.ended,
    idleKeepAlive: seen.idle.ended,
    pipelined:
      pipelinedAnswers.map((a) => `${a.status}${a.headers.connection ? ` (connection: ${a.headers.connection})` : ''}`).join(', ') +
      ` then ${seen.pipelinedOutcome.ended}`,
    storedPayments: rows.length,
    latencyMs: summary(latencies),
    logFile: stage.logFile,
  });
}

export const shutdown: Scenario = {
  name: 'shutdown',
  async run(profile: Profile): Promise<ScenarioResult> {
    const ctx: Ctx = { profile, figures: emptyFigures(), problems: [], cleanup: new Cleanup() };
    const details: Record<string, unknown> = {};
    const agent = new Agent({ keepAlive: true, maxSockets: 64 });
    ctx.cleanup.add(() => agent.destroy());
    try {
      await runShutdown(ctx, details, agent);
    } finally {
      await ctx.cleanup.run();
    }
    return { name: 'shutdown', figures: ctx.figures, details, problems: ctx.problems };
  },
};
