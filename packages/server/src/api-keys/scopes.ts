import type { ApiKeyScope } from '../db/schema.ts';

export type { ApiKeyScope };

/** Every scope a key may hold (docs/api.md, keys); `all` grants every other one. */
export const API_KEY_SCOPES: readonly ApiKeyScope[] = [
  'payments:read',
  'payments:write',
  'refunds:write',
  'payouts:write',
  'wallets:read',
  'wallets:write',
  'webhooks:write',
  'all',
];

/**
 * What a route demands: one scope, `authenticated` for a route any valid token may call (only
 * GET /v1/merchant, the cheap token check), or `manage_keys` for the API-key routes: `all`, or the
 * session token of a dashboard role that manages keys (developer, users/roles.ts), which is then
 * limited to keys within its own scopes (api-keys/service.ts).
 */
export type RouteRequirement = ApiKeyScope | 'authenticated' | 'manage_keys';

export function grants(held: readonly ApiKeyScope[], required: RouteRequirement, managesKeys = false): boolean {
  if (required === 'manage_keys') return held.includes('all') || managesKeys;
  return required === 'authenticated' || held.includes('all') || held.includes(required);
}

/** Whether `scopes` are all within `held` (`all` holds every scope; only `all` holds `all`). */
export function within(scopes: readonly ApiKeyScope[], held: readonly ApiKeyScope[]): boolean {
  return held.includes('all') || scopes.every((s) => s !== 'all' && held.includes(s));
}
