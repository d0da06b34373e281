import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { type Spawned, startChild, stopChild } from './processes.ts';

/** A port nobody listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
    server.on('error', fail);
  });
}

export interface ScratchPurse {
  base: string;
  databaseUrl: string;
  server: Spawned;
  /** A merchant made by the operator command, with its credentials. */
  merchant: { merchant_id: string; client_id: string; client_secret: string };
  /** Stops the server and drops the database (kept with BENCH_KEEP_DATABASE=1). */
  stop(): Promise<void>;
}

/**
 * One Purse server on a PostgreSQL database of its own (created from BENCH_DATABASE_URL's server),
 * ready, with one merchant: what the one-off benches (million.ts, statement-csv.ts) start from.
 */
export async function startScratchPurse(p: {
  root: string;
  name: string;
  env?: Record<string, string>;
  log: (line: string) => void;
}): Promise<ScratchPurse> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dbName = `purse_${p.name}_${Date.now()}_${process.pid}`;
  const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${dbName}` }).toString();
  const admin = new pg.Client(adminUrl);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    PURSE_RATE_LIMIT_PER_S: '0',
    PURSE_BOOTSTRAP_MERCHANT: 'false',
    PURSE_SECRET_KEY: 'bench-secret-key-0123456789abcdef0123456789',
    ...p.env,
  };
  const port = await freePort();
  const server = startChild('purse', process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], {
    cwd: p.root,
    env: { ...env, PORT: String(port) },
    logFile: join(tmpdir(), `${dbName}.log`),
  });
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopChild(server);
    if (process.env.BENCH_KEEP_DATABASE === '1') p.log(`kept database ${dbName}`);
    else await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  };
  try {
    for (let i = 0; ; i++) {
      if ((await fetch(`${base}/readyz`).catch(() => null))?.ok) break;
      if (i > 300) throw new Error('the server did not become ready');
      await new Promise((r) => setTimeout(r, 100));
    }
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(p.root, 'packages/server/bin/purse.mjs'), 'merchant', 'create', '--name', p.name, '--json'],
      { cwd: p.root, env },
    );
    return { base, databaseUrl, server, merchant: JSON.parse(stdout), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
