import { sql } from 'kysely';
import type { Db } from '../db/db.ts';
import type { Clock } from '../shared/clock.ts';
import { present } from '../shared/invariant.ts';
import { decryptSecret, encryptSecret, newWebhookSecret, type SecretKeys, sealedWith } from '../shared/secrets.ts';

/** After a rotation the old secret keeps signing alongside the new one for this long. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export interface SealedPair {
  current: string;
  previous: string | null;
  previousExpiresAt: Date | null;
}

/** The secrets a delivery is signed with: the current one, and the previous one while it overlaps. */
export function signingSecrets(key: SecretKeys, sealed: SealedPair, now: Date): string[] {
  const secrets = [decryptSecret(key, sealed.current)];
  if (sealed.previous && sealed.previousExpiresAt && sealed.previousExpiresAt > now) secrets.push(decryptSecret(key, sealed.previous));
  return secrets;
}

/**
 * The merchant's default signing secret (for callback_url deliveries), created on first use.
 * Concurrent first uses agree: only a NULL is replaced, then the stored value is read back.
 */
export async function merchantSigningSecrets(db: Db, key: SecretKeys, merchantId: string, now: Date): Promise<string[]> {
  await db
    .updateTable('merchants')
    .set({ webhook_secret_enc: encryptSecret(key, newWebhookSecret()) })
    .where('id', '=', merchantId)
    .where('webhook_secret_enc', 'is', null)
    .execute();
  const row = await db
    .selectFrom('merchants')
    .select(['webhook_secret_enc', 'previous_webhook_secret_enc', 'previous_webhook_secret_expires_at'])
    .where('id', '=', merchantId)
    .executeTakeFirstOrThrow();
  return signingSecrets(
    key,
    {
      current: present(row.webhook_secret_enc, 'webhook secret'),
      previous: row.previous_webhook_secret_enc,
      previousExpiresAt: row.previous_webhook_secret_expires_at,
    },
    now,
  );
}

/**
 * Rotates the merchant's default secret; returns the new one (shown once), null for an unknown
 * merchant. One UPDATE: the row's current secret becomes the previous one as it is replaced, so two
 * concurrent rotations cannot both keep the same previous secret.
 */
export async function rotateMerchantSigningSecret(db: Db, key: SecretKeys, clock: Clock, merchantId: string): Promise<string | null> {
  const now = clock.now();
  const secret = newWebhookSecret();
  const row = await db
    .updateTable('merchants')
    .set((eb) => ({
      webhook_secret_enc: encryptSecret(key, secret),
      previous_webhook_secret_enc: eb.ref('webhook_secret_enc'),
      previous_webhook_secret_expires_at: sql<Date | null>`CASE WHEN webhook_secret_enc IS NULL THEN NULL ELSE ${new Date(
        now.getTime() + ROTATION_OVERLAP_MS,
      )}::timestamptz END`,
      updated_at: now,
    }))
    .where('id', '=', merchantId)
    .returning('id')
    .executeTakeFirst();
  return row ? secret : null;
}

/** Shows the merchant's current default secret (operator command). */
export async function revealMerchantSigningSecret(db: Db, key: SecretKeys, clock: Clock, merchantId: string): Promise<string | null> {
  const exists = await db.selectFrom('merchants').select('id').where('id', '=', merchantId).executeTakeFirst();
  if (!exists) return null;
  const [current] = await merchantSigningSecrets(db, key, merchantId, clock.now());
  return present(current, 'signing secret');
}

/**
 * Re-encrypts every stored webhook secret not sealed with the current key (`purse rekey`), each
 * update conditional on the value read, so a concurrent rotation is never overwritten. Returns how
 * many values were rewritten; throws if one opens with neither key.
 */
export async function rekeyWebhookSecrets(db: Db, keys: readonly Buffer[]): Promise<number> {
  const current = present(keys[0], 'current encryption key');
  let rewritten = 0;
  const reseal = (sealed: string | null): string | null =>
    sealed === null || sealedWith(current, sealed) ? null : encryptSecret(current, decryptSecret(keys, sealed));
  const merchants = await db.selectFrom('merchants').select(['id', 'webhook_secret_enc', 'previous_webhook_secret_enc']).execute();
  for (const row of merchants) {
    for (const column of ['webhook_secret_enc', 'previous_webhook_secret_enc'] as const) {
      const next = reseal(row[column]);
      if (next === null) continue;
      const result = await db
        .updateTable('merchants')
        .set({ [column]: next })
        .where('id', '=', row.id)
        .where(column, '=', present(row[column], column))
        .executeTakeFirst();
      rewritten += Number(result.numUpdatedRows);
    }
  }
  const endpoints = await db.selectFrom('webhook_endpoints').select(['id', 'secret_enc', 'previous_secret_enc']).execute();
  for (const row of endpoints) {
    for (const column of ['secret_enc', 'previous_secret_enc'] as const) {
      const next = reseal(row[column]);
      if (next === null) continue;
      const result = await db
        .updateTable('webhook_endpoints')
        .set({ [column]: next })
        .where('id', '=', row.id)
        .where(column, '=', present(row[column], column))
        .executeTakeFirst();
      rewritten += Number(result.numUpdatedRows);
    }
  }
  return rewritten;
}
