import type { Db } from '../db/db.ts';

export async function insertAccessToken(
  db: Db,
  token: {
    tokenHash: string;
    merchantId: string;
    credentialVersion: number;
    /** Exactly one of the two: the key (and its version) or the dashboard session that issues the token. */
    apiKeyId: string | null;
    keyVersion: number | null;
    sessionId?: string;
    createdAt: Date;
    expiresAt: Date;
  },
): Promise<void> {
  await db
    .insertInto('access_tokens')
    .values({
      token_hash: token.tokenHash,
      merchant_id: token.merchantId,
      credential_version: token.credentialVersion,
      api_key_id: token.apiKeyId,
      key_version: token.keyVersion,
      session_id: token.sessionId ?? null,
      created_at: token.createdAt,
      expires_at: token.expiresAt,
    })
    .execute();
}

/**
 * The token joined with its merchant's current status and version, and with what issued it: its
 * key's status, versions and scopes, or its dashboard session and the session's user.
 */
export async function findAccessToken(db: Db, tokenHash: string) {
  return db
    .selectFrom('access_tokens as t')
    .innerJoin('merchants as m', 'm.id', 't.merchant_id')
    .leftJoin('api_keys as k', 'k.id', 't.api_key_id')
    .leftJoin('dashboard_sessions as s', 's.id', 't.session_id')
    .leftJoin('users as u', 'u.id', 's.user_id')
    .select([
      't.merchant_id',
      't.expires_at',
      't.credential_version as token_version',
      'm.credential_version as merchant_version',
      'm.status',
      'm.livemode',
      'm.raw_card_data',
      't.api_key_id',
      't.key_version as token_key_version',
      'k.credential_version as key_version',
      'k.status as key_status',
      'k.previous_secret_expires_at',
      'k.scopes',
      't.session_id',
      's.state as session_state',
      's.last_seen_at as session_last_seen_at',
      's.expires_at as session_expires_at',
      's.revoked_at as session_revoked_at',
      'u.id as user_id',
      'u.email as user_email',
      'u.role as user_role',
      'u.status as user_status',
    ])
    .where('t.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** A session's token was used: its session's last activity, written at most once a minute (`before`: the last write's limit). */
export async function touchSession(db: Db, sessionId: string, now: Date, before: Date): Promise<void> {
  await db
    .updateTable('dashboard_sessions')
    .set({ last_seen_at: now })
    .where('id', '=', sessionId)
    .where('last_seen_at', '<', before)
    .where('revoked_at', 'is', null)
    .execute();
}
