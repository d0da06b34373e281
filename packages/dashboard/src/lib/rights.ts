// What the signed-in user's role may do, to show only the actions it has (the server decides
// anyway: a refused action answers 403 and the page says so). The table mirrors the server's
// roles (api-v1 §22): owner everything; admin everything but users; developer keys, webhooks and
// reading; support reading and refunds; viewer reading only.
import { PurseError } from '@purse/sdk';
import type { Role } from './dashboard-api.ts';
import { currentSession } from './session.ts';

export type Right =
  /** POST /v1/refunds, the sandbox's refund outcomes (refunds:write). */
  | 'refunds'
  /** POST /v1/payouts, the sandbox's payout outcomes (payouts:write). */
  | 'payouts'
  /** Capture, cancel, payment links, the sandbox's payment and top-up outcomes (payments:write). */
  | 'payments'
  /** Wallets: create, freeze, unfreeze; transfers (wallets:write). */
  | 'wallets'
  /** Webhook endpoints (reading them too: the signing secret is there), redelivery (webhooks:write). */
  | 'webhooks'
  /** API keys (all, or within the developer's own scopes). */
  | 'keys'
  /** The audit log (all). */
  | 'audit'
  /** The merchant's users (owner only). */
  | 'users';

const EVERYTHING: readonly Right[] = ['refunds', 'payouts', 'payments', 'wallets', 'webhooks', 'keys', 'audit', 'users'];

export const ROLE_RIGHTS: Readonly<Record<Role, readonly Right[]>> = {
  owner: EVERYTHING,
  admin: EVERYTHING.filter((right) => right !== 'users'),
  developer: ['webhooks', 'keys'],
  support: ['refunds'],
  viewer: [],
};

/**
 * Whether the signed-in user's role has `right`. Signed in with API client credentials there is no
 * user and no role: everything but users is shown, and the key's scopes decide at the server.
 */
export function can(right: Right): boolean {
  const session = currentSession();
  if (!session) return false;
  if (!session.user) return right !== 'users';
  return ROLE_RIGHTS[session.user.role]?.includes(right) ?? false;
}

/** A refusal for lack of rights: the signed-in role (or the API key's scopes) may not do this. */
export function refusedForRole(error: unknown): boolean {
  return error instanceof PurseError && error.status === 403 && (error.code === 'insufficient_scope' || error.code === 'insufficient_role');
}
