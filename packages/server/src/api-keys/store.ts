import { sql } from 'kysely';
import type { Db } from '../db/db.ts';
import type { ApiKeyScope } from '../db/schema.ts';
import { fetchPage, type PageRequest } from '../shared/pagination.ts';

const PUBLIC_COLUMNS = [
  'id',
  'merchant_id',
  'name',
  'client_id',
  'scopes',
  'status',
  'previous_secret_expires_at',
  'created_at',
  'revoked_at',
] as const;

export type ApiKeyRow = NonNullable<Awaited<ReturnType<typeof findApiKey>>>;

export async function insertApiKey(
  db: Db,
  row: { id: string; merchantId: string; name: string; clientId: string; secretHash: string; scopes: ApiKeyScope[]; now: Date },
): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({
      id: row.id,
      merchant_id: row.merchantId,
      name: row.name,
      client_id: row.clientId,
      secret_hash: row.secretHash,
      scopes: sql<ApiKeyScope[]>`${sql.val(row.scopes)}::text[]`,
      created_at: row.now,
      updated_at: row.now,
    })
    .execute();
}

/** One key of one merchant (another merchant's key is not found). */
export async function findApiKey(db: Db, merchantId: string, id: string) {
  return db.selectFrom('api_keys').select(PUBLIC_COLUMNS).where('merchant_id', '=', merchantId).where('id', '=', id).executeTakeFirst();
}

/** A merchant's keys, newest first, revoked ones included (they say when they were revoked). */
export async function listApiKeys(db: Db, merchantId: string, page: PageRequest) {
  return fetchPage(db.selectFrom('api_keys').select(PUBLIC_COLUMNS).where('merchant_id', '=', merchantId), 'id', page);
}

/** What the token endpoint needs of a client: the key, its secrets and its merchant's status. */
export async function findClientCredential(db: Db, clientId: string) {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('merchants as m', 'm.id', 'k.merchant_id')
    .select([
      'k.id',
      'k.merchant_id',
      'k.secret_hash',
      'k.previous_secret_hash',
      'k.previous_secret_expires_at',
      'k.status as key_status',
      'k.credential_version as key_version',
      'm.status',
      'm.credential_version',
    ])
    .where('k.client_id', '=', clientId)
    .executeTakeFirst();
}

/**
 * A new secret; the old one stays valid until `previousUntil` (null: not at all). The version bump
 * revokes the tokens of every older secret; those of the one just replaced stay valid during the
 * overlap (oauth/store.ts findAccessToken). Conditional on the key being active.
 */
export async function rollApiKey(
  db: Db,
  key: { merchantId: string; id: string; secretHash: string; previousUntil: Date | null; now: Date },
): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({
      previous_secret_hash: key.previousUntil === null ? null : sql`secret_hash`,
      previous_secret_expires_at: key.previousUntil,
      secret_hash: key.secretHash,
      credential_version: sql`credential_version + 1`,
      updated_at: key.now,
    })
    .where('merchant_id', '=', key.merchantId)
    .where('id', '=', key.id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Revokes a key and with it every token it issued (they are checked against its status). */
export async function revokeApiKey(db: Db, merchantId: string, id: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ status: 'revoked', revoked_at: now, updated_at: now, previous_secret_hash: null, previous_secret_expires_at: null })
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Re-keys a secret hash made with the previous service key. Conditional on the old hash, so a roll
 * in between wins; the version is unchanged (same secret).
 */
export async function rehashSecret(db: Db, id: string, oldHash: string, newHash: string): Promise<void> {
  await db.updateTable('api_keys').set({ secret_hash: newHash }).where('id', '=', id).where('secret_hash', '=', oldHash).execute();
}
