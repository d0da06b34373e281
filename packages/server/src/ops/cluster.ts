import cluster from 'node:cluster';
import type { Config } from '../config.ts';
import { createDb } from '../db/db.ts';
import { migrateToLatest } from '../db/migrate.ts';

/**
 * How long a server process may spend draining after SIGTERM before it exits anyway. A stop must
 * be over within 10 s; 9 s leaves a second for closing the database and the exit itself, and
 * for the primary of several processes to see its servers go.
 */
export const SHUTDOWN_DEADLINE_MS = 9_000;

/**
 * PURSE_PROCESSES > 1 (PostgreSQL only): this process migrates once, then forks that many
 * servers sharing the port. Everything they share lives in PostgreSQL (unique indexes, row
 * locks, SKIP LOCKED work queues), so they need no coordination. A server that dies is
 * replaced; SIGTERM is passed on and each server drains its own requests.
 */
export async function runPrimary(config: Config): Promise<void> {
  const db = await createDb(config);
  await migrateToLatest(db.db);
  await db.close();

  let stopping = false;
  const fork = () => cluster.fork();
  for (let i = 0; i < config.processes; i++) fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    process.stderr.write(`purse: server process ${worker.process.pid} exited (${signal ?? code}); starting another\n`);
    setTimeout(fork, 500);
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    // Servers exit by the deadline on their own; this is the backstop should one hang, still under 10 s.
    setTimeout(() => process.exit(1), SHUTDOWN_DEADLINE_MS + 500).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
