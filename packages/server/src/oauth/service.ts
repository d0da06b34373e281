import type { Db } from '../db/db.ts';
import { findMerchantByClientId } from '../merchants/store.ts';
import type { Clock } from '../shared/clock.ts';
import { err, ok, type Result } from '../shared/result.ts';
import { constantTimeEqual, keyedHash, newSecret } from '../shared/secrets.ts';
import * as store from './store.ts';

/** What a valid Bearer token tells a route about its caller. */
export interface AuthContext {
  merchantId: string;
  livemode: boolean;
}

export interface IssuedToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

/** A verified token is trusted for this long before the database is asked again (revocation ≤ 5 s). */
const AUTH_CACHE_MS = 2_000;
const AUTH_CACHE_MAX = 50_000;
const FAILURE_WINDOW_MS = 60_000;
const FAILURE_TRACK_MAX = 100_000;

interface CachedToken {
  context: AuthContext | null;
  expiresAtMs: number;
  checkedAtMs: number;
}

export function createOAuthService(deps: {
  db: Db;
  clock: Clock;
  hashKey: Buffer;
  /** During a service-key rotation: hashes made with the old key are still accepted. */
  previousHashKey?: Buffer | null;
  tokenTtlS: number;
  failureLimit: number;
}) {
  const { db, clock, hashKey, tokenTtlS, failureLimit } = deps;
  const previousHashKey = deps.previousHashKey ?? null;
  const cache = new Map<string, CachedToken>();
  const failures = new Map<string, { count: number; windowStartMs: number }>();
  // A fixed hash compared against when the client is unknown, so both paths cost the same.
  const decoyHash = keyedHash(hashKey, newSecret('decoy'));

  function throttledFor(clientId: string, nowMs: number): number {
    const entry = failures.get(clientId);
    if (!entry || nowMs - entry.windowStartMs >= FAILURE_WINDOW_MS) return 0;
    return entry.count >= failureLimit ? Math.ceil((entry.windowStartMs + FAILURE_WINDOW_MS - nowMs) / 1000) : 0;
  }

  function recordFailure(clientId: string, nowMs: number): void {
    if (failures.size >= FAILURE_TRACK_MAX) {
      // Drop finished windows first; only a flood of distinct ids clears what is still live.
      for (const [key, value] of failures) if (nowMs - value.windowStartMs >= FAILURE_WINDOW_MS) failures.delete(key);
      if (failures.size >= FAILURE_TRACK_MAX) failures.clear();
    }
    const entry = failures.get(clientId);
    if (!entry || nowMs - entry.windowStartMs >= FAILURE_WINDOW_MS) failures.set(clientId, { count: 1, windowStartMs: nowMs });
    else entry.count += 1;
  }

  /**
   * Client records, cached like tokens (≤ 2 s, so a rotation or a disable reaches every node
   * within the 5 s bound; this node forgets at once through forgetClient). Token issuance is
   * then one INSERT.
   */
  const clients = new Map<string, { row: Awaited<ReturnType<typeof findMerchantByClientId>>; checkedAtMs: number }>();
  async function findClient(clientId: string, key: string, nowMs: number) {
    const cached = clients.get(key);
    if (cached && nowMs - cached.checkedAtMs < AUTH_CACHE_MS) return cached.row;
    const row = await findMerchantByClientId(db, clientId);
    if (clients.size >= AUTH_CACHE_MAX) clients.clear();
    clients.set(key, { row, checkedAtMs: nowMs });
    return row;
  }
  const clientKey = (clientId: string) => (clientId.length <= 64 ? clientId : keyedHash(hashKey, `client:${clientId}`));

  async function issueToken(
    rawClientId: string,
    clientSecret: string,
  ): Promise<Result<IssuedToken, 'invalid_client'> | { ok: false; error: 'throttled'; retryAfterS: number }> {
    const now = clock.now();
    // The in-memory maps are keyed by a fixed-size digest: a client_id is whatever the caller sent.
    const clientId = clientKey(rawClientId);
    const retryAfterS = throttledFor(clientId, now.getTime());
    if (retryAfterS > 0) return { ok: false, error: 'throttled', retryAfterS };
    const merchant = await findClient(rawClientId, clientId, now.getTime());
    const stored = merchant?.client_secret_hash ?? decoyHash;
    let matches = constantTimeEqual(stored, keyedHash(hashKey, clientSecret));
    // A hash made with the previous service key: accepted, and re-keyed now (we hold the secret
    // only at this moment), so `purse rekey` cannot do it but the next exchange does.
    const oldKeyMatch = !matches && previousHashKey !== null && constantTimeEqual(stored, keyedHash(previousHashKey, clientSecret));
    if (oldKeyMatch) matches = true;
    // Guesses sent in parallel all pass the check above before any failure is recorded, so the
    // outcome is judged again here: beyond the limit, neither a failure nor a success is revealed.
    if (!merchant || !matches || merchant.status !== 'active') {
      recordFailure(clientId, now.getTime());
      const entry = failures.get(clientId);
      if (entry && entry.count > failureLimit) return { ok: false, error: 'throttled', retryAfterS: throttledFor(clientId, now.getTime()) };
      return err('invalid_client');
    }
    const throttledNow = throttledFor(clientId, now.getTime());
    if (throttledNow > 0) return { ok: false, error: 'throttled', retryAfterS: throttledNow };
    failures.delete(clientId);
    if (oldKeyMatch) {
      await store.rehashClientSecret(db, merchant.id, stored, keyedHash(hashKey, clientSecret));
      clients.delete(clientId);
    }
    const accessToken = newSecret('at');
    await store.insertAccessToken(db, {
      tokenHash: keyedHash(hashKey, accessToken),
      merchantId: merchant.id,
      credentialVersion: merchant.credential_version,
      createdAt: now,
      expiresAt: new Date(now.getTime() + tokenTtlS * 1000),
    });
    return ok({ access_token: accessToken, token_type: 'Bearer', expires_in: tokenTtlS });
  }

  async function lookup(tokenHash: string, nowMs: number): Promise<CachedToken> {
    const row = await store.findAccessToken(db, tokenHash);
    const valid = row !== undefined && row.status === 'active' && row.token_version === row.merchant_version;
    const entry: CachedToken = {
      context: valid ? { merchantId: row.merchant_id, livemode: row.livemode } : null,
      expiresAtMs: row ? row.expires_at.getTime() : 0,
      checkedAtMs: nowMs,
    };
    if (cache.size >= AUTH_CACHE_MAX) cache.clear();
    cache.set(tokenHash, entry);
    return entry;
  }

  async function authenticate(token: string): Promise<Result<AuthContext, 'token_invalid' | 'token_expired'>> {
    // Our tokens have one shape; anything else is refused without a database round trip.
    if (!/^at_[A-Za-z0-9_-]{43}$/.test(token)) return err('token_invalid');
    const nowMs = clock.now().getTime();
    const tokenHash = keyedHash(hashKey, token);
    let entry = cache.get(tokenHash);
    if (!entry || nowMs - entry.checkedAtMs >= AUTH_CACHE_MS) entry = await lookup(tokenHash, nowMs);
    // A token issued under the previous service key (rotation): found by its old hash; tokens
    // expire on their own, so they are not rewritten.
    if (!entry.context && entry.expiresAtMs === 0 && previousHashKey !== null)
      entry = await lookup(keyedHash(previousHashKey, token), nowMs);
    if (!entry.context) return err('token_invalid');
    if (nowMs >= entry.expiresAtMs) return err('token_expired');
    return ok(entry.context);
  }

  return {
    issueToken,
    authenticate,
    /** Called when this process changes a client's credentials or status. */
    forgetClient(clientId: string): void {
      clients.delete(clientKey(clientId));
      cache.clear();
    },
    // Expired tokens are kept a day so a late caller still hears token_expired, not token_invalid.
    deleteExpiredTokens: () => store.deleteExpiredTokens(db, new Date(clock.now().getTime() - 86_400_000)),
  };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
