// Slow clients and request-size abuse (docs/api.md §12): hundreds of connections that dribble
// their headers or their body, or send nothing, while normal clients keep working (success rate
// and p99 measured against a baseline); the server cuts the slow ones (headers 10 s, request
// 30 s: measured). Then bodies over the limit (16 KiB + 1, 10 MiB with and without
// Content-Length), huge headers, lying Content-Length, deep JSON, many query parameters: never a
// 5xx, never a hang, memory bounded, and the server stays healthy.

import {
  Cleanup,
  cardPayment,
  createDatabase,
  createMerchant,
  issueToken,
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
  trickle,
} from './edge-support.ts';
import { emptyFigures, type Figures, type Profile, type Scenario, type ScenarioResult } from './figures.ts';

interface Sample {
  at: number;
  ms: number;
  status: number | null;
  error: string | null;
}

type SlowKind = 'headers' | 'silent' | 'body' | 'token-body';

const MIB = 1024 * 1024;

/** Resident memory of the server from its /metrics (prom-client default metrics). */
async function serverRss(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const match = /^process_resident_memory_bytes (\d+)/m.exec(text);
  return match ? Number(match[1]) : NaN;
}

interface Abuse {
  name: string;
  status: number | null;
  ms: number;
  note?: string;
}

/** What every step shares: the server under attack, its token, the figures and what was found wrong. */
interface Ctx {
  profile: Profile;
  figures: Figures;
  problems: string[];
  cleanup: Cleanup;
  server: Server;
  token: string;
  auth: { authorization: string };
  /** Every request sent, for the requests figure. */
  requests: number;
  abuse: Abuse[];
}

// Bounds: the configured timeout plus the granularity of the server's check.
const HEADERS_CUT_BY_S = 13;
const BODY_CUT_BY_S = 33;
const KINDS: SlowKind[] = ['headers', 'silent', 'body', 'token-body'];

/** Counts a request; a 5xx is never an acceptable answer to abuse. */
function count5xx(ctx: Ctx, status: number | null, what: string): void {
  ctx.requests += 1;
  if (status !== null && status >= 500) {
    ctx.figures.unexpected5xx += 1;
    ctx.problems.push(`${what}: ${status}`);
  }
}

function record(ctx: Ctx, name: string, o: RawOutcome, note?: string): void {
  ctx.abuse.push({ name, status: o.status, ms: o.firstByteMs ?? o.endMs, ...(note ? { note } : {}) });
  count5xx(ctx, o.status, name);
  for (const extra of parseResponses(o.response).slice(1)) count5xx(ctx, extra.status, `${name} (second answer)`);
}

function expectAnswer(ctx: Ctx, name: string, o: RawOutcome, allowed: number[]): void {
  if (o.status === null) ctx.problems.push(`${name}: no answer (${o.ended} after ${o.endMs} ms)`);
  else if (!allowed.includes(o.status)) ctx.problems.push(`${name}: ${o.status}, expected ${allowed.join(' or ')}`);
}

const head = (method: string, path: string, headers: Record<string, string | number>) =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

const jsonHeaders = (ctx: Ctx) => ({ ...ctx.auth, 'Content-Type': 'application/json' });

/** Sends `text` on a fresh connection and records the answer, which must be one of `allowed`. */
async function sendRaw(ctx: Ctx, name: string, text: string, allowed: readonly number[]): Promise<void> {
  const o = await rawExchange(ctx.server.port, (s) => void s.write(text), 10_000, { untilResponse: true });
  record(ctx, name, o);
  expectAnswer(ctx, name, o, [...allowed]);
}

async function setUp(profile: Profile, figures: Figures, problems: string[], cleanup: Cleanup): Promise<Ctx> {
  const db = await createDatabase('slow_clients', cleanup);
  const secretKey = newSecretKey();
  const deps = await operatorDeps(db.url, secretKey, cleanup);
  const merchant = await createMerchant(deps, 'Slow clients merchant');
  const server = await startServer(cleanup, { DATABASE_URL: db.url, PURSE_SECRET_KEY: secretKey, LOG_LEVEL: 'warn' });
  const token = await issueToken(server.base, merchant);
  return { profile, figures, problems, cleanup, server, token, auth: { authorization: `Bearer ${token}` }, requests: 0, abuse: [] };
}

