import type { ColumnType, Generated } from 'kysely';
import type {
  ApiKeysTable,
  AuditEventsTable,
  AuditHeadsTable,
  DashboardSessionsTable,
  InvitationsTable,
  RecoveryCodesTable,
  UsersTable,
} from './schema-access.ts';

/** int8 columns: written as bigint or string, read back as string (parse with BigInt). */
export type Int8 = ColumnType<string, bigint | string, bigint | string>;
/** An int8 column with a default: may be left out of an insert. */
/** A nullable bigint column. */
export type NullableInt8 = ColumnType<string | null, bigint | string | null | undefined, bigint | string | null>;
export type Int8Default = ColumnType<string, bigint | string | undefined, bigint | string>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface MerchantsTable {
  id: string;
  name: string;
  status: 'active' | 'disabled';
  livemode: boolean;
  /** The client id of the merchant's first API key, the one the operator rotates (migration 012). */
  client_id: string;
  /** Bumped on secret rotation and disable; a token of another version is revoked. */
  credential_version: Generated<number>;
  webhook_secret_enc: string | null;
  /** A live merchant may post raw card numbers through the API (migration 009; the operator decides). */
  raw_card_data: Generated<boolean>;
  previous_webhook_secret_enc: string | null;
  previous_webhook_secret_expires_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AccessTokensTable {
  token_hash: string;
  merchant_id: string;
  credential_version: number;
  /** The key that issued the token, and the key's credential version then (migration 012); null for a session's token. */
  api_key_id: string | null;
  key_version: number | null;
  /** The dashboard session that issued the token (migration 013); null for a key's token. */
  session_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export type {
  ApiKeyScope,
  ApiKeysTable,
  AuditEventsTable,
  AuditHeadsTable,
  DashboardSessionsTable,
  InvitationsTable,
  RecoveryCodesTable,
  SessionState,
  UserRole,
  UserStatus,
  UsersTable,
} from './schema-access.ts';

export interface SettingsTable {
  key: string;
  value: string;
}

type JsonValue = ColumnType<unknown, string, string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null, Date | string | null>;

export interface WalletsTable {
  id: string;
  merchant_id: string;
  currency: string;
  reference: string | null;
  request_fingerprint: JsonValue;
  holder: JsonValue;
  metadata: JsonValue;
  status: 'active' | 'inactive';
  balance: Int8;
  livemode: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type ChargeKind = 'payment' | 'topup';
export type ChargeStatus = 'pending' | 'requires_action' | 'requires_capture' | 'succeeded' | 'failed' | 'canceled';
/** The statuses a charge never leaves (completed_at is set exactly then). */
export const FINAL_CHARGE_STATUSES = ['succeeded', 'failed', 'canceled'] as const;
export type CaptureMethod = 'automatic' | 'manual';
export type ChargeOperation = 'capture' | 'cancel';
/** Every way to pay, in the order the API lists them; the method_type column's CHECK holds the same three. */
export const METHOD_TYPES = ['mobile_money', 'card', 'wallet'] as const;
export type MethodType = (typeof METHOD_TYPES)[number];
export type ProviderState = 'not_started' | 'initiated' | 'none';

export interface ChargesTable {
  id: string;
  kind: ChargeKind;
  merchant_id: string;
  reference: string;
  request_fingerprint: JsonValue;
  status: ChargeStatus;
  amount: Int8;
  currency: string;
  method_type: MethodType;
  method: JsonValue;
  wallet_id: string | null;
  customer: JsonValue | null;
  description: string | null;
  metadata: JsonValue;
  callback_url: string | null;
  failure_code: string | null;
  failure_message: string | null;
  provider: string;
  provider_reference: string | null;
  provider_state: Generated<ProviderState>;
  late_outcome: JsonValue | null;
  livemode: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
  completed_at: NullableTimestamp;
  expires_at: NullableTimestamp;
  next_check_at: NullableTimestamp;
  lease_until: NullableTimestamp;
  attempts: Generated<number>;
  /** Sum of the payment's pending and succeeded refunds (migration 006). */
  amount_refunded: Int8Default;
  /** Card states (migration 009). */
  capture_method: ColumnType<CaptureMethod, CaptureMethod | undefined, CaptureMethod>;
  amount_capturable: NullableInt8;
  /** What was captured; null: the whole amount once succeeded. */
  amount_received: NullableInt8;
  capture_before: NullableTimestamp;
  next_action: JsonValue | null;
  provider_action_url: string | null;
  return_url: string | null;
  three_d_secure: string | null;
  cancellation_reason: string | null;
  pending_operation: ChargeOperation | null;
  operation_amount: NullableInt8;
  operation_key_generation: Generated<number>;
}

export type OutflowKind = 'refund' | 'payout';
export type OutflowStatus = 'pending' | 'succeeded' | 'failed';
export type DestinationType = 'wallet' | 'mobile_money' | 'card';

/** Refunds and payouts: money leaving the merchant's balance (migration 006). */
export interface OutflowsTable {
  id: string;
  kind: OutflowKind;
  merchant_id: string;
  reference: string;
  request_fingerprint: JsonValue;
  status: OutflowStatus;
  amount: Int8;
  currency: string;
  payment_id: string | null;
  reason: string | null;
  destination_type: DestinationType;
  destination: JsonValue;
  wallet_id: string | null;
  description: string | null;
  metadata: JsonValue;
  callback_url: string | null;
  failure_code: string | null;
  failure_message: string | null;
  provider: string;
  provider_reference: string | null;
  provider_state: Generated<'not_started' | 'initiated'>;
  late_outcome: JsonValue | null;
  livemode: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
  completed_at: NullableTimestamp;
  next_check_at: NullableTimestamp;
  lease_until: NullableTimestamp;
  attempts: Generated<number>;
}

/** Per merchant and currency: what payments credited (shards), and what outflows hold (shard 0). */
export interface MerchantBalancesTable {
  merchant_id: string;
  currency: string;
  shard: number;
  credited: Int8Default;
  debited: Int8Default;
  reserved: Int8Default;
}

export type TransferStatus = 'succeeded' | 'failed';

export interface TransfersTable {
  id: string;
  merchant_id: string;
  reference: string;
  request_fingerprint: JsonValue;
  status: TransferStatus;
  amount: Int8;
  currency: string;
  source_wallet_id: string;
  destination_wallet_id: string;
  description: string | null;
  metadata: JsonValue;
  failure_code: string | null;
  failure_message: string | null;
  livemode: boolean;
  created_at: Timestamp;
}

export interface LedgerTransactionsTable {
  id: string;
  merchant_id: string;
  source_type: string;
  source_id: string;
  /** 'hold' when an outflow is created, 'final' for every other posting (migration 006). */
  step: Generated<'hold' | 'final' | 'reversal'>;
  created_at: Timestamp;
}

export interface LedgerEntriesTable {
  id: string;
  transaction_id: string;
  account: string;
  currency: string;
  amount: Int8;
  balance_after: ColumnType<string | null, bigint | string | null, bigint | string | null>;
  source_type: string;
  source_id: string;
  created_at: Timestamp;
  /** Application order (migration 005); never exposed, only ordered and paged on. */
  seq: Generated<Int8>;
}

export interface EventsTable {
  id: string;
  merchant_id: string;
  type: string;
  object_id: string;
  data: JsonValue;
  livemode: boolean;
  created_at: Timestamp;
}

export interface SandboxProviderChargesTable {
  provider_reference: string;
  idempotency_key: string;
  method_type: string;
  outcome: ChargeStatus;
  failure_code: string | null;
  complete_at: NullableTimestamp;
  created_at: Timestamp;
  /** Card authorisations (migration 009): the amount asked, what was captured, how, the 3-D Secure challenge's state, where the payer returns. */
  amount: NullableInt8;
  amount_received: NullableInt8;
  capture_method: string | null;
  challenge: string | null;
  return_url: string | null;
}

export interface WebhookEndpointsTable {
  id: string;
  merchant_id: string;
  url: string;
  events: ColumnType<string[], string[], string[]>;
  description: string | null;
  status: 'enabled' | 'disabled' | 'deleted';
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: NullableTimestamp;
  livemode: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  merchant_id: string;
  endpoint_id: string | null;
  url: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: NullableTimestamp;
  lease_until: NullableTimestamp;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  delivered_at: NullableTimestamp;
}

export interface WebhookAttemptsTable {
  id: Generated<string>;
  delivery_id: string;
  attempted_at: Timestamp;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  /** The start of a non-2xx answer's body (≤ 200 characters, controls replaced); null otherwise. */
  response_excerpt: string | null;
}

/** Hosted checkout (migration 011): a session is paid by payments named `<reference>/attempt-N`. */
export type CheckoutSessionStatus = 'open' | 'complete' | 'expired';

export interface CheckoutSessionsTable {
  id: string;
  merchant_id: string;
  reference: string;
  request_fingerprint: JsonValue;
  token_hash: string;
  status: CheckoutSessionStatus;
  amount: Int8;
  currency: string;
  payment_method_types: string[];
  capture_method: CaptureMethod;
  success_url: string | null;
  cancel_url: string | null;
  customer: JsonValue | null;
  description: string | null;
  metadata: JsonValue;
  payment_link_id: string | null;
  payment_id: string | null;
  failed_attempts: Generated<number>;
  attempt_lease_until: NullableTimestamp;
  livemode: boolean;
  expires_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  completed_at: NullableTimestamp;
}

export interface PaymentLinksTable {
  id: string;
  merchant_id: string;
  token_hash: string;
  amount: NullableInt8;
  currency: string;
  description: string;
  payment_method_types: string[];
  after_completion_url: string | null;
  active: boolean;
  livemode: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface Database {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  merchants: MerchantsTable;
  access_tokens: AccessTokensTable;
  api_keys: ApiKeysTable;
  audit_heads: AuditHeadsTable;
  audit_events: AuditEventsTable;
  users: UsersTable;
  invitations: InvitationsTable;
  recovery_codes: RecoveryCodesTable;
  dashboard_sessions: DashboardSessionsTable;
  settings: SettingsTable;
  wallets: WalletsTable;
  charges: ChargesTable;
  transfers: TransfersTable;
  outflows: OutflowsTable;
  merchant_balances: MerchantBalancesTable;
  ledger_transactions: LedgerTransactionsTable;
  ledger_entries: LedgerEntriesTable;
  events: EventsTable;
  sandbox_provider_charges: SandboxProviderChargesTable;
  checkout_sessions: CheckoutSessionsTable;
  payment_links: PaymentLinksTable;
}
