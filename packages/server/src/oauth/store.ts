import type { Db } from '../db/db.ts';

export async function insertAccessToken(
  db: Db,
  token: { tokenHash: string; merchantId: string; credentialVersion: number; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('access_tokens')
    .values({
      token_hash: token.tokenHash,
      merchant_id: token.merchantId,
      credential_version: token.credentialVersion,
      created_at: token.createdAt,
      expires_at: token.expiresAt,
    })
    .execute();
}

/** The token joined with its merchant's current status and credential version. */
export async function findAccessToken(db: Db, tokenHash: string) {
  return db
    .selectFrom('access_tokens as t')
    .innerJoin('merchants as m', 'm.id', 't.merchant_id')
    .select([
      't.merchant_id',
      't.expires_at',
      't.credential_version as token_version',
      'm.credential_version as merchant_version',
      'm.status',
      'm.livemode',
    ])
    .where('t.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function deleteExpiredTokens(db: Db, before: Date): Promise<number> {
  const result = await db.deleteFrom('access_tokens').where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Re-keys a client-secret hash made with the previous service key. Conditional on the old hash,
 * so a rotation of the secret in between wins; the credential version is unchanged (same secret).
 */
export async function rehashClientSecret(db: Db, merchantId: string, oldHash: string, newHash: string): Promise<void> {
  await db
    .updateTable('merchants')
    .set({ client_secret_hash: newHash })
    .where('id', '=', merchantId)
    .where('client_secret_hash', '=', oldHash)
    .execute();
}