/** Normal clients: a read, a card payment and a list, in a loop, until stopped; each timed. */
function startNormalClients(ctx: Ctx, clients: number): { samples: Sample[]; stop: () => Promise<void> } {
  const samples: Sample[] = [];
  let stopped = false;
  let n = 0;
  const request = (worker: number, i: number) =>
    i % 3 === 0
      ? fetch(`${ctx.server.base}/v1/merchant`, { headers: ctx.auth })
      : i % 3 === 1
        ? fetch(`${ctx.server.base}/v1/payments`, {
            method: 'POST',
            headers: { ...ctx.auth, 'content-type': 'application/json' },
            body: JSON.stringify(cardPayment(`sc-${worker}-${i}`)),
          })
        : fetch(`${ctx.server.base}/v1/payments?limit=10`, { headers: ctx.auth });
  const normal = async (worker: number) => {
    while (!stopped) {
      const i = n++;
      const started = Date.now();
      const sample: Sample = { at: started, ms: 0, status: null, error: null };
      try {
        const res = await request(worker, i);
        await res.arrayBuffer();
        sample.status = res.status;
      } catch (error) {
        sample.error = error instanceof Error ? ((error.cause as { code?: string } | undefined)?.code ?? error.message) : String(error);
      }
      sample.ms = Date.now() - started;
      samples.push(sample);
      count5xx(ctx, sample.status, 'a normal request');
    }
  };
  const running = Promise.all(Array.from({ length: clients }, (_, w) => normal(w)));
  return {
    samples,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

/** The attack: a quarter each of dribbled headers, silent connections, dribbled /v1 bodies and dribbled token-endpoint bodies. */
function openSlowConnections(ctx: Ctx, count: number): Promise<{ kind: SlowKind; o: RawOutcome }>[] {
  const { token } = ctx;
  return Array.from({ length: count }, (_, i) => {
    const kind = KINDS[i % KINDS.length]!;
    const outcome = rawExchange(
      ctx.server.port,
      async (socket, state) => {
        await sleep((i % 50) * 10);
        if (kind === 'silent') return;
        if (kind === 'headers') {
          await trickle(
            socket,
            state,
            `GET /v1/merchant HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nX-Slow: ${'a'.repeat(4000)}`,
            500,
          );
          return;
        }
        const path = kind === 'body' ? '/v1/payments' : '/oauth/token';
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${kind === 'body' ? `Authorization: Bearer ${token}\r\n` : ''}Content-Type: application/json\r\nContent-Length: 3000\r\n\r\n`,
        );
        await trickle(socket, state, `{"reference":"${'s'.repeat(2980)}`, 500);
      },
      60_000,
    );
    return outcome.then((o) => ({ kind, o }));
  });
}

/** 16 KiB + 1: the documented 413 payload_too_large. */
async function sendBodyOverLimit(ctx: Ctx): Promise<void> {
  const body = JSON.stringify({
    ...cardPayment('big'),
    metadata: { pad: 'x'.repeat(16 * 1024 + 1 - JSON.stringify({ ...cardPayment('big'), metadata: { pad: '' } }).length) },
  });
  const o = await rawExchange(
    ctx.server.port,
    (s) => void s.end(head('POST', '/v1/payments', { ...jsonHeaders(ctx), 'Content-Length': Buffer.byteLength(body) }) + body),
    10_000,
    { untilResponse: true },
  );
  record(ctx, 'body of 16 KiB + 1', o);
  expectAnswer(ctx, 'body of 16 KiB + 1', o, [413]);
  if (o.status === 413 && !/"code":"payload_too_large"/.test(o.response))
    ctx.problems.push(`16 KiB + 1: the 413 is not payload_too_large: ${o.response.slice(-200)}`);
}

/** 10 MiB announced by Content-Length, or chunked, written as fast as the server reads it. */
function upload(
  ctx: Ctx,
  chunked: boolean,
  path = '/v1/payments',
  headers: Record<string, string> = jsonHeaders(ctx),
): Promise<RawOutcome> {
  const piece = Buffer.alloc(64 * 1024, 0x20);
  return rawExchange(
    ctx.server.port,
    async (socket, state) => {
      socket.write(
        head('POST', path, chunked ? { ...headers, 'Transfer-Encoding': 'chunked' } : { ...headers, 'Content-Length': 10 * MIB }),
      );
      for (let sent = 0; sent < 10 * MIB && !state.closed; sent += piece.length) {
        const ok = chunked
          ? socket.write(`${piece.length.toString(16)}\r\n`) && socket.write(piece) && socket.write('\r\n')
          : socket.write(piece);
        if (!ok)
          await new Promise<void>((resolve) => {
            socket.once('drain', resolve);
            socket.once('close', resolve);
          });
      }
      if (chunked && !state.closed) socket.write('0\r\n\r\n');
    },
    20_000,
    { untilResponse: true },
  );
}

/** 10 MiB uploads, answered long before they end; returns how many were sent. */
async function sendHugeUploads(ctx: Ctx): Promise<number> {
  // A client must read the 413, not a reset: each kind is sent repeatedly (a close with unread
  // bytes resets the connection, and the answer is lost to timing).
  const REPEAT = ctx.profile === 'full' ? 40 : 15;
  const json = { 'Content-Type': 'application/json' };
  const uploads: [string, RawOutcome][] = [];
  for (let i = 0; i < REPEAT; i++) {
    uploads.push(['10 MiB with Content-Length', await upload(ctx, false)]);
    uploads.push(['10 MiB chunked', await upload(ctx, true)]);
  }
  uploads.push(['10 MiB chunked to /oauth/token', await upload(ctx, true, '/oauth/token', json)]);
  uploads.push(['10 MiB with Content-Length to /oauth/token', await upload(ctx, false, '/oauth/token', json)]);
  uploads.push(['10 MiB with Content-Length, no token', await upload(ctx, false, '/v1/payments', json)]);
  for (const [name, o] of uploads) {
    record(ctx, name, o, `${round(o.bytesWritten / MIB, 2)} MiB written when answered`);
    expectAnswer(ctx, name, o, name.includes('no token') ? [401, 413] : [413]);
    if (o.status !== null && (o.firstByteMs ?? Infinity) > 2_000) ctx.problems.push(`${name}: answered after ${o.firstByteMs} ms (> 2 s)`);
    if (o.status === 413 && !name.includes('oauth') && !/"payload_too_large"/.test(o.response))
      ctx.problems.push(`${name}: a 413 without payload_too_large: ${o.response.slice(-160)}`);
  }
  // Ten at once: the server must not hold them in memory.
  const many = await Promise.all(Array.from({ length: 10 }, (_, i) => upload(ctx, i % 2 === 0)));
  for (const o of many) {
    record(ctx, '10 MiB × 10 in parallel', o);
    expectAnswer(ctx, '10 MiB × 10 in parallel', o, [413]);
  }
  return uploads.length + many.length;
}

/** Huge headers and URLs: Node's 16 KiB header limit answers 431. */
async function sendHugeHeaders(ctx: Ctx): Promise<void> {
  const { auth } = ctx;
  for (const [name, text] of [
    ['one header of 32 KiB', head('GET', '/v1/merchant', { ...auth, 'X-Big': 'a'.repeat(32 * 1024) })],
    [
      '3000 headers',
      head('GET', '/v1/merchant', { ...auth, ...Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`X-H${i}`, 'v'])) }),
    ],
    ['URL of 20 KiB', head('GET', `/v1/payments?reference=${'r'.repeat(20 * 1024)}`, auth)],
    ['Authorization of 20 KiB', head('GET', '/v1/merchant', { authorization: `Bearer ${'a'.repeat(20 * 1024)}` })],
  ] as const) {
    // Node counts header bytes only up to its maxHeadersCount (2000): many small headers pass.
    await sendRaw(ctx, name, text, name === '3000 headers' ? [200, 400, 431] : [400, 413, 414, 431]);
  }
}

