import type { ApiKeyScope } from '../api-keys/scopes.ts';
import type { UserRole } from '../db/schema.ts';

export type { UserRole };

/**
 * What each dashboard role may do, in one table (docs/users.md). `scopes`: the API scopes its
 * session tokens carry (route-scopes.ts judges them like a key's); `managesKeys`: the API-key routes
 * (limited to keys within its own scopes, api-keys/service.ts); `managesUsers`: the users routes;
 * `totpRequired`: the role cannot use a session before it has enrolled TOTP.
 */
export const ROLES: Readonly<
  Record<UserRole, { scopes: readonly ApiKeyScope[]; managesKeys: boolean; managesUsers: boolean; totpRequired: boolean }>
> = {
  owner: { scopes: ['all'], managesKeys: true, managesUsers: true, totpRequired: true },
  admin: { scopes: ['all'], managesKeys: true, managesUsers: false, totpRequired: true },
  developer: { scopes: ['payments:read', 'wallets:read', 'webhooks:write'], managesKeys: true, managesUsers: false, totpRequired: false },
  support: { scopes: ['payments:read', 'wallets:read', 'refunds:write'], managesKeys: false, managesUsers: false, totpRequired: false },
  viewer: { scopes: ['payments:read', 'wallets:read'], managesKeys: false, managesUsers: false, totpRequired: false },
};

export const USER_ROLES = Object.keys(ROLES) as UserRole[];

export const isRole = (value: string): value is UserRole => Object.hasOwn(ROLES, value);
