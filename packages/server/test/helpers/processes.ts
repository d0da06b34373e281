// The toolbox for tests and fault scenarios that run real server processes: free ports, spawned
// `node src/main.ts` servers (stopped by pid), readiness, tokens, bounded parallelism, polling.
// Only 127.0.0.1. Shared by test/webhooks, test/concurrency and test/faults.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serverArgs } from './programs.ts';

/** packages/server: the working directory of a spawned server. */
export const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));

export async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

/** Polls until `check` returns a truthy value; the message says what did not happen. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs = 10_000,
  stepMs = 25,
): Promise<T> {
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

/** A free TCP port on 127.0.0.1 (listen on 0, read it, close). */
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

export interface SpawnedServer {
  child: ChildProcess;
  pid: number;
  base: string;
  output(): string;
  exited: Promise<void>;
  running(): boolean;
}

/** Where a spawned server's stop is registered: a node:test context, or a fault scenario's cleanup list. */
export interface CleanupScope {
  after(fn: () => unknown): void;
}

/** The environment of a spawned server: nothing inherited that could change its behaviour. */
export function serverEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
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
    PURSE_ADDRESS_FAILURE_LIMIT: '0',
    PURSE_SANDBOX_DELAY_MS: '20',
    PURSE_WORKER_INTERVAL_MS: '20',
    PURSE_ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    ...overrides,
  };
}

/**
 * Spawns `node --import tsx src/main.ts` (cwd packages/server), or this run's bundle of it
 * (test/helpers/programs.ts). When the scope ends it is stopped by its pid: SIGTERM, then SIGKILL after 10 s.
 */
export function spawnServer(t: CleanupScope, env: Record<string, string> & { PORT: string }, script = 'src/main.ts'): SpawnedServer {
  const child = spawn(process.execPath, serverArgs(script), {
    cwd: SERVER_DIR,
    env: serverEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
export async function waitReady(server: SpawnedServer, timeoutMs = 90_000): Promise<void> {
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
