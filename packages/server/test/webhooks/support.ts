// Shared pieces of the webhook suite: a private PostgreSQL database per file, one API client over
// app.inject or real HTTP, Standard Webhooks verification, spawned servers.
import assert from 'node:assert/strict';
import { after, before, type TestContext } from 'node:test';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { createPostgresDb } from '../../src/db/db.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { buildTestApp, type TestApp, type TestAppOptions } from '../helpers/app.ts';
import type { Received } from './receiver.ts';

// The process helpers live in test/helpers/processes.ts (shared with test/faults); re-exported
// so the webhook tests keep importing them from here.
export {
  eventually,
  freePort,
  parallel,
  SERVER_DIR,
  type SpawnedServer,
  sleep,
  spawnServer,
  tokenFor,
  waitReady,
} from '../helpers/processes.ts';

/**
 * What one test file holds here: its cleanups and its private database. A file's top level calls
 * usePrivatePostgres() first, which makes its scope the current one; atFileEnd() and useFileApp(),
 * called later at the same top level, take that scope then. Several files may share a process
 * (test/helpers/shards.ts): their top levels run one after the other before any test, so each file
 * must keep its own scope, not look the current one up when its hooks run.
 */
interface FileScope {
  cleanups: (() => Promise<void>)[];
  database: () => Promise<void>;
}

let current: FileScope | null = null;

function fileScope(): FileScope {
  if (!current) throw new Error('call usePrivatePostgres() first, at the top level of the test file');
  return current;
}

/** Runs `fn` when the file's tests are done, before its private database is dropped (last in, first out). Top level only. */
export function atFileEnd(fn: () => Promise<void>): void {
  fileScope().cleanups.push(fn);
}

/**
 * Delivery workers claim every due delivery of the database, whoever created it. On the run's
 * shared PostgreSQL database a worker of another test file (another retry schedule, timeout or
 * SSRF setting) would send this file's deliveries, so each webhook file works in a database of
 * its own on the same server: created and migrated before the file's tests, dropped after.
 * On PGlite every app already has its own copy of the template; nothing to do but the cleanups.
 */
export function usePrivatePostgres(): () => Promise<void> {
  const shared = process.env.TEST_DATABASE_URL;
  const admin = shared ? new URL(shared) : null;
  if (admin) admin.pathname = '/postgres';
  const name = `purse_test_wh_${process.pid}_${Date.now().toString(36)}`;
  // Created once, by the first of this hook and the file's own before() that awaits it: node:test
  // does not promise that one top-level before() has finished when the next one starts.
  let creating: Promise<void> | null = null;
  const create = () =>
    (creating ??= (async () => {
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
    })());
  const file: FileScope = { cleanups: [], database: create };
  current = file;
  before(create);
  after(async () => {
    for (const fn of file.cleanups.splice(0).reverse()) await fn();
    if (!shared || !admin) return;
    process.env.TEST_DATABASE_URL = shared;
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  });
  return create;
}

/**
 * One app for the whole file (building one costs seconds), with its settlement and delivery
 * workers running (`deliveryWorker: false`: the settlement worker only); tests tell their data
 * apart by merchant. Call after usePrivatePostgres().
 */
export function useFileApp(options: TestAppOptions & { deliveryWorker?: boolean } = {}): () => TestApp {
  let app: TestApp | null = null;
  const file = fileScope();
  before(async () => {
    await file.database();
    const built = await buildTestApp(null, options);
    app = built;
    built.deps.worker.start();
    if (options.deliveryWorker !== false) built.deps.deliveryWorker.start();
    file.cleanups.push(async () => {
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

/** Prints the figures of a test as one diagnostic line. */
export function figures(t: Pick<TestContext, 'diagnostic'>, label: string, values: Record<string, unknown>): void {
  t.diagnostic(
    `${label}: ${Object.entries(values)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' ')}`,
  );
}
