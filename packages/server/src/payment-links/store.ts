import type { Insertable } from 'kysely';
import type { Db } from '../db/db.ts';
import type { PaymentLinksTable } from '../db/schema.ts';
import { fetchPage, type PageRequest } from '../shared/pagination.ts';

export async function insertLink(db: Db, row: Insertable<PaymentLinksTable>) {
  return db.insertInto('payment_links').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findLink(db: Db, merchantId: string, id: string) {
  return db.selectFrom('payment_links').selectAll().where('id', '=', id).where('merchant_id', '=', merchantId).executeTakeFirst();
}

export async function findLinkByTokenHash(db: Db, tokenHash: string) {
  return db.selectFrom('payment_links').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export async function setLinkActive(db: Db, merchantId: string, id: string, active: boolean, now: Date) {
  return db
    .updateTable('payment_links')
    .set({ active, updated_at: now })
    .where('id', '=', id)
    .where('merchant_id', '=', merchantId)
    .returningAll()
    .executeTakeFirst();
}

export async function listLinks(db: Db, merchantId: string, active: boolean | undefined, page: PageRequest) {
  let q = db.selectFrom('payment_links').selectAll().where('merchant_id', '=', merchantId);
  if (active !== undefined) q = q.where('active', '=', active);
  return fetchPage(q, 'id', page);
}
