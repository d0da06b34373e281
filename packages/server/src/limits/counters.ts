import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';

/**
 * Fixed-window counters behind every limit (the per-merchant rate, the token-failure throttle,
 * the per-address limit on failed requests). Windows are aligned to the epoch, so every process
 * and host counting in the same store agrees on where a window starts.
 */
export interface WindowCount {
  count: number;
  /** Milliseconds until the window ends (and the count starts again from zero). */
  resetMs: number;
}

export interface WindowCounters {
  /** Adds one to `key` in the current window of `windowMs`; the count after. */
  hit(key: string, windowMs: number): Promise<WindowCount>;
  /** The count so far in the current window, without adding. */
  peek(key: string, windowMs: number): Promise<WindowCount>;
  /** Forgets `key`'s current window (a success after failures). */
  clear(key: string, windowMs: number): Promise<void>;
  /** Where the counts live: 'redis' when shared, 'process' otherwise (and why). */
  readonly mode: () => { shared: boolean; detail: string };
  close(): Promise<void>;
}

function windowOf(nowMs: number, windowMs: number): { index: number; resetMs: number } {
  const index = Math.floor(nowMs / windowMs);
  return { index, resetMs: (index + 1) * windowMs - nowMs };
}

/** At most this many keys per process; the least recently used go first, never all at once. */
const LOCAL_MAX_KEYS = 100_000;

/** Counts in this process only: bounded, and an idle key expires with its window. */
export function localCounters(nowMs: () => number = Date.now): WindowCounters {
  const counts = new LRUCache<string, number>({ max: LOCAL_MAX_KEYS, ttlAutopurge: false });
  const slot = (key: string, windowMs: number) => {
    const { index, resetMs } = windowOf(nowMs(), windowMs);
    return { slotKey: `${key}|${windowMs}|${index}`, resetMs };
  };
  return {
    async hit(key, windowMs) {
      const { slotKey, resetMs } = slot(key, windowMs);
      const count = (counts.get(slotKey) ?? 0) + 1;
      counts.set(slotKey, count, { ttl: resetMs });
      return { count, resetMs };
    },
    async peek(key, windowMs) {
      const { slotKey, resetMs } = slot(key, windowMs);
      return { count: counts.get(slotKey) ?? 0, resetMs };
    },
    async clear(key, windowMs) {
      counts.delete(slot(key, windowMs).slotKey);
    },
    mode: () => ({ shared: false, detail: 'per process' }),
    close: async () => {},
  };
}

/**
 * Counts in Redis, shared by every process and host that points at it (PURSE_REDIS_URL). When
 * Redis does not answer within `timeoutMs`, this process counts alone until it answers again: a
 * limit that is briefly per process is better than a service that stops on a cache outage.
 */
export function redisCounters(options: {
  url: string;
  log: Logger;
  timeoutMs?: number;
  nowMs?: () => number;
  prefix?: string;
}): WindowCounters {
  const { log } = options;
  const nowMs = options.nowMs ?? Date.now;
  const prefix = options.prefix ?? 'purse:limit:';
  const local = localCounters(nowMs);
  const redis = new Redis(options.url, {
    // Fail fast instead of queueing while disconnected: the local counters answer meanwhile.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.timeoutMs ?? 200,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    lazyConnect: false,
  });
  let degraded: string | null = 'connecting';
  const fallBack = (error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    if (degraded === null) log.warn({ reason }, 'Redis unreachable: limits are counted per process until it answers');
    degraded = reason;
  };
  // ioredis reports connection problems as events; without a listener they would be thrown.
  redis.on('error', (error) => fallBack(error));
  redis.on('ready', () => {
    if (degraded !== null && degraded !== 'connecting') log.info('Redis answers again: limits are shared');
    degraded = null;
  });

  const keyOf = (key: string, windowMs: number) => {
    const { index, resetMs } = windowOf(nowMs(), windowMs);
    return { redisKey: `${prefix}${key}|${windowMs}|${index}`, resetMs };
  };

  return {
    async hit(key, windowMs) {
      if (degraded !== null) return local.hit(key, windowMs);
      const { redisKey, resetMs } = keyOf(key, windowMs);
      try {
        const results = await redis.multi().incr(redisKey).pexpire(redisKey, windowMs).exec();
        const count = Number(results?.[0]?.[1]);
        if (!Number.isSafeInteger(count)) throw new Error('Redis answered INCR without a count');
        return { count, resetMs };
      } catch (error) {
        fallBack(error);
        return local.hit(key, windowMs);
      }
    },
    async peek(key, windowMs) {
      if (degraded !== null) return local.peek(key, windowMs);
      const { redisKey, resetMs } = keyOf(key, windowMs);
      try {
        const value = await redis.get(redisKey);
        return { count: value === null ? 0 : Number(value), resetMs };
      } catch (error) {
        fallBack(error);
        return local.peek(key, windowMs);
      }
    },
    async clear(key, windowMs) {
      await local.clear(key, windowMs);
      if (degraded !== null) return;
      try {
        await redis.del(keyOf(key, windowMs).redisKey);
      } catch (error) {
        fallBack(error);
      }
    },
    mode: () =>
      degraded === null
        ? { shared: true, detail: 'shared through Redis' }
        : { shared: false, detail: `per process (Redis unreachable: ${degraded})` },
    async close() {
      redis.disconnect();
    },
  };
}
