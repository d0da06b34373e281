import type { AuthContext } from '../oauth/service.ts';
import type { AuditEntry, AuditOrigin } from './types.ts';

/**
 * A record of an act done through the API with `auth`'s token: the actor is its API key, or the
 * dashboard user whose session issued the token.
 */
export function auditEntry(
  auth: AuthContext,
  action: string,
  target: { type: string; id: string },
  changes?: Record<string, unknown>,
): AuditEntry {
  return {
    merchantId: auth.merchantId,
    action,
    actor: auth.user ? { type: 'user', id: auth.user.id, email: auth.user.email } : { type: 'api_key', id: auth.apiKeyId },
    target,
    origin: auth.origin,
    ...(changes === undefined ? {} : { changes }),
  };
}

/** A record of a dashboard user's own act (signing in, enrolling TOTP, managing users). */
export function userEntry(
  user: { id: string; email: string; merchant_id: string },
  action: string,
  options: { target?: { type: string; id: string }; origin?: AuditOrigin | undefined; changes?: Record<string, unknown> } = {},
): AuditEntry {
  return {
    merchantId: user.merchant_id,
    action,
    actor: { type: 'user', id: user.id, email: user.email },
    target: options.target ?? { type: 'user', id: user.id },
    origin: options.origin,
    ...(options.changes === undefined ? {} : { changes: options.changes }),
  };
}

/** A record of the operator's act on a merchant (the `purse` command); the target is the merchant unless given. */
export function operatorEntry(
  merchantId: string,
  action: string,
  changes?: Record<string, unknown>,
  target: { type: string; id: string } = { type: 'merchant', id: merchantId },
): AuditEntry {
  return {
    merchantId,
    action,
    actor: { type: 'operator', id: null },
    target,
    ...(changes === undefined ? {} : { changes }),
  };
}