/** A body shorter than its Content-Length: after EOF no answer is needed, and a waiting client may get 400 or 408, never a 5xx. */
async function sendShortBodies(ctx: Ctx): Promise<void> {
  const payment = JSON.stringify(cardPayment('lying-cl'));
  const headers = { ...jsonHeaders(ctx), 'Content-Length': Buffer.byteLength(payment) + 100 };
  const eof = await rawExchange(
    ctx.server.port,
    async (s) => {
      s.write(head('POST', '/v1/payments', headers) + payment);
      await sleep(500);
      s.end();
    },
    10_000,
  );
  record(ctx, 'Content-Length 100 bytes above the body, then EOF', eof, eof.ended);
  // The server waits too (up to requestTimeout).
  const waits = await rawExchange(ctx.server.port, (s) => void s.write(head('POST', '/v1/payments', headers) + payment), 2_000);
  record(ctx, 'Content-Length 100 bytes above the body, client waits 2 s', waits, waits.ended);
  if (waits.status !== null) expectAnswer(ctx, 'Content-Length above the body', waits, [400, 408]);
}

/** Content-Length that lies or contradicts itself: 400 or 413, never a 5xx. */
async function sendBadContentLengths(ctx: Ctx): Promise<void> {
  const payment = JSON.stringify(cardPayment('lying-cl'));
  const json = jsonHeaders(ctx);
  const length = Buffer.byteLength(payment);
  for (const [name, text, allowed] of [
    ['Content-Length 10 below the body', head('POST', '/v1/payments', { ...json, 'Content-Length': length - 10 }) + payment, [400]],
    [
      'Content-Length and Transfer-Encoding both',
      head('POST', '/v1/payments', { ...json, 'Content-Length': length, 'Transfer-Encoding': 'chunked' }) + payment,
      [400],
    ],
    ['Content-Length -1', head('POST', '/v1/payments', { ...json, 'Content-Length': -1 }) + payment, [400]],
    ['Content-Length abc', head('POST', '/v1/payments', { ...json, 'Content-Length': 'abc' }) + payment, [400]],
    [
      'two different Content-Length headers',
      `POST /v1/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ctx.token}\r\nContent-Type: application/json\r\nContent-Length: 5\r\nContent-Length: ${length}\r\n\r\n${payment}`,
      [400],
    ],
    ['Content-Length 20000 with a 10-byte body', `${head('POST', '/v1/payments', { ...json, 'Content-Length': 20000 })}{"a":"b"} `, [413]],
    [
      'Content-Length 5000 on /oauth/token',
      `${head('POST', '/oauth/token', { 'Content-Type': 'application/json', 'Content-Length': 5000 })}{}`,
      [413],
    ],
    [
      'Content-Length 99999999999999999999',
      head('POST', '/v1/payments', { ...json, 'Content-Length': '99999999999999999999' }) + payment,
      [400, 413],
    ],
  ] as const) {
    await sendRaw(ctx, name, text, allowed);
  }
}

