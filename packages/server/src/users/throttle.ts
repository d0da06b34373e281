import type { AddressFailureLimit } from '../limits/address.ts';
import type { WindowCounters } from '../limits/counters.ts';
import { ApiError } from '../shared/errors.ts';
import { keyedHash } from '../shared/secrets.ts';

/** Failed sign-ins (password, second factor, current password) per (email, address) per window. */
export const SIGN_IN_FAILURE_LIMIT = 5;
export const SIGN_IN_WINDOW_MS = 15 * 60_000;

const tooMany = (retryAfterS: number) =>
  new ApiError('rate_limited', `Too many failed sign-in attempts from this address; retry in ${retryAfterS} s.`, {
    headers: { 'retry-after': String(retryAfterS) },
  });

/**
 * Sign-in throttling without lock-out: failures count per (email, address), so a stranger
 * guessing from elsewhere never blocks the account's owner, plus the per-address limit shared
 * with /oauth/token and /v1 (PURSE_ADDRESS_FAILURE_LIMIT). Nothing counts per account alone.
 */
export function signInThrottle(deps: { counters: WindowCounters; addressLimit: AddressFailureLimit; hashKey: Buffer }) {
  const { counters, addressLimit } = deps;
  // A digest of the email: bounded keys, and no address book in Redis.
  const key = (email: string, address: string) => `signin-fail:${keyedHash(deps.hashKey, email.toLowerCase())}|${address}`;
  const waitOf = (resetMs: number) => Math.max(1, Math.ceil(resetMs / 1000));
  return {
    /** Refuses (429) before any work when the pair or the address is over its limit. */
    async check(email: string, address: string): Promise<void> {
      const [pair, addressWaitS] = await Promise.all([
        counters.peek(key(email, address), SIGN_IN_WINDOW_MS),
        addressLimit.retryAfterS(address),
      ]);
      if (addressWaitS > 0) throw tooMany(addressWaitS);
      if (pair.count >= SIGN_IN_FAILURE_LIMIT) throw tooMany(waitOf(pair.resetMs));
    },
    /** Counts a failure; the 429 to answer instead of `refusal` when it took the pair or address over. */
    async failed(email: string, address: string, refusal: ApiError): Promise<ApiError> {
      const [pair, addressWaitS] = await Promise.all([counters.hit(key(email, address), SIGN_IN_WINDOW_MS), addressLimit.failed(address)]);
      if (addressWaitS > 0) return tooMany(addressWaitS);
      return pair.count > SIGN_IN_FAILURE_LIMIT ? tooMany(waitOf(pair.resetMs)) : refusal;
    },
    async succeeded(email: string, address: string): Promise<void> {
      await counters.clear(key(email, address), SIGN_IN_WINDOW_MS);
    },
  };
}

export type SignInThrottle = ReturnType<typeof signInThrottle>;
