import type { Db } from '../db/db.ts';
import type { Clock } from '../shared/clock.ts';
import { present } from '../shared/invariant.ts';
import { decryptSecret, encryptSecret, newWebhookSecret } from '../shared/secrets.ts';

/** After a rotation the old secret keeps signing alongside the new one for this long. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export interface SealedPair {
  current: string;
  previous: string | null;
  previousExpiresAt: Date | null;
}

/** The secrets a delivery is signed with: the current one, and the previous one while it overlaps. */
export function signingSecrets(key: Buffer, sealed: SealedPair, now: Date): string[] {
  const secrets = [decryptSecret(key, sealed.current)];
  if (sealed.previous && sealed.previousExpiresAt && sealed.previousExpiresAt > now) secrets.push(decryptSecret(key, sealed.previous));
  return secrets;
}

/**
 * The merchant's default signing secret (for callback_url deliveries), created on first use.
 * Concurrent first uses agree: only a NULL is replaced, then the stored value is read back.
 */
export async function merchantSigningSecrets(db: Db, key: Buffer, merchantId: string, now: Date): Promise<string[]> {
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

/** Rotates the merchant's default secret; returns the new one (shown once). */
export async function rotateMerchantSigningSecret(db: Db, key: Buffer, clock: Clock, merchantId: string): Promise<string | null> {
  const now = clock.now();
  const current = await db.selectFrom('merchants').select('webhook_secret_enc').where('id', '=', merchantId).executeTakeFirst();
  if (!current) return null;
  const secret = newWebhookSecret();
  await db
    .updateTable('merchants')
    .set({
      webhook_secret_enc: encryptSecret(key, secret),
      previous_webhook_secret_enc: current.webhook_secret_enc,
      previous_webhook_secret_expires_at: current.webhook_secret_enc ? new Date(now.getTime() + ROTATION_OVERLAP_MS) : null,
      updated_at: now,
    })
    .where('id', '=', merchantId)
    .execute();
  return secret;
}

/** Shows the merchant's current default secret (operator command). */
export async function revealMerchantSigningSecret(db: Db, key: Buffer, clock: Clock, merchantId: string): Promise<string | null> {
  const exists = await db.selectFrom('merchants').select('id').where('id', '=', merchantId).executeTakeFirst();
  if (!exists) return null;
  const [current] = await merchantSigningSecrets(db, key, merchantId, clock.now());
  return present(current, 'signing secret');
}
