import type { ColumnType, Generated } from 'kysely';

/** int8 columns: written as bigint or string, read back as string (parse with BigInt). */
export type Int8 = ColumnType<string, bigint | string, bigint | string>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type Json<T> = ColumnType<T, string, string>;

export interface MerchantsTable {
  id: string;
  name: string;
  status: 'active' | 'disabled';
  livemode: boolean;
  client_id: string;
  client_secret_hash: string;
  /** Bumped on secret rotation and disable; a token of another version is revoked. */
  credential_version: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AccessTokensTable {
  token_hash: string;
  merchant_id: string;
  credential_version: number;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface Database {
  merchants: MerchantsTable;
  access_tokens: AccessTokensTable;
  settings: SettingsTable;
}

export type { Json };
