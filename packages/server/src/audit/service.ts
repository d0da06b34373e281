import { readTime } from '../charges/filters.ts';
import type { Db } from '../db/db.ts';
import type { AuthContext } from '../oauth/service.ts';
import type { PageRequest } from '../shared/pagination.ts';
import { type AuditFilters, listAuditEvents } from './store.ts';
import { verifyAll } from './verify.ts';

type AuditRow = Awaited<ReturnType<typeof listAuditEvents>>['rows'][number];

/** The public form of a record (docs/keys-and-audit.md). */
export function auditEventView(row: AuditRow) {
  return {
    id: row.id,
    object: 'audit_event' as const,
    action: row.action,
    actor: { type: row.actor_type, id: row.actor_id, ...(row.actor_email === null ? {} : { email: row.actor_email }) },
    target: { type: row.target_type, id: row.target_id },
    ip_address: row.ip_address,
    user_agent: row.user_agent,
    request_id: row.request_id,
    changes: (row.changes ?? null) as Record<string, unknown> | null,
    created_at: row.created_at.toISOString(),
  };
}

export function readAuditFilters(query: { action?: string; actor_id?: string; created_gte?: string; created_lte?: string }): AuditFilters {
  const filters: AuditFilters = {};
  if (query.action !== undefined) filters.action = query.action;
  if (query.actor_id !== undefined) filters.actorId = query.actor_id;
  const gte = readTime(query.created_gte, 'created_gte');
  const lte = readTime(query.created_lte, 'created_lte');
  if (gte) filters.createdGte = gte;
  if (lte) filters.createdLte = lte;
  return filters;
}

export function createAuditService(deps: { db: Db }) {
  const { db } = deps;
  return {
    async list(auth: AuthContext, filters: AuditFilters, page: PageRequest) {
      const { rows, hasMore } = await listAuditEvents(db, auth.merchantId, filters, page);
      return { object: 'list' as const, data: rows.map(auditEventView), has_more: hasMore };
    },
    /** `purse audit verify`: every merchant's chain, or the given ones'. */
    verify: (merchantIds?: readonly string[]) => verifyAll(db, merchantIds),
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
