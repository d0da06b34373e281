import { type RawBuilder, sql } from 'kysely';
import { ctes } from '../db/cte.ts';
import { type Db, inTransaction } from '../db/db.ts';
import { newId } from '../shared/ids.ts';
import { fetchPage, type PageRequest } from '../shared/pagination.ts';
import { AUDIT_INPUT_COLUMNS, appendAuditCtes, auditContentSql } from './chain.ts';
import type { AuditEntry } from './types.ts';

/** The audit columns of one record as SQL values, typed, in AUDIT_INPUT_COLUMNS order. */
function entryValues(entry: AuditEntry, at: Date): RawBuilder<unknown>[] {
  const text = (value: string | null | undefined) => sql`${value ?? null}::text`;
  return [
    text(newId('auditEvent')),
    text(entry.merchantId),
    text(entry.action),
    text(entry.actor.type),
    text(entry.actor.id),
    text(entry.actor.email),
    text(entry.target.type),
    text(entry.target.id),
    text(entry.origin?.ip),
    text(entry.origin?.userAgent),
    text(entry.origin?.requestId),
    sql`${entry.changes === undefined ? null : JSON.stringify(entry.changes)}::jsonb`,
    sql`${at.toISOString()}::timestamptz`,
  ];
}

/**
 * Appends records to their merchants' chains, in one statement; call it in the transaction of the
 * act it records (the record and the act commit or roll back together).
 */
export async function appendAudit(db: Db, entries: readonly AuditEntry[], at: Date): Promise<void> {
  if (entries.length === 0) return;
  const rows = entries.map((entry, ord) => sql`(${sql.join([...entryValues(entry, at), sql`${ord}::int`])})`);
  const columns = [...AUDIT_INPUT_COLUMNS, 'ord'].map((c) => sql.ref(c));
  const c = ctes('items', 'heads', 'chain', 'audit', 'head');
  const from = sql`(VALUES ${sql.join(rows)}) AS f (${sql.join(columns)})`;
  await sql`WITH RECURSIVE ${appendAuditCtes(c, from, sql<boolean>`true`)} SELECT (SELECT count(*) FROM ${c.audit.ref}) AS n, (SELECT count(*) FROM ${c.head.ref}) AS h`.execute(
    db,
  );
}

export interface AuditFilters {
  action?: string;
  actorId?: string;
  createdGte?: Date;
  createdLte?: Date;
}

export async function listAuditEvents(db: Db, merchantId: string, filters: AuditFilters, page: PageRequest) {
  let q = db.selectFrom('audit_events').selectAll().where('merchant_id', '=', merchantId);
  if (filters.action !== undefined) q = q.where('action', '=', filters.action);
  if (filters.actorId !== undefined) q = q.where('actor_id', '=', filters.actorId);
  if (filters.createdGte !== undefined) q = q.where('created_at', '>=', filters.createdGte);
  if (filters.createdLte !== undefined) q = q.where('created_at', '<=', filters.createdLte);
  return fetchPage(q, 'id', page);
}

/** A merchant's records in chain order, each with its content as the database renders it. */
export async function chainOf(db: Db, merchantId: string) {
  return sql<{ id: string; seq: string; prev_hash: string; hash: string; content: string }>`
    SELECT e.id, e.seq, e.prev_hash, e.hash, ${auditContentSql('e', sql`e.seq`)} AS content
    FROM audit_events e WHERE e.merchant_id = ${merchantId} ORDER BY e.seq, e.id`
    .execute(db)
    .then((r) => r.rows);
}

export async function headOf(db: Db, merchantId: string) {
  return db.selectFrom('audit_heads').select(['seq', 'hash']).where('merchant_id', '=', merchantId).executeTakeFirst();
}

/**
 * Runs an act and appends its record in one transaction: `record` says, from the act's result,
 * what to record (null: nothing happened, nothing recorded).
 */
export async function withAudit<T>(db: Db, at: Date, act: (trx: Db) => Promise<T>, record: (result: T) => AuditEntry | null): Promise<T> {
  return inTransaction(db, async (trx) => {
    const result = await act(trx);
    const entry = record(result);
    if (entry) await appendAudit(trx, [entry], at);
    return result;
  });
}
