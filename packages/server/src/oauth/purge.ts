import type { Db } from '../db/db.ts';

/** A token is kept a day past its expiry (a late 401 can still be told apart from a forged token). */
export const KEEP_EXPIRED_TOKENS_MS = 86_400_000;

/**
 * One batch (at most `batch`) of access tokens expired over a day ago, deleted: the purge worker's
 * step (purge.ts), so the table does not grow with every token ever issued and no single DELETE
 * holds locks for long. Tokens of API keys and of dashboard sessions alike.
 */
export async function purgeExpiredTokens(db: Db, now: Date, batch: number): Promise<number> {
  const before = new Date(now.getTime() - KEEP_EXPIRED_TOKENS_MS);
  const result = await db
    .deleteFrom('access_tokens')
    .where('token_hash', 'in', db.selectFrom('access_tokens').select('token_hash').where('expires_at', '<', before).limit(batch))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
