// Pieces shared by the shutdown, slow-clients and security scenarios: a cleanup stack (every
// process stopped by its pid, every database dropped, also on failure), a fresh PostgreSQL
// database per scenario, spawned servers whose output can go to a file, merchants created
// through the services, raw-socket requests and a small recording HTTP client. Only 127.0.0.1.

import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.ts';
import { buildDeps, type Deps } from '../../src/deps.ts';
import { isHealthy, verifyLedger } from '../../src/ledger/verify.ts';
import { revealMerchantSigningSecret } from '../../src/webhooks/secrets.ts';
import { freePort, SERVER_DIR, serverEnv, sleep } from '../helpers/processes.ts';

export { eventually, freePort, parallel, SERVER_DIR, sleep } from '../helpers/processes.ts';

export const TMP_DIR = fileURLToPath(new URL('../../.tmp/', import.meta.url));
const ADMIN_URL = process.env.PURSE_FAULTS_ADMIN_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

/** Last in, first out; every step runs even when an earlier one throws. */
export class Cleanup {
  private readonly steps: (() => Promise<void> | void)[] = [];
  add(step: () => Promise<void> | void): void {
    this.steps.push(step);
  }
  async run(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        process.stdout.write(`cleanup step failed: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
  }
}

/** A fresh database on the machine's PostgreSQL, dropped by the cleanup. */
export async function createDatabase(name: string, cleanup: Cleanup): Promise<{ url: string; name: string }> {
  const dbName = `purse_faults_${name.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${dbName}`);
  } finally {
    await admin.end();
  }
  cleanup.add(async () => {
    const client = new pg.Client({ connectionString: ADMIN_URL });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    } finally {
      await client.end();
    }
  });
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  return { url: url.toString(), name: dbName };
}

export const newSecretKey = (): string => randomBytes(36).toString('base64url');

/**
 * The services on the scenario's database, in this process (migrates it; no workers): merchants
 * are created here as the operator command would. Closed by the cleanup.
 */
export async function operatorDeps(databaseUrl: string, secretKey: string, cleanup: Cleanup): Promise<Deps> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    PURSE_SECRET_KEY: secretKey,
    LOG_LEVEL: 'silent',
    PURSE_WORKER: 'false',
    PURSE_DB_POOL_SIZE: '4',
  });
  const deps = await buildDeps(config, { logger: pino({ level: 'silent' }) });
  cleanup.add(() => deps.close());
  return deps;
}

export interface Merchant {
  merchantId: string;
  clientId: string;
  clientSecret: string;
  /** The merchant's default webhook signing secret (callback_url deliveries). */
  webhookSecret: string;
}

export async function createMerchant(deps: Deps, name: string): Promise<Merchant> {
  const created = await deps.services.merchants.createMerchant({ name });
  if (!created.ok) throw new Error(`createMerchant: ${created.error}`);
  const { merchant_id, client_id, client_secret } = created.value;
  const webhookSecret = await revealMerchantSigningSecret(deps.db.db, deps.encryptionKey, deps.clock, merchant_id);
  return { merchantId: merchant_id, clientId: client_id, clientSecret: client_secret, webhookSecret: webhookSecret! };
}

export async function ledgerImbalance(deps: Deps): Promise<{ count: number; report: unknown }> {
  const report = await verifyLedger(deps.db.db);
  const count = isHealthy(report)
    ? 0
    : report.unbalanced.length + report.walletMismatches.length + report.negativeWallets.length + report.chargePostingMismatches.length;
  return { count, report };
}

export interface Server {
  pid: number;
  port: number;
  base: string;
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  running(): boolean;
  /** The output so far (the log file's content when one was given). */
  output(): string;
}

/**
 * `node --import tsx src/main.ts` on a free port of 127.0.0.1, ready (GET /readyz 200) when it
 * returns. stdout and stderr go to `logFile` when given (appended), else into memory. The
 * cleanup stops it by its pid: SIGTERM, SIGKILL after 10 s.
 */
export async function startServer(
  cleanup: Cleanup,
  env: Record<string, string>,
  options: { logFile?: string; port?: number } = {},
): Promise<Server> {
  const port = options.port ?? (await freePort());
  const fd = options.logFile ? openSync(options.logFile, 'a') : null;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: SERVER_DIR,
    env: serverEnv({ PURSE_BOOTSTRAP_MERCHANT: 'false', ...env, PORT: String(port) }),
    stdio: ['ignore', fd ?? 'pipe', fd ?? 'pipe'],
  });
  if (fd !== null) closeSync(fd);
  let memory = '';
  const keep = (chunk: Buffer) => {
    if (memory.length < 1024 * 1024) memory += chunk.toString('utf8');
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
  cleanup.add(async () => {
    if (!running()) return;
    process.kill(child.pid!, 'SIGTERM');
    const timer = setTimeout(() => {
      if (running()) process.kill(child.pid!, 'SIGKILL');
    }, 10_000);
    await exited;
    clearTimeout(timer);
  });
  const server: Server = {
    pid: child.pid!,
    port,
    base: `http://127.0.0.1:${port}`,
    child,
    exited,
    running,
    output: () => (options.logFile ? readFileSync(options.logFile, 'utf8') : memory),
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (!running()) throw new Error(`server ${server.pid} exited before it was ready:\n${server.output().slice(-4000)}`);
    try {
      const res = await fetch(`${server.base}/readyz`);
      await res.arrayBuffer();
      if (res.status === 200) return server;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`server ${server.pid} not ready after 60 s:\n${server.output().slice(-4000)}`);
    await sleep(50);
  }
}

/** A Bearer token from the token endpoint (JSON body). */
export async function issueToken(base: string, m: Pick<Merchant, 'clientId' | 'clientSecret'>): Promise<string> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: m.clientId, client_secret: m.clientSecret }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`token: ${res.status} ${text}`);
  return (JSON.parse(text) as { access_token: string }).access_token;
}