/** Deep and wide JSON bodies: 400, whatever the route. */
async function sendDeepJson(ctx: Ctx): Promise<void> {
  const deepArray = `${'['.repeat(8000)}${']'.repeat(8000)}`;
  const deepObject = `${'{"a":'.repeat(2700)}1${'}'.repeat(2700)}`;
  const wide = `{${Array.from({ length: 1500 }, (_, i) => `"k${i}":1`).join(',')}}`;
  const deepMetadata = JSON.stringify({
    ...cardPayment('deep-meta'),
    metadata: JSON.parse(`${'{"a":'.repeat(1000)}"x"${'}'.repeat(1000)}`),
  });
  const deepToken = `${'{"a":'.repeat(600)}1${'}'.repeat(600)}`;
  for (const [name, path, body, allowed] of [
    ['8000 nested arrays', '/v1/payments', deepArray, [400]],
    ['2700 nested objects', '/v1/payments', deepObject, [400]],
    ['1500 keys', '/v1/payments', wide, [400]],
    ['metadata nested 1000 levels', '/v1/payments', deepMetadata, [400]],
    ['600 nested objects on /oauth/token', '/oauth/token', deepToken, [400]],
    ['8000 nested arrays on /v1/wallets', '/v1/wallets', deepArray, [400]],
    ['8000 nested arrays on /v1/webhook_endpoints', '/v1/webhook_endpoints', deepArray, [400]],
  ] as const) {
    const headers = path === '/oauth/token' ? { 'Content-Type': 'application/json' } : jsonHeaders(ctx);
    await sendRaw(ctx, name, head('POST', path, { ...headers, 'Content-Length': Buffer.byteLength(body) }) + body, allowed);
  }
}

