// Slow clients and request-size abuse (reliability.md, "Concurrency, faults, security"; api-v1.md
// §12): hundreds of connections that dribble their headers or their body, or send nothing, while
// normal clients keep working (success rate and p99 measured against a baseline); the server cuts
// the slow ones (headers 10 s, request 30 s: measured). Then bodies over the limit (16 KiB + 1,
// 10 MiB with and without Content-Length), huge headers, lying Content-Length, deep JSON, many
// query parameters: never a 5xx, never a hang, memory bounded, and the server stays healthy.

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

export const slowClients: Scenario = {
  name: 'slow-clients',
  async run(profile: Profile): Promise<ScenarioResult> {
    const figures: Figures = emptyFigures();
    const details: Record<string, unknown> = {};
    const problems: string[] = [];
    const cleanup = new Cleanup();
    try {
      const SLOW = profile === 'full' ? 600 : 200;
      const NORMAL = 8;
      const BASELINE_MS = profile === 'full' ? 5_000 : 3_000;
      // Bounds: the configured timeout plus the granularity of the server's check.
      const HEADERS_CUT_BY_S = 13;
      const BODY_CUT_BY_S = 33;

      const db = await createDatabase('slow_clients', cleanup);
      const secretKey = newSecretKey();
      const deps = await operatorDeps(db.url, secretKey, cleanup);
      const merchant = await createMerchant(deps, 'Slow clients merchant');
      const server = await startServer(cleanup, { DATABASE_URL: db.url, PURSE_SECRET_KEY: secretKey, LOG_LEVEL: 'warn' });
      const token = await issueToken(server.base, merchant);
      const auth = { authorization: `Bearer ${token}` };
      let requests = 0;
      const count5xx = (status: number | null, what: string) => {
        requests += 1;
        if (status !== null && status >= 500) {
          figures.unexpected5xx += 1;
          problems.push(`${what}: ${status}`);
        }
      };

      // Normal clients: a read, a card payment and a list, in a loop, all the time.
      const samples: Sample[] = [];
      let stopNormal = false;
      let n = 0;
      const normal = async (worker: number) => {
        while (!stopNormal) {
          const i = n++;
          const started = Date.now();
          const sample: Sample = { at: started, ms: 0, status: null, error: null };
          try {
            const res =
              i % 3 === 0
                ? await fetch(`${server.base}/v1/merchant`, { headers: auth })
                : i % 3 === 1
                  ? await fetch(`${server.base}/v1/payments`, {
                      method: 'POST',
                      headers: { ...auth, 'content-type': 'application/json' },
                      body: JSON.stringify(cardPayment(`sc-${worker}-${i}`)),
                    })
                  : await fetch(`${server.base}/v1/payments?limit=10`, { headers: auth });
            await res.arrayBuffer();
            sample.status = res.status;
          } catch (error) {
            sample.error = error instanceof Error ? ((error.cause as { code?: string } | undefined)?.code ?? error.message) : String(error);
          }
          sample.ms = Date.now() - started;
          samples.push(sample);
          count5xx(sample.status, 'a normal request');
        }
      };
      const normals = Promise.all(Array.from({ length: NORMAL }, (_, w) => normal(w)));
      await sleep(BASELINE_MS);
      const attackStart = Date.now();

      // The attack: a quarter each of dribbled headers, silent connections, dribbled /v1 bodies
      // and dribbled token-endpoint bodies.
      const kinds: SlowKind[] = ['headers', 'silent', 'body', 'token-body'];
      const slow = Array.from({ length: SLOW }, (_, i) => {
        const kind = kinds[i % kinds.length]!;
        const outcome = rawExchange(
          server.port,
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

      // Size abuse while the slow connections are open.
      const abuse: { name: string; status: number | null; ms: number; note?: string }[] = [];
      const record = (name: string, o: RawOutcome, note?: string) => {
        abuse.push({ name, status: o.status, ms: o.firstByteMs ?? o.endMs, ...(note ? { note } : {}) });
        count5xx(o.status, name);
        for (const extra of parseResponses(o.response).slice(1)) count5xx(extra.status, `${name} (second answer)`);
      };
      const head = (method: string, path: string, headers: Record<string, string | number>) =>
        `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join('')}\r\n`;
      const json = { ...auth, 'Content-Type': 'application/json' };
      const expectAnswer = (name: string, o: RawOutcome, allowed: number[]) => {
        if (o.status === null) problems.push(`${name}: no answer (${o.ended} after ${o.endMs} ms)`);
        else if (!allowed.includes(o.status)) problems.push(`${name}: ${o.status}, expected ${allowed.join(' or ')}`);
      };
      await sleep(1_000);
      const rssBefore = await serverRss(server.base);

      // 16 KiB + 1: the contract's 413.
      {
        const body = JSON.stringify({
          ...cardPayment('big'),
          metadata: { pad: 'x'.repeat(16 * 1024 + 1 - JSON.stringify({ ...cardPayment('big'), metadata: { pad: '' } }).length) },
        });
        const o = await rawExchange(
          server.port,
          (s) => void s.end(head('POST', '/v1/payments', { ...json, 'Content-Length': Buffer.byteLength(body) }) + body),
          10_000,
          { untilResponse: true },
        );
        record('body of 16 KiB + 1', o);
        expectAnswer('body of 16 KiB + 1', o, [413]);
        if (o.status === 413 && !/"code":"payload_too_large"/.test(o.response))
          problems.push(`16 KiB + 1: the 413 is not payload_too_large: ${o.response.slice(-200)}`);
      }
      // 10 MiB announced by Content-Length, then 10 MiB chunked: answered long before the upload ends.
      const upload = async (chunked: boolean, path = '/v1/payments', headers: Record<string, string> = json) => {
        const piece = Buffer.alloc(64 * 1024, 0x20);
        return rawExchange(
          server.port,
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
      };
      // A client must read the 413, not a reset: each kind is sent repeatedly (a close with unread
      // bytes resets the connection, and the answer is lost to timing).
      const REPEAT = profile === 'full' ? 40 : 15;
      const uploads: [string, RawOutcome][] = [];
      for (let i = 0; i < REPEAT; i++) {
        uploads.push(['10 MiB with Content-Length', await upload(false)]);
        uploads.push(['10 MiB chunked', await upload(true)]);
      }
      uploads.push(['10 MiB chunked to /oauth/token', await upload(true, '/oauth/token', { 'Content-Type': 'application/json' })]);
      uploads.push([
        '10 MiB with Content-Length to /oauth/token',
        await upload(false, '/oauth/token', { 'Content-Type': 'application/json' }),
      ]);
      uploads.push(['10 MiB with Content-Length, no token', await upload(false, '/v1/payments', { 'Content-Type': 'application/json' })]);
      for (const [name, o] of uploads) {
        record(name, o, `${round(o.bytesWritten / MIB, 2)} MiB written when answered`);
        expectAnswer(name, o, name.includes('no token') ? [401, 413] : [413]);
        if (o.status !== null && (o.firstByteMs ?? Infinity) > 2_000) problems.push(`${name}: answered after ${o.firstByteMs} ms (> 2 s)`);
        if (o.status === 413 && !name.includes('oauth') && !/"payload_too_large"/.test(o.response))
          problems.push(`${name}: a 413 without payload_too_large: ${o.response.slice(-160)}`);
      }
      // Ten at once: the server must not hold them in memory.
      const many = await Promise.all(Array.from({ length: 10 }, (_, i) => upload(i % 2 === 0)));
      for (const o of many) {
        record('10 MiB × 10 in parallel', o);
        expectAnswer('10 MiB × 10 in parallel', o, [413]);
      }
      const rssAfter = await serverRss(server.base);

      // Huge headers and URLs: Node's 16 KiB header limit answers 431.
      for (const [name, text] of [
        ['one header of 32 KiB', head('GET', '/v1/merchant', { ...auth, 'X-Big': 'a'.repeat(32 * 1024) })],
        [
          '3000 headers',
          head('GET', '/v1/merchant', { ...auth, ...Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`X-H${i}`, 'v'])) }),
        ],
        ['URL of 20 KiB', head('GET', `/v1/payments?reference=${'r'.repeat(20 * 1024)}`, auth)],
        ['Authorization of 20 KiB', head('GET', '/v1/merchant', { authorization: `Bearer ${'a'.repeat(20 * 1024)}` })],
      ] as const) {
        const o = await rawExchange(server.port, (s) => void s.write(text), 10_000, { untilResponse: true });
        record(name, o);
        // Node counts header bytes only up to its maxHeadersCount (2000): many small headers pass.
        expectAnswer(name, o, name === '3000 headers' ? [200, 400, 431] : [400, 413, 414, 431]);
      }

      // Content-Length that lies.
      const payment = JSON.stringify(cardPayment('lying-cl'));
      {
        // Shorter body than announced, then the client half-closes: no answer needed, no 5xx.
        const o = await rawExchange(
          server.port,
          async (s) => {
            s.write(head('POST', '/v1/payments', { ...json, 'Content-Length': Buffer.byteLength(payment) + 100 }) + payment);
            await sleep(500);
            s.end();
          },
          10_000,
        );
        record('Content-Length 100 bytes above the body, then EOF', o, o.ended);
      }
      {
        // Shorter body than announced and the client waits: the server waits too (up to requestTimeout).
        const o = await rawExchange(
          server.port,
          (s) => void s.write(head('POST', '/v1/payments', { ...json, 'Content-Length': Buffer.byteLength(payment) + 100 }) + payment),
          2_000,
        );
        record('Content-Length 100 bytes above the body, client waits 2 s', o, o.ended);
        if (o.status !== null) expectAnswer('Content-Length above the body', o, [400, 408]);
      }
      for (const [name, text, allowed] of [
        [
          'Content-Length 10 below the body',
          head('POST', '/v1/payments', { ...json, 'Content-Length': Buffer.byteLength(payment) - 10 }) + payment,
          [400],
        ],
        [
          'Content-Length and Transfer-Encoding both',
          head('POST', '/v1/payments', { ...json, 'Content-Length': Buffer.byteLength(payment), 'Transfer-Encoding': 'chunked' }) + payment,
          [400],
        ],
        ['Content-Length -1', head('POST', '/v1/payments', { ...json, 'Content-Length': -1 }) + payment, [400]],
        ['Content-Length abc', head('POST', '/v1/payments', { ...json, 'Content-Length': 'abc' }) + payment, [400]],
        [
          'two different Content-Length headers',
          `POST /v1/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 5\r\nContent-Length: ${Buffer.byteLength(payment)}\r\n\r\n${payment}`,
          [400],
        ],
        [
          'Content-Length 20000 with a 10-byte body',
          `${head('POST', '/v1/payments', { ...json, 'Content-Length': 20000 })}{"a":"b"} `,
          [413],
        ],
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
        const o = await rawExchange(server.port, (s) => void s.write(text), 10_000, { untilResponse: true });
        record(name, o);
        expectAnswer(name, o, [...allowed]);
      }

      // Deep JSON, wide JSON, many query parameters.
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
        const headers = path === '/oauth/token' ? { 'Content-Type': 'application/json' } : json;
        const o = await rawExchange(
          server.port,
          (s) => void s.write(head('POST', path, { ...headers, 'Content-Length': Buffer.byteLength(body) }) + body),
          10_000,
          { untilResponse: true },
        );
        record(name, o);
        expectAnswer(name, o, [...allowed]);
      }
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
          const o = await rawExchange(server.port, (s) => void s.write(head('GET', `${path}?${query}`, auth)), 10_000, {
            untilResponse: true,
          });
          record(`${name} on ${path}`, o);
          expectAnswer(`${name} on ${path}`, o, [...allowed]);
        }
      }

      // Wait for the slow connections to be cut, then stop the normal clients.
      const cut = await Promise.all(slow);
      const attackEnd = Date.now();
      stopNormal = true;
      await normals;

      const byKind: Record<string, { cutAfterS: ReturnType<typeof summary>; endings: Record<string, number> }> = {};
      for (const kind of kinds) {
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
          problems.push(
            `${late.length} ${kind} connections not cut by the server within ${bound} s (slowest: ${round(Math.max(...late.map((c) => c.o.endMs)) / 1000)} s${late.some((c) => c.o.ended === 'timeout') ? ', some still open at 60 s' : ''})`,
          );
        for (const c of mine) count5xx(c.o.status, `slow ${kind} connection`);
      }

      const during = samples.filter((s) => s.at >= attackStart && s.at < attackEnd);
      const before = samples.filter((s) => s.at < attackStart);
      const ok = (s: Sample) => s.status !== null && s.status >= 200 && s.status < 300;
      const rate = (list: Sample[]) => (list.length === 0 ? 0 : round((100 * list.filter(ok).length) / list.length, 2));
      const p99During = summary(during.map((s) => s.ms)).p99;
      if (during.length < 50) problems.push(`only ${during.length} normal requests during the attack`);
      if (rate(during) < 100) {
        const failures = during.filter((s) => !ok(s));
        problems.push(
          `normal clients during the attack: ${failures.length} failures (${failures
            .slice(0, 3)
            .map((s) => s.status ?? s.error)
            .join(', ')})`,
        );
      }
      if (p99During >= 2_000) problems.push(`normal clients' p99 during the attack ${p99During} ms (≥ 2 s)`);
      const rssGrowthMiB = round((rssAfter - rssBefore) / MIB, 1);
      if (!(rssGrowthMiB < 64))
        problems.push(`server memory grew ${rssGrowthMiB} MiB over ${uploads.length + many.length} uploads of 10 MiB`);

      // Still healthy: a read and a payment.
      const health = await fetch(`${server.base}/healthz`);
      await health.arrayBuffer();
      const after = await fetch(`${server.base}/v1/payments`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(cardPayment('sc-after')),
      });
      await after.arrayBuffer();
      count5xx(health.status, 'healthz after');
      count5xx(after.status, 'payment after');
      if (health.status !== 200 || after.status !== 201)
        problems.push(`after the attack: healthz ${health.status}, payment ${after.status}`);
      if (!server.running()) problems.push('the server exited');
      const errorLines = server
        .output()
        .split('\n')
        .filter((line) => /"level":(50|60)/.test(line));
      if (errorLines.length > 0) problems.push(`${errorLines.length} error lines in the server log, e.g. ${errorLines[0]!.slice(0, 200)}`);

      figures.requests = requests;
      Object.assign(details, {
        slowConnections: SLOW,
        normalClients: NORMAL,
        attackSeconds: round((attackEnd - attackStart) / 1000),
        normalBaseline: { requests: before.length, successPct: rate(before), latencyMs: summary(before.map((s) => s.ms)) },
        normalDuringAttack: { requests: during.length, successPct: rate(during), latencyMs: summary(during.map((s) => s.ms)) },
        slowCut: byKind,
        abuse: (() => {
          const grouped = new Map<string, typeof abuse>();
          for (const a of abuse) grouped.set(a.name, [...(grouped.get(a.name) ?? []), a]);
          return [...grouped].map(([name, list]) => {
            const statuses: Record<string, number> = {};
            for (const a of list) statuses[String(a.status ?? 'no answer')] = (statuses[String(a.status ?? 'no answer')] ?? 0) + 1;
            const answer = Object.entries(statuses)
              .map(([k, v]) => (list.length > 1 ? `${k} ×${v}` : k))
              .join(', ');
            return `${name}: ${answer} in ≤ ${Math.max(...list.map((a) => a.ms))} ms${list.length === 1 && list[0]!.note ? ` (${list[0]!.note})` : ''}`;
          });
        })(),
        rssMiB: { before: round(rssBefore / MIB), after: round(rssAfter / MIB), growth: rssGrowthMiB },
      });
    } finally {
      await cleanup.run();
    }
    return { name: 'slow-clients', figures, details, problems };
  },
};
