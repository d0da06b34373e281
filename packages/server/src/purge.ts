import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Db } from './db/db.ts';
import { purgeExpiredTokens } from './oauth/purge.ts';
import type { Clock } from './shared/clock.ts';
import { createPoller } from './shared/poller.ts';
import { purgeEndedSessions, purgeSpentInvitations } from './users/purge.ts';

const BATCH = 1_000;

/**
 * The purge worker: what has expired, deleted a day later in bounded batches (each step at most
 * BATCH rows a tick, and the tick runs again at once while a step fills its batch), so these
 * tables do not grow forever and no single DELETE holds locks for long. Access tokens first: a
 * session goes only once its tokens have (users/purge.ts).
 */
export function createPurgeWorker(deps: { db: Db; clock: Clock; log: FastifyBaseLogger; config: Config }) {
  const { db, clock, log, config } = deps;
  async function runOnce(): Promise<number> {
    const now = clock.now();
    const tokens = await purgeExpiredTokens(db, now, BATCH);
    const sessions = await purgeEndedSessions(db, now, config.sessionIdleS * 1000, BATCH);
    const invitations = await purgeSpentInvitations(db, now, BATCH);
    return Math.max(tokens, sessions, invitations);
  }
  return createPoller({ name: 'purge', runOnce, batch: BATCH, intervalMs: Math.max(config.workerIntervalMs, 60_000), log });
}

export type PurgeWorker = ReturnType<typeof createPurgeWorker>;
