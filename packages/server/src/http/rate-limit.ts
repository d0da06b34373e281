import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../shared/errors.ts';

/**
 * Per-merchant fixed one-second window, in process (so per node). `limitPerS` 0 turns it off.
 * Runs after authentication; answers the IETF RateLimit-* headers on every merchant response.
 */
export function merchantRateLimit(limitPerS: number, nowMs: () => number = Date.now) {
  const windows = new Map<string, { second: number; count: number }>();
  return async function rateLimit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (limitPerS === 0) return;
    const now = nowMs();
    const second = Math.floor(now / 1000);
    const key = request.auth.merchantId;
    let window = windows.get(key);
    if (!window || window.second !== second) {
      if (windows.size > 100_000) windows.clear();
      window = { second, count: 0 };
      windows.set(key, window);
    }
    window.count += 1;
    const remaining = Math.max(0, limitPerS - window.count);
    void reply.headers({ 'ratelimit-limit': String(limitPerS), 'ratelimit-remaining': String(remaining), 'ratelimit-reset': '1' });
    if (window.count > limitPerS) {
      throw new ApiError('rate_limited', `Too many requests: the limit is ${limitPerS} per second.`, { headers: { 'retry-after': '1' } });
    }
  };
}
