// Shared pieces of the concurrency suite (reference storms, double spends): one client interface over app.inject and
// over real HTTP (one or several server processes), a bounded parallel runner, money parsing.
import type { TestApp } from '../helpers/app.ts';

// freePort lives in test/helpers/processes.ts (shared with test/webhooks and test/faults).
export { freePort } from '../helpers/processes.ts';

export interface ApiResponse {
  status: number;
  headers: Record<string, string | undefined>;
  // Response bodies are JSON objects of the API; tests read them loosely.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface ApiClient {
  /** What the figures call it: "inject", "http ×2". */
  readonly label: string;
  request(method: 'GET' | 'POST', path: string, payload?: unknown): Promise<ApiResponse>;
}

/** Requests through Fastify's inject: real routing, hooks and services, no sockets. */
export function injectClient(app: TestApp, auth: { authorization: string }): ApiClient {
  return {
    label: 'inject',
    async request(method, path, payload) {
      const res = await app.inject({ method, url: path, headers: auth, ...(payload === undefined ? {} : { payload: payload as object }) });
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(res.headers)) headers[k] = v === undefined ? undefined : String(v);
      let body: unknown = null;
      try {
        body = res.body === '' ? null : res.json();
      } catch {
        body = res.body;
      }
      return { status: res.statusCode, headers, body };
    },
  };
}

/**
 * Real HTTP to one or more listening servers. Requests alternate between the base URLs
 * (round robin), so a storm is spread evenly over several processes.
 */
export function httpClient(baseUrls: string[], auth: { authorization: string }): ApiClient {
  if (baseUrls.length === 0) throw new Error('httpClient: no base URL');
  for (const url of baseUrls) {
    const host = new URL(url).hostname;
    if (host !== '127.0.0.1' && host !== 'localhost') throw new Error(`httpClient: only 127.0.0.1, not ${url}`);
  }
  let next = 0;
  return {
    label: `http ×${baseUrls.length}`,
    async request(method, path, payload) {
      const base = baseUrls[next++ % baseUrls.length]!;
      const res = await fetch(base + path, {
        method,
        headers: { ...auth, accept: 'application/json', ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      });
      const text = await res.text();
      const headers: Record<string, string | undefined> = {};
      res.headers.forEach((v, k) => {
        headers[k] = v;
      });
      let body: unknown = text;
      try {
        body = text === '' ? null : JSON.parse(text);
      } catch {
        /* keep the text */
      }
      return { status: res.status, headers, body };
    },
  };
}

/**
 * Runs `count` tasks with at most `concurrency` in flight; results in task order. With
 * concurrency ≥ count every task starts at once (a storm).
 */
export async function inParallel<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(count, Math.max(1, concurrency)) }, worker));
  return results;
}

/** "1000.00" / "-10.50" (a currency with two minor digits) → minor units. */
export function minorUnits(amount: string): bigint {
  const match = /^([+-]?)(\d+)(?:\.(\d{2}))?$/.exec(amount);
  if (!match) throw new Error(`not a two-digit amount: ${amount}`);
  const value = BigInt(match[2]! + (match[3] ?? '00'));
  return match[1] === '-' ? -value : value;
}

/** Counts statuses: { "201": 1, "200": 99 }. */
export function tally(values: Array<string | number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[String(v)] = (out[String(v)] ?? 0) + 1;
  return out;
}

/** One line of figures (the suite prints what it measured). */
export function figuresLine(name: string, figures: Record<string, unknown>): string {
  return `figures ${name}: ${JSON.stringify(figures, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`;
}

/** Prints figures as a test diagnostic, so every reporter shows them. */
export function reportFigures(t: { diagnostic(message: string): void }, name: string, figures: Record<string, unknown>): void {
  t.diagnostic(figuresLine(name, figures));
}

/**
 * Starts `app` listening on a free port of 127.0.0.1 and returns a real-HTTP client for it: the
 * requests of a storm arrive over sockets and run on the pool's connections at once (PostgreSQL).
 * The app's own close (buildTestApp's) stops the listener.
 */
export async function listeningClient(app: TestApp, auth: { authorization: string }): Promise<ApiClient> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return httpClient([`http://127.0.0.1:${port}`], auth);
}
