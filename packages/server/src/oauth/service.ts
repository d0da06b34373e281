import { LRUCache } from 'lru-cache';
import { findClientCredential, rehashSecret } from '../api-keys/store.ts';
import type { Db } from '../db/db.ts';
import type { AddressFailureLimit } from '../limits/address.ts';
import type { WindowCounters } from '../limits/counters.ts';
import type { Clock } from '../shared/clock.ts';
import { err, ok, type Result } from '../shared/result.ts';
import { constantTimeEqual, keyedHash, newSecret } from '../shared/secrets.ts';
import * as store from './store.ts';
import { type AuthContext, type CachedToken, cacheEntry } from './verdict.ts';

export type { AuthContext };

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

/** A session's token counts as activity: written at most this often (docs/users.md). */
const TOUCH_MS = 60_000;

/** A session's token was used: its session's activity is written when the last write is a minute old. */
async function touchSessionOf(db: Db, entry: CachedToken, nowMs: number): Promise<void> {
  const session = entry.session;
  if (!session || !entry.context || nowMs >= entry.validUntilMs || nowMs - session.lastSeenMs < TOUCH_MS) return;
  await store.touchSession(db, session.id, new Date(nowMs), new Date(nowMs - TOUCH_MS));
  session.lastSeenMs = nowMs;
}

type Credential = NonNullable<Awaited<ReturnType<typeof findClientCredential>>>;

/** Which of a key's secrets the given hash matches: its current one, or its previous one during a roll's overlap. */
function secretMatch(credential: Credential | undefined, hash: string, nowMs: number): 'current' | 'previous' | null {
  if (!credential) return null;
  if (constantTimeEqual(credential.secret_hash, hash)) return 'current';
  const previous = credential.previous_secret_hash;
  const until = credential.previous_secret_expires_at?.getTime() ?? 0;
  return previous !== null && nowMs < until && constantTimeEqual(previous, hash) ? 'previous' : null;
}

export type TokenRefusal = { ok: false; error: 'throttled'; retryAfterS: number };

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

export function createOAuthService(deps: {
  db: Db;
  clock: Clock;
  hashKey: Buffer;
  /** During a service-key rotation: hashes made with the old key are still accepted. */
  previousHashKey?: Buffer | null;
  tokenTtlS: number;
  /** A dashboard session's idle limit: its tokens stop with it (docs/users.md). */
  sessionIdleS: number;
  /** Failures per (client_id, source address) per minute. */
  failureLimit: number;
  counters: WindowCounters;
  addressLimit: AddressFailureLimit;
}) {
  const { db, clock, hashKey, tokenTtlS, failureLimit, counters, addressLimit } = deps;
  const previousHashKey = deps.previousHashKey ?? null;
  const idleMs = deps.sessionIdleS * 1000;
  const cache = new LRUCache<string, CachedToken>({ max: AUTH_CACHE_MAX });
  const unknownTokens = new LRUCache<string, CachedToken>({ max: UNKNOWN_CACHE_MAX });
  // A fixed hash compared against when the client is unknown, so both paths cost the same.
  const decoyHash = keyedHash(hashKey, newSecret('decoy'));

  /**
   * Client records, cached like tokens (≤ 2 s, so a rotation or a disable reaches every node
   * within the 5 s bound; this node forgets at once through forgetClient). Token issuance is
   * then one INSERT.
   */
  const clients = new LRUCache<string, { row: Credential | undefined; checkedAtMs: number }>({ max: AUTH_CACHE_MAX });
  async function findClient(clientId: string, key: string, nowMs: number) {
    const cached = clients.get(key);
    if (cached && nowMs - cached.checkedAtMs < AUTH_CACHE_MS) return cached.row;
    const row = await findClientCredential(db, clientId);
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
    const credential = await findClient(rawClientId, clientId, now.getTime());
    const stored = credential?.secret_hash ?? decoyHash;
    let match = secretMatch(credential, keyedHash(hashKey, clientSecret), now.getTime());
    if (!credential) constantTimeEqual(stored, decoyHash);
    // A hash made with the previous service key: accepted, and re-keyed now (we hold the secret
    // only at this moment), so `purse rekey` cannot do it but the next exchange does.
    const oldKeyMatch = !match && previousHashKey !== null && constantTimeEqual(stored, keyedHash(previousHashKey, clientSecret));
    if (oldKeyMatch) match = 'current';
    // Guesses sent in parallel all pass the check above before any failure is recorded, so the
    // outcome is judged again here: beyond the limit, neither a failure nor a success is revealed.
    if (!credential || !match || credential.status !== 'active' || credential.key_status !== 'active') {
      const [after, addressOverS] = await Promise.all([counters.hit(pair, FAILURE_WINDOW_MS), addressLimit.failed(address)]);
      if (addressOverS > 0) return { ok: false, error: 'throttled', retryAfterS: addressOverS };
      if (after.count > failureLimit) return throttled(after.resetMs);
      return err('invalid_client');
    }
    const latest = await counters.peek(pair, FAILURE_WINDOW_MS);
    if (latest.count >= failureLimit) return throttled(latest.resetMs);
    if (latest.count > 0) await counters.clear(pair, FAILURE_WINDOW_MS);
    if (oldKeyMatch) {
      await rehashSecret(db, credential.id, stored, keyedHash(hashKey, clientSecret));
      clients.delete(clientId);
    }
    const accessToken = newSecret(ACCESS_TOKEN_PREFIX);
    await store.insertAccessToken(db, {
      tokenHash: keyedHash(hashKey, accessToken),
      merchantId: credential.merchant_id,
      credentialVersion: credential.credential_version,
      apiKeyId: credential.id,
      keyVersion: match === 'previous' ? credential.key_version - 1 : credential.key_version,
      createdAt: now,
      expiresAt: new Date(now.getTime() + tokenTtlS * 1000),
    });
    return ok({ access_token: accessToken, token_type: 'Bearer', expires_in: tokenTtlS });
  }

  async function lookup(tokenHash: string, nowMs: number): Promise<CachedToken> {
    const row = await store.findAccessToken(db, tokenHash);
    const entry = cacheEntry(row, nowMs, idleMs);
    (row === undefined ? unknownTokens : cache).set(tokenHash, entry);
    await touchSessionOf(db, entry, nowMs);
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
    if (!entry.context || nowMs >= entry.validUntilMs) return err('token_invalid');
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
    /** Called when this process ends or changes dashboard sessions or users: their tokens are judged again at once here. */
    forgetTokens: () => cache.clear(),
  };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
