import type { FastifyBaseLogger } from 'fastify';

/**
 * Runs `runOnce` forever: again at once while it returns a full batch, otherwise after
 * `intervalMs`, and four times slower after an error (a database outage). `stop` waits for
 * the tick in progress, so shutdown never cuts a batch in half.
 */
export function createPoller(options: {
  name: string;
  runOnce: () => Promise<number>;
  batch: number;
  intervalMs: number;
  log: FastifyBaseLogger;
}) {
  const { name, runOnce, batch, intervalMs, log } = options;
  let timer: NodeJS.Timeout | null = null;
  let current: Promise<unknown> | null = null;
  let stopped = true;

  function schedule(delayMs: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      current = runOnce()
        .then((count) => schedule(count >= batch ? 0 : intervalMs))
        .catch((error: unknown) => {
          log.warn({ err: error, worker: name }, 'worker tick failed');
          schedule(intervalMs * 4);
        });
    }, delayMs);
  }

  return {
    runOnce,
    start(): void {
      if (!stopped) return;
      stopped = false;
      schedule(0);
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
    },
  };
}
