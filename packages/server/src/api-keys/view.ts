import type { ApiKeyRow } from './store.ts';

export interface ApiKeyView {
  id: string;
  object: 'api_key';
  name: string;
  client_id: string;
  scopes: string[];
  status: 'active' | 'revoked';
  livemode: boolean;
  previous_secret_expires_at: string | null;
  created_at: string;
  revoked_at: string | null;
  client_secret?: string;
}

export function apiKeyView(row: ApiKeyRow, livemode: boolean): ApiKeyView {
  return {
    id: row.id,
    object: 'api_key',
    name: row.name,
    client_id: row.client_id,
    scopes: row.scopes,
    status: row.status,
    livemode,
    previous_secret_expires_at: row.previous_secret_expires_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}
