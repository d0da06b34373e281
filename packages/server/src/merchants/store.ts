import { sql } from 'kysely';
import type { Db } from '../db/db.ts';

const PUBLIC_COLUMNS = ['id', 'name', 'status', 'livemode', 'client_id', 'created_at', 'updated_at'] as const;

export async function insertMerchant(
  db: Db,
  row: { id: string; name: string; livemode: boolean; clientId: string; now: Date },
): Promise<void> {
  await db
    .insertInto('merchants')
    .values({
      id: row.id,
      name: row.name,
      status: 'active',
      livemode: row.livemode,
      client_id: row.clientId,
      created_at: row.now,
      updated_at: row.now,
    })
    .execute();
}

export async function findMerchant(db: Db, id: string) {
  return db.selectFrom('merchants').select(PUBLIC_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export async function listMerchants(db: Db) {
  return db.selectFrom('merchants').select(PUBLIC_COLUMNS).orderBy('id').execute();
}

export async function countMerchants(db: Db): Promise<number> {
  const row = await db.selectFrom('merchants').select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The operator's rotation: replaces the secret of the merchant's first key (merchants.client_id),
 * active again if the merchant had revoked it, and bumps its version, which revokes its tokens.
 */
export async function updateMerchantSecret(db: Db, id: string, clientSecretHash: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({
      secret_hash: clientSecretHash,
      previous_secret_hash: null,
      previous_secret_expires_at: null,
      status: 'active',
      revoked_at: null,
      credential_version: sql`credential_version + 1`,
      updated_at: now,
    })
    .where('merchant_id', '=', id)
    .where('client_id', '=', db.selectFrom('merchants').select('client_id').where('id', '=', id))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function updateMerchantStatus(db: Db, id: string, status: 'active' | 'disabled', now: Date): Promise<boolean> {
  const result = await db
    .updateTable('merchants')
    .set({ status, credential_version: sql`credential_version + 1`, updated_at: now })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
