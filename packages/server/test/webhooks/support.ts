// Shared pieces of the webhook suite (issue 4): a private PostgreSQL database per file, one API
// client over app.inject or real HTTP, Standard Webhooks verification, spawned servers.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { after, before, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { createPostgresDb } from '../../src/db/db.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { type TestApp, type TestAppOptions, buildTestApp } from '../helpers/app.ts';
import type { Received } from './receiver.ts';

export const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));

const cleanups: (() => Promise<void>)[] = [];

/** Runs `fn` when the file's tests are done, before its private database is dropped (last in, first out). */
export function atFileEnd(fn: () => Promise<void>): void {
  cleanups.push(fn);
}

/**
 * Delivery workers claim every due delivery of the database, whoever created it. On the run's
 * shared PostgreSQL database a worker of another test file (another retry schedule, timeout or
 * SSRF setting) would send this file's deliveries, so each webhook file works in a database of
 * its own on the same server: created and migrated before the file's tests, dropped after.
 * On PGlite every app already has its own copy of the template; nothing to do but the cleanups.
 */
export function usePrivatePostgres(): void {
  const shared = process.env.TEST_DATABASE_URL;
  const admin = shared ? new URL(shared) : null;
  if (admin) admin.pathname = '/postgres';
  const name = `purse_test_wh_${process.pid}_${Date.now().toString(36)}`;
  before(async () => {
    if (!shared || !admin) return;
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
    const url = new URL(shared);
    url.pathname = `/${name}`;
    const handle = createPostgresDb(url.toString(), 2);
    await migrateToLatest(handle.db);
    await handle.close();
    process.env.TEST_DATABASE_URL = url.toString();
  });
  after(async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn();
    if (!shared || !admin) return;
    process.env.TEST_DATABASE_URL = shared;
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  });
}

/**
 * One app for the whole file (building one costs seconds), with its settlement and delivery
 * workers running (`deliveryWorker: false`: the settlement worker only); tests tell their data
 * apart by merchant. Call after usePrivatePostgres().
 */
export function useFileApp(options: TestAppOptions & { deliveryWorker?: boolean } = {}): () => TestApp {
  let app: TestApp | null = null;
  before(async () => {
    const built = await buildTestApp(null, options);
    app = built;
    built.deps.worker.start();
    if (options.deliveryWorker !== false) built.deps.deliveryWorker.start();
    atFileEnd(async () => {
      await built.close();
      await built.deps.close();
    });
  });
  return () => {
    if (!app) throw new Error('useFileApp: the app is built in before()');
    return app;
  };
}

export interface ApiResult {
  status: number;
  // Response bodies are the API's JSON objects; tests read them loosely.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface Api {
  get(path: string): Promise<ApiResult>;
  post(path: string, payload?: unknown): Promise<ApiResult>;
  del(path: string): Promise<ApiResult>;
}

/** The API through Fastify's inject (no sockets). */
export function injectApi(app: TestApp, auth: { authorization: string }): Api {
  const call = async (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown): Promise<ApiResult> => {
    const res = await app.inject({ method, url, headers: auth, ...(payload === undefined ? {} : { payload: payload as object }) });
    return { status: res.statusCode, body: res.body === '' ? null : res.json() };
  };
  return { get: (p) => call('GET', p), post: (p, b) => call('POST', p, b ?? {}), del: (p) => call('DELETE', p) };
}

