import { LRUCache } from 'lru-cache';
import type { Db } from '../db/db.ts';
import type { AddressFailureLimit } from '../limits/address.ts';
import type { WindowCounters } from '../limits/counters.ts';
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

/** Access tokens are `at_` and 43 base64url characters (http/auth.ts recognises the prefix). */
export const ACCESS_TOKEN_PREFIX = 'at';

const ACCESS_TOKEN = new RegExp(`^${ACCESS_TOKEN_PREFIX}_[A-Za-z0-9_-]{43}$`);

/** A verified token is trusted for this long before the database is asked again (revocation ≤ 5 s). */
const AUTH_CACHE_MS = 2_000;
/** Tokens and clients remembered per process; the least recently used go first, never all at once. */
const AUTH_CACHE_MAX = 50_000;
/** Tokens the database does not know, remembered apart so that guesses never evict real tokens. */
const UNKNOWN_CACHE_MAX = 10_000;
const FAILURE_WINDOW_MS = 60_000;

interface CachedToken {
  context: AuthContext | null;
  expiresAtMs: number;
  checkedAtMs: number;
}

export type TokenRefusal = { ok: false; error: 'throttled'; retryAfterS: number };

export function createOAuthService(deps: {
  db: Db;
  clock: Clock;
  hashKey: Buffer;
  /** During a service-key rotation: hashes made with the old key are still accepted. */
  previousHashKey?: Buffer | null;
  tokenTtlS: number;
  /** Failures per (client_id, source address) per minute. */
  failureLimit: number;
  counters: WindowCounters;
  addressLimit: AddressFailureLimit;
}) {
  const { db, clock, hashKey, tokenTtlS, failureLimit, counters, addressLimit } = deps;
  const previousHashKey = deps.previousHashKey ?? null;
  const cache = new LRUCache<string, CachedToken>({ max: AUTH_CACHE_MAX });
  const unknownTokens = new LRUCache<string, CachedToken>({ max: UNKNOWN_CACHE_MAX });
  // A fixed hash compared against when the client is unknown, so both paths cost the same.
  const decoyHash = keyedHash(hashKey, newSecret('decoy'));

  /**
   * Failures are counted per (client, address): someone else's wrong guesses from elsewhere never
   * lock a merchant out, since a client_id is not a secret. The address as a whole has its own
   * limit (addressLimit), shared with unauthenticated /v1 requests.
   */
  const pairKey = (clientId: string, address: string) => `token-fail:${clientId}|${address}`;
  const throttled = (resetMs: number): TokenRefusal => ({
    ok: false,
    error: 'throttled',
    retryAfterS: Math.max(1, Math.ceil(resetMs / 1000)),
  });

  /**
   * Client records, cached like tokens (≤ 2 s, so a rotation or a disable reaches every node
   * within the 5 s bound; this node forgets at once through forgetClient). Token issuance is
   * then one INSERT.
   */
  const clients = new LRUCache<string, { row: Awaited<ReturnType<typeof findMerchantByClientId>>; checkedAtMs: number }>({
    max: AUTH_CACHE_MAX,
  });
  async function findClient(clientId: string, key: string, nowMs: number) {
    const cached = clients.get(key);
    if (cached && nowMs - cached.checkedAtMs < AUTH_CACHE_MS) return cached.row;
    const row = await findMerchantByClientId(db, clientId);
    clients.set(key, { row, checkedAtMs: nowMs });
    return row;
  }
  const clientKey = (clientId: string) => (clientId.length <= 64 ? clientId : keyedHash(hashKey, `client:${clientId}`));

  async function issueToken(
    rawClientId: string,
    clientSecret: string,
    address: string,
  ): Promise<Result<IssuedToken, 'invalid_client'> | TokenRefusal> {
    const now = clock.now();
    // The counters are keyed by a fixed-size digest: a client_id is whatever the caller sent.
    const clientId = clientKey(rawClientId);
    const pair = pairKey(clientId, address);
    const [before, addressWaitS] = await Promise.all([counters.peek(pair, FAILURE_WINDOW_MS), addressLimit.retryAfterS(address)]);
    if (addressWaitS > 0) return { ok: false, error: 'throttled', retryAfterS: addressWaitS };
    if (before.count >= failureLimit) return throttled(before.resetMs);
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
      const [after, addressOverS] = await Promise.all([counters.hit(pair, FAILURE_WINDOW_MS), addressLimit.failed(address)]);
      if (addressOverS > 0) return { ok: false, error: 'throttled', retryAfterS: addressOverS };
      if (after.count > failureLimit) return throttled(after.resetMs);
      return err('invalid_client');
    }
    const latest = await counters.peek(pair, FAILURE_WINDOW_MS);
    if (latest.count >= failureLimit) return throttled(latest.resetMs);
    if (latest.count > 0) await counters.clear(pair, FAILURE_WINDOW_MS);
    if (oldKeyMatch) {
      await store.rehashClientSecret(db, merchant.id, stored, keyedHash(hashKey, clientSecret));
      clients.delete(clientId);
    }
    const accessToken = newSecret(ACCESS_TOKEN_PREFIX);
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
    (row === undefined ? unknownTokens : cache).set(tokenHash, entry);
    return entry;
  }

  async function authenticate(token: string): Promise<Result<AuthContext, 'token_invalid' | 'token_expired'>> {
    // Our tokens have one shape; anything else is refused without a database round trip.
    if (!ACCESS_TOKEN.test(token)) return err('token_invalid');
    const nowMs = clock.now().getTime();
    const tokenHash = keyedHash(hashKey, token);
    let entry = cache.get(tokenHash) ?? unknownTokens.get(tokenHash);
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
      // Its tokens' cached verdicts go too (they are not indexed by client: a rare event).
      cache.clear();
    },
    // Expired tokens are kept a day so a late caller still hears token_expired, not token_invalid.
    deleteExpiredTokens: () => store.deleteExpiredTokens(db, new Date(clock.now().getTime() - 86_400_000)),
  };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