/** Many, repeated, huge or nested query parameters on three list routes. */
async function sendManyQueryParameters(ctx: Ctx): Promise<void> {
  for (const [name, query, allowed] of [
    ['1000 unknown query parameters', Array.from({ length: 1000 }, (_, i) => `x${i}=${i}`).join('&'), [400]],
    ['limit repeated 1000 times', Array.from({ length: 1000 }, () => 'limit=1').join('&'), [400]],
    ['status repeated 800 times', Array.from({ length: 800 }, () => 'status=succeeded').join('&'), [400]],
    ['a query string over 16 KiB', Array.from({ length: 1100 }, () => 'status=succeeded').join('&'), [431]],
    ['a parameter name of 8 KiB', `${'p'.repeat(8 * 1024)}=1`, [400]],
    ['1000 empty parameters', '&'.repeat(1000), [200, 400]],
    ['bracketed names (qs-style nesting)', Array.from({ length: 200 }, (_, i) => `a[b][c][${i}]=1`).join('&'), [400]],
  ] as const) {
    for (const path of ['/v1/payments', '/v1/events', '/v1/wallets']) {
      const o = await rawExchange(ctx.server.port, (s) => void s.write(head('GET', `${path}?${query}`, ctx.auth)), 10_000, {
        untilResponse: true,
      });
      record(ctx, `${name} on ${path}`, o);
      expectAnswer(ctx, `${name} on ${path}`, o, [...allowed]);
    }
  }
}

type SlowCut = Record<string, { cutAfterS: ReturnType<typeof summary>; endings: Record<string, number> }>;

/** Every slow connection cut by the server within its bound (headers 10 s, request 30 s, plus the check's granularity). */
function checkSlowConnectionsCut(ctx: Ctx, cut: { kind: SlowKind; o: RawOutcome }[]): SlowCut {
  const byKind: SlowCut = {};
  for (const kind of KINDS) {
    const mine = cut.filter((c) => c.kind === kind);
    const endings: Record<string, number> = {};
    for (const c of mine) {
      const label = c.o.status !== null ? `${c.o.status} then ${c.o.ended}` : c.o.ended;
      endings[label] = (endings[label] ?? 0) + 1;
    }
    byKind[kind] = { cutAfterS: summary(mine.map((c) => c.o.endMs / 1000)), endings };
    const bound = kind === 'headers' || kind === 'silent' ? HEADERS_CUT_BY_S : BODY_CUT_BY_S;
    const late = mine.filter((c) => c.o.ended === 'timeout' || c.o.endMs / 1000 > bound);
    if (late.length > 0)
      ctx.problems.push(
        `${late.length} ${kind} connections not cut by the server within ${bound} s (slowest: ${round(Math.max(...late.map((c) => c.o.endMs)) / 1000)} s${late.some((c) => c.o.ended === 'timeout') ? ', some still open at 60 s' : ''})`,
      );
    for (const c of mine) count5xx(ctx, c.o.status, `slow ${kind} connection`);
  }
  return byKind;
}

const okSample = (s: Sample) => s.status !== null && s.status >= 200 && s.status < 300;
const successRate = (list: Sample[]) => (list.length === 0 ? 0 : round((100 * list.filter(okSample).length) / list.length, 2));

/** Normal clients during the attack: every request succeeded, p99 under 2 s. */
function checkNormalClients(ctx: Ctx, samples: Sample[], attackStart: number, attackEnd: number) {
  const during = samples.filter((s) => s.at >= attackStart && s.at < attackEnd);
  const before = samples.filter((s) => s.at < attackStart);
  const p99During = summary(during.map((s) => s.ms)).p99;
  if (during.length < 50) ctx.problems.push(`only ${during.length} normal requests during the attack`);
  if (successRate(during) < 100) {
    const failures = during.filter((s) => !okSample(s));
    ctx.problems.push(
      `normal clients during the attack: ${failures.length} failures (${failures
        .slice(0, 3)
        .map((s) => s.status ?? s.error)
        .join(', ')})`,
    );
  }
  if (p99During >= 2_000) ctx.problems.push(`normal clients' p99 during the attack ${p99During} ms (≥ 2 s)`);
  const figures = (list: Sample[]) => ({ requests: list.length, successPct: successRate(list), latencyMs: summary(list.map((s) => s.ms)) });
  return { normalBaseline: figures(before), normalDuringAttack: figures(during) };
}

