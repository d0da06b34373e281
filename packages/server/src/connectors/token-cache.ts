/**
 * The Bearer tokens of providers' APIs, for every connector alike (MTN per product, M-Pesa, a card
 * acquirer). Asking the issuer costs a round trip and providers limit how often it may be asked,
 * so a token is reused until shortly before its end, and callers that find none wait on one
 * request together instead of each sending their own.
 */
import { ProviderHttpError } from './provider-error.ts';

/** A token as its issuer gave it. */
export interface IssuedToken {
  readonly value: string;
  /** How long it lives from the moment it was issued, as the issuer said. */
  readonly lifetimeMs: number;
}

/**
 * How long before its end a token is renewed: a call sent with a token about to expire could
 * reach the provider after it did. Never more than half the token's life, so a short-lived token
 * is still used.
 */
export const DEFAULT_TOKEN_MARGIN_MS = 60_000;

export interface TokenCacheOptions<K extends string> {
  /** Asks the issuer for a new token for `key` (a product, an account; one key when there is one token). */
  issue(key: K, signal: AbortSignal): Promise<IssuedToken>;
  marginMs?: number;
  nowMs?: () => number;
}

export interface TokenCache<K extends string> {
  /** The token of `key`: the cached one while it is fresh, else a new one (one request shared by concurrent callers). */
  token(key: K, signal: AbortSignal): Promise<string>;
  /**
   * `request` sent with the token of `key`. A 401 means the provider no longer takes that token
   * (revoked, or expired before its time): it is dropped and the request is sent once more with a
   * new one, and that second answer is returned whatever it is, so a provider that refuses every
   * token costs one refresh per call, never a loop. Only for APIs that refuse a request before
   * acting on it when its token is bad: the second send must not be a repeat of something done.
   */
  send(key: K, signal: AbortSignal, request: (token: string) => Promise<Response>): Promise<Response>;
}

interface Entry {
  value: Promise<string>;
  /** Infinite while the issuer has not answered: every caller meanwhile waits on the same request. */
  renewAt: number;
}

export function createTokenCache<K extends string>(options: TokenCacheOptions<K>): TokenCache<K> {
  const marginMs = options.marginMs ?? DEFAULT_TOKEN_MARGIN_MS;
  const nowMs = options.nowMs ?? Date.now;
  const entries = new Map<K, Entry>();

  function token(key: K, signal: AbortSignal): Promise<string> {
    const cached = entries.get(key);
    if (cached && nowMs() < cached.renewAt) return cached.value;
    const entry: Entry = { value: Promise.resolve(''), renewAt: Number.POSITIVE_INFINITY };
    entry.value = options.issue(key, signal).then(
      (issued) => {
        entry.renewAt = nowMs() + issued.lifetimeMs - Math.min(marginMs, issued.lifetimeMs / 2);
        return issued.value;
      },
      (error: unknown) => {
        // A failed request is not cached: the next caller asks again.
        if (entries.get(key) === entry) entries.delete(key);
        throw error;
      },
    );
    entries.set(key, entry);
    return entry.value;
  }

  /**
   * Drops `refused` if it is still the token of `key`. Callers refused the same token at once each
   * get here, and only the first may drop it: a later one finds the refresh the first started and
   * keeps it. The map is read again after the wait so that this holds whatever order the waits
   * end in, rather than by the way the microtasks happen to be queued.
   */
  async function forget(key: K, refused: string): Promise<void> {
    const cached = entries.get(key);
    if (!cached) return;
    const value = await cached.value.catch(() => null);
    if (value === refused && entries.get(key) === cached) entries.delete(key);
  }

  async function send(key: K, signal: AbortSignal, request: (token: string) => Promise<Response>): Promise<Response> {
    const bearer = await token(key, signal);
    const first = await request(bearer);
    if (first.status !== 401) return first;
    await first.body?.cancel();
    await forget(key, bearer);
    return request(await token(key, signal));
  }

  return { token, send };
}

/** What an OAuth 2.0 token endpoint answers (RFC 6749, section 5.1), as far as Purse reads it. */
interface TokenAnswer {
  access_token?: unknown;
  expires_in?: unknown;
}

/**
 * The token of an OAuth 2.0 client-credentials answer. `expires_in` is read as a number or a
 * numeric string (Daraja sends "3599"); absent or unreadable, the provider's documented lifetime
 * stands in. Anything but a 200 with an access_token is a ProviderHttpError (`secrets`: what the
 * request carried, never to be repeated by the error).
 */
export async function accessTokenOf(
  res: Response,
  request: { provider: string; operation: string; fallbackLifetimeS: number; secrets: readonly string[] },
): Promise<IssuedToken> {
  const { provider, operation, secrets } = request;
  if (res.status !== 200) throw await ProviderHttpError.of(res, { provider, operation, secrets });
  const body = ((await res.json()) ?? {}) as TokenAnswer;
  if (typeof body.access_token !== 'string') {
    const problem = 'answer has no access_token';
    throw new ProviderHttpError({ provider, operation, status: res.status, problem, body: JSON.stringify(body), secrets });
  }
  const stated = typeof body.expires_in === 'number' || (typeof body.expires_in === 'string' && body.expires_in.trim() !== '');
  const lifetimeS = stated ? Number(body.expires_in) : Number.NaN;
  const lifetimeMs = (Number.isFinite(lifetimeS) && lifetimeS > 0 ? lifetimeS : request.fallbackLifetimeS) * 1000;
  return { value: body.access_token, lifetimeMs };
}