/** The API over real HTTP (a spawned server); only 127.0.0.1. */
export function httpApi(base: string, auth: { authorization: string }): Api {
  assert.equal(new URL(base).hostname, '127.0.0.1');
  const call = async (method: string, path: string, payload?: unknown): Promise<ApiResult> => {
    const res = await fetch(base + path, {
      method,
      headers: { ...auth, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  return { get: (p) => call('GET', p), post: (p, b) => call('POST', p, b ?? {}), del: (p) => call('DELETE', p) };
}

/** Every event of the merchant, newest first, through the list's cursor. */
export interface EventBody {
  id: string;
  type: string;
  data: { object: { id: string; [key: string]: unknown } };
  [key: string]: unknown;
}

export async function allEvents(api: Api, query = ''): Promise<EventBody[]> {
  const out: EventBody[] = [];
  let cursor: string | null = null;
  for (;;) {
    const res = await api.get(`/v1/events?limit=100${query}${cursor ? `&starting_after=${cursor}` : ''}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    out.push(...res.body.data);
    if (!res.body.has_more) return out;
    cursor = res.body.data.at(-1).id;
  }
}

function headerRecord(received: Received): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(received.headers)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** Verifies one request with the standardwebhooks library; returns the parsed body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function verifyReceipt(received: Received, secret: string): any {
  return new Webhook(secret).verify(received.body, headerRecord(received));
}

export function verifies(received: Received, secret: string): boolean {
  try {
    verifyReceipt(received, secret);
    return true;
  } catch {
    return false;
  }
}

export const webhookId = (r: Received) => r.headers['webhook-id'] as string;

export async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

/** Polls until `check` returns a truthy value; the message says what did not happen. */
export async function eventually<T>(what: string, check: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 10_000, stepMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await sleep(stepMs);
  }
}

/** Runs `fn` over `items` with at most `limit` at a time. */
export async function parallel<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Prints the figures of a test as one diagnostic line. */
export function figures(t: Pick<TestContext, 'diagnostic'>, label: string, values: Record<string, unknown>): void {
  t.diagnostic(`${label}: ${Object.entries(values).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ')}`);
}

export interface SpawnedServer {
  child: ChildProcess;
  pid: number;
  base: string;
  output(): string;
  exited: Promise<void>;
  running(): boolean;
}

/** The environment of a spawned server: nothing inherited that could change its behaviour. */
function serverEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(PURSE_|DATABASE_URL$|TEST_DATABASE_URL$|DATA_DIR$|PORT$|HOST$|LOG_LEVEL$|NODE_TEST_CONTEXT$|NODE_OPTIONS$)/.test(key)) continue;
    env[key] = value;
  }
  return {
    ...env,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    PURSE_RATE_LIMIT_PER_S: '0',
    PURSE_SANDBOX_DELAY_MS: '20',
    PURSE_WORKER_INTERVAL_MS: '20',
    PURSE_ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    ...overrides,
  };
}

/**
 * Spawns `node --import tsx src/main.ts` (cwd packages/server). When the test ends it is stopped
 * by its pid: SIGTERM, then SIGKILL after 10 s.
 */
export function spawnServer(t: Pick<TestContext, 'after'>, env: Record<string, string> & { PORT: string }): SpawnedServer {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: SERVER_DIR, env: serverEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    if (output.length < 256 * 1024) output += chunk.toString('utf8');
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;
  t.after(async () => {
    if (!running()) return;
    process.kill(child.pid!, 'SIGTERM');
    const timer = setTimeout(() => {
      if (running()) process.kill(child.pid!, 'SIGKILL');
    }, 10_000);
    await exited;
    clearTimeout(timer);
  });
  return { child, pid: child.pid!, base: `http://127.0.0.1:${env.PORT}`, output: () => output, exited, running };
}

/** Polls GET /readyz until 200; fails early, with the server's output, if it exits. */
export async function waitReady(server: SpawnedServer, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!server.running()) throw new Error(`server ${server.pid} exited before it was ready:\n${server.output()}`);
    try {
      const res = await fetch(`${server.base}/readyz`);
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`server ${server.pid} not ready after ${timeoutMs} ms:\n${server.output()}`);
    await sleep(50);
  }
}

/** A Bearer token from the server's token endpoint. */
export async function tokenFor(base: string, clientId: string, clientSecret: string): Promise<{ authorization: string }> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  const body = (await res.json()) as { access_token: string };
  assert.equal(res.status, 200, JSON.stringify(body));
  return { authorization: `Bearer ${body.access_token}` };
}
