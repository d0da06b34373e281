// Graceful shutdown (reliability.md, "Concurrency, faults, security"): under load, SIGTERM.
// Every request the server had received completes with its normal answer, new connections are
// refused or answered 503, the process exits by itself (status 0) within 10 s even with open
// connections that never sent a whole request, and nothing acknowledged is missing afterwards.

import { mkdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { sql } from 'kysely';
import {
  Cleanup,
  cardPayment,
  createDatabase,
  createMerchant,
  issueToken,
  ledgerImbalance,
  newSecretKey,
  operatorDeps,
  parseResponses,
  type RawOutcome,
  rawExchange,
  round,
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

export const shutdown: Scenario = {
  name: 'shutdown',
  async run(profile: Profile): Promise<ScenarioResult> {
    const figures: Figures = emptyFigures();
    const details: Record<string, unknown> = {};
    const problems: string[] = [];
    const cleanup = new Cleanup();
    const agent = new Agent({ keepAlive: true, maxSockets: 64 });
    cleanup.add(() => agent.destroy());
    try {
      const CONCURRENCY = 64;
      const WARMUP_MS = profile === 'full' ? 5_000 : 2_000;
      const SLOW = profile === 'full' ? 16 : 8;
      const db = await createDatabase('shutdown', cleanup);
      const secretKey = newSecretKey();
      const deps = await operatorDeps(db.url, secretKey, cleanup);
      const merchant = await createMerchant(deps, 'Shutdown merchant');
      mkdirSync(TMP_DIR, { recursive: true });
      const logFile = join(TMP_DIR, `faults-shutdown-${Date.now()}.log`);
      const server = await startServer(cleanup, { DATABASE_URL: db.url, PURSE_SECRET_KEY: secretKey, LOG_LEVEL: 'info' }, { logFile });
      const token = await issueToken(server.base, merchant);

      // A wallet that covers every wallet payment of the run.
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

      // Load: 64 loops of card and wallet payments on keep-alive connections.
      const calls: Call[] = [];
      let sigtermAt = Infinity;
      let counter = 0;
      const serverGone = server.exited.then(() => undefined);
      let exited = false;
      void serverGone.then(() => (exited = true));
      const loop = async (worker: number) => {
        while (!exited) {
          const n = counter++;
          const reference = `sd-${worker}-${n}`;
          const body =
            n % 2 === 0
              ? cardPayment(reference, CARDS[n % CARDS.length], '123', '10.00')
              : { reference, amount: '1.00', currency: 'KES', payment_method: { type: 'wallet', wallet: { wallet_id: wallet.id } } };
          const call = await post(agent, server.port, '/v1/payments', token, body, n % 2 === 0 ? 'card' : 'wallet');
          calls.push(call);
          // After the signal, a refusal (503, reset, refused) ends this loop.
          if (call.startedAt > sigtermAt && (call.error !== null || call.status === 503)) return;
        }
      };
      const loops = Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => loop(i)));
      await sleep(WARMUP_MS);

      // Requests received but not finished at the signal. `Expect: 100-continue` makes the server
      // say when it has read the headers (the request is then in progress); half the body follows,
      // the rest is trickled in over ~1.5 s after SIGTERM. SIGTERM waits for every "100 Continue",
      // so a loaded machine cannot turn "sent" into "not yet read".
      const slowBodies = Array.from({ length: SLOW }, (_, i) => JSON.stringify(cardPayment(`sd-slow-${i}`, CARDS[i % 2], '123', '25.00')));
      let released = false;
      const ready: Promise<void>[] = [];
      /** A promise resolved when `socket` has received `pattern`; registered with `ready`. */
      const whenReceived = (socket: Socket, pattern: RegExp): Promise<void> => {
        let seen = '';
        const promise = new Promise<void>((resolve) => {
          const onData = (chunk: Buffer) => {
            seen += chunk.toString('latin1');
            if (pattern.test(seen)) {
              socket.off('data', onData);
              resolve();
            }
          };
          socket.on('data', onData);
        });
        return promise;
      };
      const readyBy = (register: (resolve: () => void) => void) => ready.push(new Promise<void>((resolve) => register(resolve)));
      const continueHead = (length: number) =>
        `POST /v1/payments HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`;
      const slow = slowBodies.map((text) => {
        let markReady: () => void = () => undefined;
        readyBy((resolve) => (markReady = resolve));
        return rawExchange(
          server.port,
          async (socket, state) => {
            const continued = whenReceived(socket, /^HTTP\/1\.1 100 Continue\r\n\r\n/);
            socket.write(continueHead(Buffer.byteLength(text)));
            await continued;
            const half = Math.floor(text.length / 2);
            socket.write(text.slice(0, half));
            markReady();
            while (!released) await sleep(10);
            await trickle(socket, state, text.slice(half), 150, Math.ceil((text.length - half) / 10));
          },
          30_000,
          { untilResponse: true },
        );
      });
      // A keep-alive connection whose body completes after SIGTERM with a second request
      // pipelined behind it: the first is answered 201; the second, read while draining, gets the
      // contract's 503 (or the connection closes after the first answer, which HTTP allows).
      const pipelinedBody = JSON.stringify(cardPayment('sd-pipelined', CARDS[0], '123', '30.00'));
      let pipelinedReady: () => void = () => undefined;
      readyBy((resolve) => (pipelinedReady = resolve));
      const pipelined = rawExchange(
        server.port,
        async (socket) => {
          const continued = whenReceived(socket, /^HTTP\/1\.1 100 Continue\r\n\r\n/);
          socket.write(continueHead(Buffer.byteLength(pipelinedBody)));
          await continued;
          socket.write(pipelinedBody.slice(0, 20));
          pipelinedReady();
          while (!released) await sleep(10);
          await sleep(300);
          socket.write(`${pipelinedBody.slice(20)}GET /v1/merchant HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`);
        },
        30_000,
      );
      // Connections that must not hold the shutdown: one connected and silent, one whose headers
      // dribble (slowloris), one idle keep-alive connection after an answered request.
      let silentReady: () => void = () => undefined;
      let dribbleReady: () => void = () => undefined;
      let idleReady: () => void = () => undefined;
      readyBy((resolve) => (silentReady = resolve));
      readyBy((resolve) => (dribbleReady = resolve));
      readyBy((resolve) => (idleReady = resolve));
      const silent = rawExchange(server.port, () => silentReady(), 30_000);
      const dribble = rawExchange(
        server.port,
        (socket, state) => {
          setTimeout(dribbleReady, 600); // a few header bytes read by then: a request being parsed
          return trickle(
            socket,
            state,
            `GET /v1/merchant HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n${'X-Pad: a\r\n'.repeat(40)}\r\n`,
            200,
          );
        },
        30_000,
      );
      const idle = rawExchange(
        server.port,
        async (socket) => {
          const answered = whenReceived(socket, /^HTTP\/1\.1 200 [\s\S]*\r\n\r\n/);
          socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
          await answered;
          idleReady();
        },
        30_000,
      );
      const readyWithin = await Promise.race([Promise.all(ready).then(() => true), sleep(20_000).then(() => false)]);
      if (!readyWithin) throw new Error('the slow requests were not all in progress at the server within 20 s');
      const preparedAt = Date.now();

      sigtermAt = Date.now();
      process.kill(server.pid, 'SIGTERM');
      released = true;

      // New connections once the server has begun shutting down: refused, or 503.
      const probes: { at: number; outcome: string; status: number | null; body: string }[] = [];
      const probing = (async () => {
        const deadline = Date.now() + 15_000;
        while (!exited && Date.now() < deadline) {
          if (/shutting down/.test(server.output())) break;
          await sleep(5);
        }
        while (!exited && Date.now() < deadline) {
          const at = Date.now() - sigtermAt;
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
      })();

      const exit = await Promise.race([server.exited, sleep(20_000).then(() => null)]);
      const exitSeconds = exit ? round((exit.at - sigtermAt) / 1000, 2) : null;
      await loops;
      await probing;
      const slowOutcomes = await Promise.all(slow);
      const [silentOutcome, dribbleOutcome, idleOutcome, pipelinedOutcome] = await Promise.all([silent, dribble, idle, pipelined]);
      const pipelinedAnswers = parseResponses(pipelinedOutcome.response);
      if (pipelinedAnswers[0]?.status !== 201)
        problems.push(
          `the request completed after SIGTERM on a keep-alive connection got ${pipelinedAnswers[0]?.status ?? pipelinedOutcome.ended}, not 201`,
        );
      const second = pipelinedAnswers[1];
      if (
        second &&
        !(
          second.status === 503 &&
          /"code":"service_unavailable"/.test(second.body) &&
          second.headers.connection === 'close' &&
          second.headers['retry-after'] !== undefined
        )
      ) {
        problems.push(
          `the request pipelined behind it got ${second.status} ${second.body.slice(0, 120)} (expected 503 service_unavailable, Connection: close, Retry-After)`,
        );
      }
      if (pipelinedAnswers.length > 2) problems.push(`${pipelinedAnswers.length} answers on the pipelined connection`);

      // What the database holds.
      const rows = await sql<{ id: string; reference: string; status: string }>`
        SELECT id, reference, status FROM charges WHERE merchant_id = ${merchant.merchantId} AND kind = 'payment'`.execute(deps.db.db);
      const byReference = new Map<string, { id: string; status: string }[]>();
      for (const row of rows.rows)
        byReference.set(row.reference, [...(byReference.get(row.reference) ?? []), { id: row.id, status: row.status }]);
      figures.duplicates = [...byReference.values()].filter((list) => list.length > 1).length;

      for (const [i, outcome] of slowOutcomes.entries()) {
        calls.push({
          reference: `sd-slow-${i}`,
          kind: 'slow',
          startedAt: preparedAt,
          sentAt: preparedAt,
          // Their bodies end only after the signal, so any answer came after it.
          answeredAt: outcome.status === null ? null : sigtermAt + 1,
          status: outcome.status,
          body: rawBody(outcome),
          error: outcome.status === null ? outcome.ended : null,
        });
      }
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
          return (
            body.error?.code !== 'service_unavailable' || body.error.type !== 'api_error' || !/^req_/.test(body.error.request_id ?? '')
          );
        } catch {
          return true;
        }
      });
      if (bad503.length > 0)
        problems.push(
          `${bad503.length} 503 answers are not the contract's envelope (service_unavailable), e.g. ${bad503[0]!.body.slice(0, 120)}`,
        );
      const stored503 = refused503.filter((c) => byReference.has(c.reference));
      if (stored503.length > 0) problems.push(`${stored503.length} requests answered 503 were stored anyway (${stored503[0]!.reference})`);

      // In flight at the signal: sent before it, not answered before it.
      const inFlight = calls.filter(
        (c) => c.sentAt !== null && c.sentAt < sigtermAt && (c.answeredAt === null || c.answeredAt >= sigtermAt),
      );
      const completed = inFlight.filter((c) => c.status === 200 || c.status === 201);
      const inFlight503 = inFlight.filter((c) => c.status === 503);
      const cut = inFlight.filter((c) => c.status === null || (c.status !== 200 && c.status !== 201 && c.status !== 503));
      for (const c of cut.slice(0, 5))
        problems.push(`in-flight ${c.kind} request ${c.reference} cut: ${c.error ?? c.status} (stored: ${byReference.has(c.reference)})`);
      if (cut.length > 5) problems.push(`… ${cut.length - 5} more in-flight requests cut`);
      const slowOk = slowOutcomes.filter((o) => o.status === 201).length;
      if (slowOk !== SLOW)
        problems.push(
          `${SLOW - slowOk} of ${SLOW} requests whose body was still arriving at SIGTERM did not get 201: ${slowOutcomes
            .filter((o) => o.status !== 201)
            .map((o) => o.status ?? o.ended)
            .join(', ')}`,
        );

      // Requests started after the signal: refused, 503, or (before the signal was handled) served.
      const after = calls.filter((c) => c.startedAt >= sigtermAt);
      const afterOutcomes: Record<string, number> = {};
      for (const c of after)
        afterOutcomes[c.status !== null ? String(c.status) : (c.error ?? 'none')] =
          (afterOutcomes[c.status !== null ? String(c.status) : (c.error ?? 'none')] ?? 0) + 1;
      const probeOutcomes: Record<string, number> = {};
      for (const p of probes) probeOutcomes[p.outcome] = (probeOutcomes[p.outcome] ?? 0) + 1;
      const served = probes.filter((p) => p.status !== null && p.status !== 503);
      if (served.length > 0)
        problems.push(`${served.length} new connections after shutdown began were served (${served[0]!.outcome} at ${served[0]!.at} ms)`);
      if (probes.length === 0) problems.push('no new-connection probe ran between the shutdown log line and the exit');
      const acceptedProbe = probes.filter((p) => p.status === 503 && !/service_unavailable/.test(p.body));
      if (acceptedProbe.length > 0)
        problems.push(`a 503 to a new connection is not the contract's envelope: ${acceptedProbe[0]!.body.slice(0, 120)}`);

      if (!exit) problems.push('the process did not exit within 20 s of SIGTERM');
      else {
        if (exitSeconds! > 10) problems.push(`exit took ${exitSeconds} s (> 10 s)`);
        if (exit.code !== 0 || exit.signal !== null) problems.push(`exit status ${exit.code ?? exit.signal} (expected 0: a clean drain)`);
      }
      if (/shutdown deadline passed/.test(server.output())) problems.push('the shutdown deadline fired: something held the server open');

      // Every acknowledged payment has its payment.created event and, once final, its final one.
      const events = await sql<{ object_id: string; type: string }>`
        SELECT object_id, type FROM events WHERE merchant_id = ${merchant.merchantId} AND type LIKE 'payment.%'`.execute(deps.db.db);
      const typesOf = new Map<string, Set<string>>();
      for (const e of events.rows) typesOf.set(e.object_id, (typesOf.get(e.object_id) ?? new Set()).add(e.type));
      for (const row of rows.rows) {
        const types = typesOf.get(row.id) ?? new Set<string>();
        if (!types.has('payment.created')) figures.eventsMissing += 1;
        if (row.status !== 'pending' && !types.has(`payment.${row.status}`)) figures.eventsMissing += 1;
      }

      const ledger = await ledgerImbalance(deps);
      figures.ledgerImbalance = ledger.count;
      if (ledger.count > 0) details.ledger = ledger.report;

      const latencies = acknowledged.filter((c) => c.kind !== 'slow' && c.answeredAt !== null).map((c) => c.answeredAt! - c.startedAt);
      Object.assign(details, {
        concurrency: CONCURRENCY,
        inFlightAtSigterm: inFlight.length,
        completed: completed.length,
        inFlightRefused503: inFlight503.length,
        inFlightCut: cut.length,
        slowBodiesAcrossSigterm: `${slowOk}/${SLOW} answered 201`,
        exitSeconds,
        exitStatus: exit ? (exit.code ?? exit.signal) : 'none',
        requestsAfterSigterm: afterOutcomes,
        newConnectionProbes: probeOutcomes,
        silentConnection: `${silentOutcome.ended} after ${round((silentOutcome.endMs - 0) / 1000, 2)} s`,
        dribblingHeaders: dribbleOutcome.status ?? dribbleOutcome.ended,
        idleKeepAlive: idleOutcome.ended,
        pipelined:
          pipelinedAnswers.map((a) => `${a.status}${a.headers.connection ? ` (connection: ${a.headers.connection})` : ''}`).join(', ') +
          ` then ${pipelinedOutcome.ended}`,
        storedPayments: rows.rows.length,
        latencyMs: summary(latencies),
        logFile,
      });
    } finally {
      await cleanup.run();
    }
    return { name: 'shutdown', figures, details, problems };
  },
};
