import type { WindowCounters } from './counters.ts';

const MINUTE_MS = 60_000;

/**
 * Failed and unauthenticated requests per source address (bad client secrets at /oauth/token,
 * missing or invalid Bearer tokens on /v1), counted per minute. Checked before any database work,
 * so a guesser costs a counter lookup and nothing more once over the limit. `limit` 0: off.
 */
export function createAddressFailureLimit(counters: WindowCounters, limit: number) {
  const key = (address: string) => `addr-fail:${address}`;
  return {
    limit,
    /** Seconds to wait when the address is over its limit; 0 when it may go on. */
    async retryAfterS(address: string): Promise<number> {
      if (limit === 0) return 0;
      const { count, resetMs } = await counters.peek(key(address), MINUTE_MS);
      return count >= limit ? Math.max(1, Math.ceil(resetMs / 1000)) : 0;
    },
    /** Records a failure; the seconds to wait when it took the address over the limit, else 0. */
    async failed(address: string): Promise<number> {
      if (limit === 0) return 0;
      const { count, resetMs } = await counters.hit(key(address), MINUTE_MS);
      return count > limit ? Math.max(1, Math.ceil(resetMs / 1000)) : 0;
    },
  };
}

export type AddressFailureLimit = ReturnType<typeof createAddressFailureLimit>;