/** What a raw exchange on one socket produced. */
export interface RawOutcome {
  /** The status line's code of the first response, or null when none came. */
  status: number | null;
  /** Everything the server sent, interim answers (100 Continue) left out. */
  response: string;
  /** How it ended: 'end' (server closed), 'reset', 'refused', 'response' (untilResponse), 'timeout' (our deadline), 'error: …'. */
  ended: string;
  /** Milliseconds from connect to the first response byte, and to the end of the socket. */
  firstByteMs: number | null;
  endMs: number;
  bytesWritten: number;
}

/** Interim answers (`100 Continue`) at the start of what a socket received, removed. */
export function withoutInterim(text: string): string {
  let rest = text;
  for (;;) {
    const match = /^HTTP\/1\.[01] 1\d\d[^\r\n]*\r\n(?:[^\r\n]+\r\n)*\r\n/.exec(rest);
    if (!match) return rest;
    rest = rest.slice(match[0].length);
  }
}

/** True when `data` holds one whole HTTP/1.1 response (Content-Length or chunked framing). */
export function responseComplete(data: Buffer): boolean {
  const text = withoutInterim(data.toString('latin1'));
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const head = text.slice(0, end);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (length) return Buffer.byteLength(text, 'latin1') - (end + 4) >= Number(length[1]);
  if (/\r\ntransfer-encoding: *chunked/i.test(head)) return text.endsWith('0\r\n\r\n');
  return false;
}

/** The responses in what a raw socket received, in order (Content-Length framing only). */
export function parseResponses(raw: string): { status: number; headers: Record<string, string>; body: string }[] {
  const out: { status: number; headers: Record<string, string>; body: string }[] = [];
  let rest = Buffer.from(withoutInterim(raw), 'latin1');
  for (;;) {
    const text = rest.toString('latin1');
    const end = text.indexOf('\r\n\r\n');
    if (end < 0) return out;
    const lines = text.slice(0, end).split('\r\n');
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
    if (!status) return out;
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const body = rest.subarray(end + 4, end + 4 + length);
    out.push({ status: Number(status[1]), headers, body: body.toString('utf8') });
    rest = rest.subarray(end + 4 + length);
  }
}

/**
 * Opens a socket to 127.0.0.1:`port`, runs `script` (which writes), and collects what comes back
 * until the server closes or `deadlineMs` passes (then we close it ourselves: 'timeout').
 * `untilResponse`: stop as soon as one whole response has arrived ('response').
 */
export function rawExchange(
  port: number,
  script: (socket: Socket, state: { closed: boolean }) => Promise<void> | void,
  deadlineMs: number,
  options: { untilResponse?: boolean } = {},
): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect({ host: '127.0.0.1', port });
    const state = { closed: false };
    const chunks: Buffer[] = [];
    let firstByteMs: number | null = null;
    let ended = '';
    let done = false;
    const finish = (how: string) => {
      if (done) return;
      done = true;
      state.closed = true;
      clearTimeout(timer);
      ended = ended || how;
      const response = withoutInterim(Buffer.concat(chunks).toString('latin1'));
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(response);
      resolve({
        status: match ? Number(match[1]) : null,
        response,
        ended,
        firstByteMs,
        endMs: Date.now() - started,
        bytesWritten: socket.bytesWritten,
      });
      socket.destroy();
    };
    const timer = setTimeout(() => finish('timeout'), deadlineMs);
    socket.on('data', (chunk) => {
      if (firstByteMs === null) firstByteMs = Date.now() - started;
      chunks.push(chunk);
      if (options.untilResponse && responseComplete(Buffer.concat(chunks))) finish('response');
    });
    socket.on('end', () => finish('end'));
    socket.on('close', () => finish('end'));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      finish(
        error.code === 'ECONNRESET' || error.code === 'EPIPE'
          ? 'reset'
          : error.code === 'ECONNREFUSED'
            ? 'refused'
            : `error: ${error.code ?? error.message}`,
      ),
    );
    socket.on('connect', () => {
      void Promise.resolve(script(socket, state)).catch(() => undefined);
    });
  });
}

/** Writes `text` a piece at a time, `stepMs` apart, while the socket is open. */
export async function trickle(socket: Socket, state: { closed: boolean }, text: string, stepMs: number, pieceBytes = 1): Promise<void> {
  for (let i = 0; i < text.length && !state.closed; i += pieceBytes) {
    socket.write(text.slice(i, i + pieceBytes));
    await sleep(stepMs);
  }
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

export function summary(values: number[]): { n: number; min: number; p50: number; p99: number; max: number } {
  return {
    n: values.length,
    min: round(Math.min(...values, Infinity) === Infinity ? 0 : Math.min(...values)),
    p50: round(percentile(values, 50)),
    p99: round(percentile(values, 99)),
    max: round(values.length ? Math.max(...values) : 0),
  };
}

/** A card body of the sandbox, with a fresh reference. */
export function cardPayment(reference: string, number = '4242424242424242', cvc = '123', amount = '10.00'): Record<string, unknown> {
  return { reference, amount, currency: 'KES', payment_method: { type: 'card', card: { number, exp_month: 12, exp_year: 2035, cvc } } };
}
