import type { FastifyReply, FastifyRequest } from 'fastify';
import type { WindowCounters } from '../limits/counters.ts';
import { ApiError } from '../shared/errors.ts';

/**
 * Per-merchant fixed one-second window, counted in `counters` (Redis when PURSE_REDIS_URL is
 * set, so shared by every process and host; else per process). `limitPerS` 0 turns it off.
 * Runs after authentication; answers the IETF RateLimit-* headers on every merchant response.
 */
export function merchantRateLimit(limitPerS: number, counters: WindowCounters) {
  return async function rateLimit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (limitPerS === 0) return;
    const { count, resetMs } = await counters.hit(`rate:${request.auth.merchantId}`, 1000);
    const remaining = Math.max(0, limitPerS - count);
    const resetS = String(Math.max(1, Math.ceil(resetMs / 1000)));
    void reply.headers({ 'ratelimit-limit': String(limitPerS), 'ratelimit-remaining': String(remaining), 'ratelimit-reset': resetS });
    if (count > limitPerS) {
      throw new ApiError('rate_limited', `Too many requests: the limit is ${limitPerS} per second.`, {
        headers: { 'retry-after': resetS },
      });
    }
  };
}