/** After the attack: a read and a payment succeed, the process runs, its log has no error lines. */
async function checkStillHealthy(ctx: Ctx): Promise<void> {
  const { server } = ctx;
  const health = await fetch(`${server.base}/healthz`);
  await health.arrayBuffer();
  const after = await fetch(`${server.base}/v1/payments`, {
    method: 'POST',
    headers: { ...ctx.auth, 'content-type': 'application/json' },
    body: JSON.stringify(cardPayment('sc-after')),
  });
  await after.arrayBuffer();
  count5xx(ctx, health.status, 'healthz after');
  count5xx(ctx, after.status, 'payment after');
  if (health.status !== 200 || after.status !== 201)
    ctx.problems.push(`after the attack: healthz ${health.status}, payment ${after.status}`);
  if (!server.running()) ctx.problems.push('the server exited');
  const errorLines = server
    .output()
    .split('\n')
    .filter((line) => /"level":(50|60)/.test(line));
  if (errorLines.length > 0) ctx.problems.push(`${errorLines.length} error lines in the server log, e.g. ${errorLines[0]!.slice(0, 200)}`);
}

/** One line per kind of abuse: its answers and the slowest time to the first byte. */
function abuseLines(abuse: Abuse[]): string[] {
  const grouped = new Map<string, Abuse[]>();
  for (const a of abuse) grouped.set(a.name, [...(grouped.get(a.name) ?? []), a]);
  return [...grouped].map(([name, list]) => {
    const statuses: Record<string, number> = {};
    for (const a of list) statuses[String(a.status ?? 'no answer')] = (statuses[String(a.status ?? 'no answer')] ?? 0) + 1;
    const answer = Object.entries(statuses)
      .map(([k, v]) => (list.length > 1 ? `${k} ×${v}` : k))
      .join(', ');
    return `${name}: ${answer} in ≤ ${Math.max(...list.map((a) => a.ms))} ms${list.length === 1 && list[0]!.note ? ` (${list[0]!.note})` : ''}`;
  });
}

/** Size abuse of every kind while the slow connections are open; server memory measured around the uploads. */
async function sendAbuse(ctx: Ctx): Promise<{ rssBefore: number; rssAfter: number; uploads: number }> {
  await sleep(1_000);
  const rssBefore = await serverRss(ctx.server.base);
  await sendBodyOverLimit(ctx);
  const uploads = await sendHugeUploads(ctx);
  const rssAfter = await serverRss(ctx.server.base);
  await sendHugeHeaders(ctx);
  await sendShortBodies(ctx);
  await sendBadContentLengths(ctx);
  await sendDeepJson(ctx);
  await sendManyQueryParameters(ctx);
  return { rssBefore, rssAfter, uploads };
}

async function runSlowClients(ctx: Ctx, details: Record<string, unknown>): Promise<void> {
  const SLOW = ctx.profile === 'full' ? 600 : 200;
  const NORMAL = 8;
  const BASELINE_MS = ctx.profile === 'full' ? 5_000 : 3_000;
  const normal = startNormalClients(ctx, NORMAL);
  await sleep(BASELINE_MS);
  const attackStart = Date.now();
  const slow = openSlowConnections(ctx, SLOW);
  const { rssBefore, rssAfter, uploads } = await sendAbuse(ctx);
  // Wait for the slow connections to be cut, then stop the normal clients.
  const cut = await Promise.all(slow);
  const attackEnd = Date.now();
  await normal.stop();
  const slowCut = checkSlowConnectionsCut(ctx, cut);
  const normalFigures = checkNormalClients(ctx, normal.samples, attackStart, attackEnd);
  const rssGrowthMiB = round((rssAfter - rssBefore) / MIB, 1);
  if (!(rssGrowthMiB < 64)) ctx.problems.push(`server memory grew ${rssGrowthMiB} MiB over ${uploads} uploads of 10 MiB`);
  await checkStillHealthy(ctx);

  ctx.figures.requests = ctx.requests;
  Object.assign(details, {
    slowConnections: SLOW,
    normalClients: NORMAL,
    attackSeconds: round((attackEnd - attackStart) / 1000),
    ...normalFigures,
    slowCut,
    abuse: abuseLines(ctx.abuse),
    rssMiB: { before: round(rssBefore / MIB), after: round(rssAfter / MIB), growth: rssGrowthMiB },
  });
}

export const slowClients: Scenario = {
  name: 'slow-clients',
  async run(profile: Profile): Promise<ScenarioResult> {
    const figures: Figures = emptyFigures();
    const details: Record<string, unknown> = {};
    const problems: string[] = [];
    const cleanup = new Cleanup();
    try {
      const ctx = await setUp(profile, figures, problems, cleanup);
      await runSlowClients(ctx, details);
    } finally {
      await cleanup.run();
    }
    return { name: 'slow-clients', figures, details, problems };
  },
};
