import { type RawBuilder, sql } from 'kysely';
import { type Cte, columnOf } from '../db/cte.ts';

/**
 * The audit log's hash chain, one per merchant (docs/keys-and-audit.md). Record n's hash is
 * sha256(hash of record n-1 + '|' + content of record n), in hex; the first record's previous
 * hash is ''. audit_heads holds each merchant's last seq and hash: appending locks that row,
 * so records of one merchant are chained one after the other whatever the concurrency.
 *
 * The content is a JSON array of every column but the hashes, rendered by the database (so
 * the statement that writes a record and `purse audit verify` that reads it render it alike):
 * created_at as whole microseconds since the epoch, changes as jsonb renders it.
 */
export function auditContentSql(alias: string, seq: RawBuilder<unknown>): RawBuilder<string> {
  const c = columnOf(alias);
  return sql<string>`json_build_array(${c('id')}, ${c('merchant_id')}, ${seq}, ${c('action')}, ${c('actor_type')}, ${c('actor_id')},
      ${c('actor_email')}, ${c('target_type')}, ${c('target_id')}, ${c('ip_address')}, ${c('user_agent')}, ${c('request_id')},
      ${c('changes')}, (extract(epoch FROM ${c('created_at')}) * 1000000)::bigint)::text`;
}

/** sha256 of `previous || '|' || content`, in hex. */
export function chainHashSql(previous: RawBuilder<unknown>, content: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`encode(sha256(convert_to(${previous} || '|' || ${content}, 'UTF8')), 'hex')`;
}

/** Every column of a new audit record, as the rows of `from` must name them (plus `ord`, their order). */
export const AUDIT_INPUT_COLUMNS = [
  'id',
  'merchant_id',
  'action',
  'actor_type',
  'actor_id',
  'actor_email',
  'target_type',
  'target_id',
  'ip_address',
  'user_agent',
  'request_id',
  'changes',
  'created_at',
] as const;

/**
 * The CTEs that append audit records to their merchants' chains, for a statement that starts
 * `WITH RECURSIVE` (the chain is computed record after record; no CTE of it may be named like a table it reads). `from` is a FROM item named `f`
 * whose rows have AUDIT_INPUT_COLUMNS (changes as jsonb) and `ord`; `after` is the last CTE that takes other locks, so the
 * chain heads are locked last, in merchant order, as every statement that writes the log does.
 */
export function appendAuditCtes(
  names: Record<'items' | 'heads' | 'chain' | 'audit' | 'head', Cte>,
  from: RawBuilder<unknown>,
  after: RawBuilder<boolean>,
) {
  const { items, heads, chain, audit, head } = names;
  const columns = AUDIT_INPUT_COLUMNS.map((column) => sql.ref(`i.${column}`));
  const next = chainHashSql(sql`c.hash`, auditContentSql('i', sql`c.seq + 1`));
  return sql`${items.ref} AS (
      SELECT f.*, row_number() OVER (PARTITION BY f.merchant_id ORDER BY f.ord) AS rn FROM ${from}
    ), ${heads.ref} AS (
      SELECT h.merchant_id, h.seq, h.hash FROM audit_heads h
      WHERE h.merchant_id IN (SELECT merchant_id FROM ${items.ref}) AND ${after}
      ORDER BY h.merchant_id FOR UPDATE
    ), ${chain.ref} (merchant_id, rn, seq, hash, prev_hash) AS (
      SELECT merchant_id, 0::bigint, seq, hash, NULL::text FROM ${heads.ref}
      UNION ALL
      SELECT c.merchant_id, c.rn + 1, c.seq + 1, ${next}, c.hash
      FROM ${chain.ref} c JOIN ${items.ref} i ON i.merchant_id = c.merchant_id AND i.rn = c.rn + 1
    ), ${audit.ref} AS (
      INSERT INTO audit_events (${sql.join(AUDIT_INPUT_COLUMNS.map((column) => sql.ref(column)))}, seq, prev_hash, hash)
      SELECT ${sql.join(columns)}, c.seq, c.prev_hash, c.hash
      FROM ${chain.ref} c JOIN ${items.ref} i ON i.merchant_id = c.merchant_id AND i.rn = c.rn
      RETURNING id
    ), ${head.ref} AS (
      UPDATE audit_heads h SET seq = l.seq, hash = l.hash
      FROM (SELECT DISTINCT ON (merchant_id) merchant_id, seq, hash FROM ${chain.ref} WHERE rn > 0 ORDER BY merchant_id, rn DESC) l
      WHERE h.merchant_id = l.merchant_id
      RETURNING h.merchant_id
    )`;
}
