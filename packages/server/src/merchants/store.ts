import { sql } from 'kysely';
import type { Db } from '../db/db.ts';

const PUBLIC_COLUMNS = ['id', 'name', 'status', 'livemode', 'client_id', 'created_at', 'updated_at'] as const;

export async function insertMerchant(
  db: Db,
  row: { id: string; name: string; livemode: boolean; clientId: string; clientSecretHash: string; now: Date },
): Promise<void> {
  await db
    .insertInto('merchants')
    .values({
      id: row.id,
      name: row.name,
      status: 'active',
      livemode: row.livemode,
      client_id: row.clientId,
      client_secret_hash: row.clientSecretHash,
      created_at: row.now,
      updated_at: row.now,
    })
    .execute();
}

export async function findMerchant(db: Db, id: string) {
  return db.selectFrom('merchants').select(PUBLIC_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export async function findMerchantByClientId(db: Db, clientId: string) {
  return db
    .selectFrom('merchants')
    .select(['id', 'status', 'client_secret_hash', 'credential_version'])
    .where('client_id', '=', clientId)
    .executeTakeFirst();
}

export async function listMerchants(db: Db) {
  return db.selectFrom('merchants').select(PUBLIC_COLUMNS).orderBy('id').execute();
}

export async function countMerchants(db: Db): Promise<number> {
  const row = await db.selectFrom('merchants').select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Replaces the secret and bumps the credential version, which revokes every issued token. */
export async function updateMerchantSecret(db: Db, id: string, clientSecretHash: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('merchants')
    .set({ client_secret_hash: clientSecretHash, credential_version: sql`credential_version + 1`, updated_at: now })
    .where('id', '=', id)
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
