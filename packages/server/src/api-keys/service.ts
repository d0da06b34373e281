import { auditEntry } from '../audit/entry.ts';
import { appendAudit } from '../audit/store.ts';
import type { Db } from '../db/db.ts';
import type { AuthContext } from '../oauth/service.ts';
import type { Clock } from '../shared/clock.ts';
import { ApiError, notFound } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { present } from '../shared/invariant.ts';
import type { PageRequest } from '../shared/pagination.ts';
import { CLIENT_SECRET_PREFIXES, keyedHash, newSecret } from '../shared/secrets.ts';
import { type ApiKeyScope, within } from './scopes.ts';
import * as store from './store.ts';
import { type ApiKeyView, apiKeyView } from './view.ts';

/**
 * A caller without `all` (a developer's session token, the only one the key routes admit without
 * it) creates, rolls and revokes only keys whose scopes are within its own.
 */
function mayManage(auth: AuthContext, scopes: readonly ApiKeyScope[]): void {
  if (within(scopes, auth.scopes)) return;
  throw new ApiError(
    'insufficient_scope',
    `Only keys within your own scopes (${auth.scopes.join(', ')}) may be created, rolled or revoked here; this one needs ${scopes.join(', ')}.`,
    { headers: { 'www-authenticate': 'Bearer realm="payments", error="insufficient_scope", scope="all"' } },
  );
}

const revoked = () => new ApiError('invalid_state', 'This API key is revoked; it cannot be rolled. Create a new key instead.');

/** How long a rolled key's previous secret may stay valid at most: 7 days. */
export const MAX_OVERLAP_S = 7 * 86_400;

/**
 * A merchant's API keys (docs/api.md, keys). Rolling or revoking a key reaches this process's
 * token cache at once (onCredentialsChanged) and every other process within its 2 s cache.
 */
export function createApiKeyService(deps: { db: Db; clock: Clock; hashKey: Buffer; onCredentialsChanged?: (clientId: string) => void }) {
  const { db, clock, hashKey } = deps;
  const secretFor = (auth: AuthContext) => newSecret(CLIENT_SECRET_PREFIXES[auth.livemode ? 'live' : 'test']);

  async function owned(auth: AuthContext, id: string) {
    const row = await store.findApiKey(db, auth.merchantId, id);
    if (!row) throw notFound();
    return row;
  }

  return {
    async list(auth: AuthContext, page: PageRequest) {
      const { rows, hasMore } = await store.listApiKeys(db, auth.merchantId, page);
      return { object: 'list' as const, data: rows.map((r) => apiKeyView(r, auth.livemode)), has_more: hasMore };
    },

    async get(auth: AuthContext, id: string): Promise<ApiKeyView> {
      return apiKeyView(await owned(auth, id), auth.livemode);
    },

    /** A new key; its secret is in this answer only. Duplicated scopes are stored once. */
    async create(auth: AuthContext, input: { name: string; scopes: ApiKeyScope[] }): Promise<ApiKeyView> {
      mayManage(auth, input.scopes);
      const id = newId('apiKey');
      const secret = secretFor(auth);
      const now = clock.now();
      const scopes = [...new Set(input.scopes)];
      await db.transaction().execute(async (trx) => {
        const row = { id, merchantId: auth.merchantId, name: input.name, clientId: newId('client'), scopes, now };
        await store.insertApiKey(trx, { ...row, secretHash: keyedHash(hashKey, secret) });
        await appendAudit(trx, [auditEntry(auth, 'api_key.created', { type: 'api_key', id }, { name: input.name, scopes })], now);
      });
      return { ...apiKeyView(present(await store.findApiKey(db, auth.merchantId, id), 'api key'), auth.livemode), client_secret: secret };
    },

    /** A new secret; the old one keeps working for `overlapS` seconds (0: stops now, with its tokens). */
    async roll(auth: AuthContext, id: string, overlapS: number): Promise<ApiKeyView> {
      const key = await owned(auth, id);
      mayManage(auth, key.scopes);
      if (key.status !== 'active') throw revoked();
      const secret = secretFor(auth);
      const now = clock.now();
      const previousUntil = overlapS > 0 ? new Date(now.getTime() + overlapS * 1000) : null;
      const rolled = await db.transaction().execute(async (trx) => {
        const roll = { merchantId: auth.merchantId, id, secretHash: keyedHash(hashKey, secret), previousUntil, now };
        if (!(await store.rollApiKey(trx, roll))) return false;
        await appendAudit(trx, [auditEntry(auth, 'api_key.rolled', { type: 'api_key', id }, { overlap_seconds: overlapS })], now);
        return true;
      });
      if (!rolled) throw revoked();
      deps.onCredentialsChanged?.(key.client_id);
      return { ...apiKeyView(await owned(auth, id), auth.livemode), client_secret: secret };
    },

    /** Revokes the key and its tokens; revoking a revoked key answers it as it is. */
    async revoke(auth: AuthContext, id: string): Promise<ApiKeyView> {
      const key = await owned(auth, id);
      mayManage(auth, key.scopes);
      const now = clock.now();
      const done = await db.transaction().execute(async (trx) => {
        if (!(await store.revokeApiKey(trx, auth.merchantId, id, now))) return false;
        await appendAudit(trx, [auditEntry(auth, 'api_key.revoked', { type: 'api_key', id })], now);
        return true;
      });
      if (done) deps.onCredentialsChanged?.(key.client_id);
      return apiKeyView(await owned(auth, id), auth.livemode);
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
