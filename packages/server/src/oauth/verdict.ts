import type { ApiKeyScope } from '../api-keys/scopes.ts';
import type { AuditOrigin } from '../audit/types.ts';
import { ROLES, type UserRole } from '../users/roles.ts';
import type * as store from './store.ts';

/** What a valid Bearer token tells a route about its caller. */
export interface AuthContext {
  merchantId: string;
  livemode: boolean;
  /**
   * A live merchant the operator allows to post card numbers through the API (`purse merchant
   * update --raw-card-data`). Read with the token's row, so a change reaches every process
   * within the auth cache's 2 s, like a revocation.
   */
  rawCardData: boolean;
  /** The API key that issued the token (null for a dashboard session's token). */
  apiKeyId: string | null;
  /** The key's scopes, or the session user's role's (route-scopes.ts decides what they allow). */
  scopes: readonly ApiKeyScope[];
  /** A dashboard session's token: the signed-in user (the audit log names them as the actor). */
  user?: { id: string; email: string; role: UserRole };
  /** Where the request came from (set per request by http/auth.ts), for the audit log. */
  origin?: AuditOrigin;
}

export interface CachedToken {
  context: AuthContext | null;
  expiresAtMs: number;
  /** A token of a rolled key's previous secret is valid until the roll's overlap ends; a session's until it ends. */
  validUntilMs: number;
  checkedAtMs: number;
  /** A session's token: its session, and when its last activity was written. */
  session?: { id: string; lastSeenMs: number };
}

export type TokenRow = NonNullable<Awaited<ReturnType<typeof store.findAccessToken>>>;

/**
 * Until when a session's token is valid: the session active (second factor done), not revoked,
 * within its absolute and idle limits, and its user active. -1: revoked.
 */
function sessionValidUntil(row: TokenRow, idleMs: number): number {
  const { session_state, session_revoked_at, session_expires_at, session_last_seen_at, user_status } = row;
  if (session_state !== 'active' || session_revoked_at !== null || user_status !== 'active') return -1;
  if (session_expires_at === null || session_last_seen_at === null) return -1;
  return Math.min(session_expires_at.getTime(), session_last_seen_at.getTime() + idleMs);
}

/**
 * Until when a token is valid, judged on its row: its merchant active; a key's token also not
 * re-credentialed, its key active, and issued under the key's current secret (or under the
 * previous one while a roll's overlap lasts). -1: revoked.
 */
function validUntil(row: TokenRow, idleMs: number): number {
  if (row.status !== 'active') return -1;
  if (row.session_id !== null) return sessionValidUntil(row, idleMs);
  if (row.token_version !== row.merchant_version || row.key_status !== 'active' || row.key_version === null) return -1;
  if (row.token_key_version === row.key_version) return Number.POSITIVE_INFINITY;
  const overlapEnd = row.previous_secret_expires_at?.getTime() ?? -1;
  return row.token_key_version === row.key_version - 1 ? overlapEnd : -1;
}

function contextOf(row: TokenRow): AuthContext {
  const base = { merchantId: row.merchant_id, livemode: row.livemode, rawCardData: row.raw_card_data };
  const role = row.user_role;
  if (row.session_id !== null && role !== null && row.user_id !== null && row.user_email !== null)
    return { ...base, apiKeyId: null, scopes: ROLES[role].scopes, user: { id: row.user_id, email: row.user_email, role } };
  return { ...base, apiKeyId: row.api_key_id, scopes: row.scopes ?? [] };
}

/** What this process remembers of a token's row, for the auth cache's time. */
export function cacheEntry(row: TokenRow | undefined, nowMs: number, idleMs: number): CachedToken {
  const until = row === undefined ? -1 : validUntil(row, idleMs);
  const session =
    row?.session_id != null && row.session_last_seen_at !== null
      ? { id: row.session_id, lastSeenMs: row.session_last_seen_at.getTime() }
      : undefined;
  return {
    context: row !== undefined && until >= 0 ? contextOf(row) : null,
    expiresAtMs: row ? row.expires_at.getTime() : 0,
    validUntilMs: until,
    checkedAtMs: nowMs,
    ...(session ? { session } : {}),
  };
}
