/** Who did it: a dashboard user, an API key, or the operator (the `purse` command). */
export interface AuditActor {
  type: 'user' | 'api_key' | 'operator';
  id: string | null;
  email?: string | null;
}

/** Where a request came from; absent for the operator's commands. */
export interface AuditOrigin {
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
}

/** One security-relevant act, as recorded in the merchant's audit log. */
export interface AuditEntry {
  merchantId: string;
  action: string;
  actor: AuditActor;
  target: { type: string; id: string };
  origin?: AuditOrigin | undefined;
  changes?: Record<string, unknown>;
}
