import type { ColumnType, Generated } from 'kysely';

// Who may do what and who did what: API keys, dashboard users and sessions, the audit log
// (migrations 012 and 013). Part of schema.ts's Database, kept apart for its size.

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null, Date | string | null>;
type Int8 = ColumnType<string, bigint | string, bigint | string>;
type NullableInt8 = ColumnType<string | null, bigint | string | null | undefined, bigint | string | null>;

export type ApiKeyScope =
  | 'payments:read'
  | 'payments:write'
  | 'refunds:write'
  | 'payouts:write'
  | 'wallets:read'
  | 'wallets:write'
  | 'webhooks:write'
  | 'all';

export interface ApiKeysTable {
  id: string;
  merchant_id: string;
  name: string;
  client_id: string;
  secret_hash: string;
  previous_secret_hash: string | null;
  previous_secret_expires_at: NullableTimestamp;
  scopes: ColumnType<ApiKeyScope[], ApiKeyScope[], ApiKeyScope[]>;
  status: Generated<'active' | 'revoked'>;
  credential_version: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
  revoked_at: NullableTimestamp;
}

export type UserRole = 'owner' | 'admin' | 'developer' | 'support' | 'viewer';
export type UserStatus = 'invited' | 'active' | 'removed';
export type SessionState = 'active' | 'second_factor_required' | 'enrolment_required';

/** Dashboard users (migration 013, docs/users.md). */
export interface UsersTable {
  id: string;
  merchant_id: string;
  email: string;
  role: UserRole;
  status: Generated<UserStatus>;
  password_hash: string | null;
  totp_secret_encrypted: string | null;
  totp_pending_secret_encrypted: string | null;
  totp_enabled_at: NullableTimestamp;
  totp_last_step: NullableInt8;
  created_at: Timestamp;
  updated_at: Timestamp;
  removed_at: NullableTimestamp;
}

export interface InvitationsTable {
  token_hash: string;
  user_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

export interface RecoveryCodesTable {
  user_id: string;
  code_hash: string;
  created_at: Timestamp;
  used_at: NullableTimestamp;
}

/** `id` is the keyed hash of the cookie's value. */
export interface DashboardSessionsTable {
  id: string;
  user_id: string;
  merchant_id: string;
  state: SessionState;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
}

export interface AuditHeadsTable {
  merchant_id: string;
  seq: Int8;
  hash: string;
}

/** Append-only (a trigger refuses UPDATE and DELETE); written by audit/chain.ts only. */
export interface AuditEventsTable {
  id: string;
  merchant_id: string;
  seq: Int8;
  action: string;
  actor_type: 'user' | 'api_key' | 'operator';
  actor_id: string | null;
  actor_email: string | null;
  target_type: string;
  target_id: string;
  ip_address: string | null;
  user_agent: string | null;
  request_id: string | null;
  changes: ColumnType<unknown, string | null, never>;
  created_at: Timestamp;
  prev_hash: string;
  hash: string;
}
