import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/db.ts';
import type { Clock } from '../shared/clock.ts';
import { createPoller } from '../shared/poller.ts';

const BATCH = 1_000;
/** A token is kept a day past its expiry (a late 401 can still be told apart from a forged token). */
const KEEP_EXPIRED_MS = 86_400_000;

/**
 * Purges expired access tokens in bounded batches (a full batch runs again at once), so the table
 * does not grow with every token ever issued and no single DELETE holds locks for long.
 */
export function createTokenPurgeWorker(deps: { db: Db; clock: Clock; log: FastifyBaseLogger; intervalMs: number }) {
  const { db, clock, log, intervalMs } = deps;
  async function runOnce(): Promise<number> {
    const before = new Date(clock.now().getTime() - KEEP_EXPIRED_MS);
    const result = await db
      .deleteFrom('access_tokens')
      .where('token_hash', 'in', db.selectFrom('access_tokens').select('token_hash').where('expires_at', '<', before).limit(BATCH))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
  return createPoller({ name: 'token-purge', runOnce, batch: BATCH, intervalMs: Math.max(intervalMs, 60_000), log });
}

export type TokenPurgeWorker = ReturnType<typeof createTokenPurgeWorker>;
