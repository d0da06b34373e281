// What the group-commit reference servers (bench/group-commit-server.ts, bench/minimal-server.ts)
// share: the queue that merges concurrent payments into batches, and their shutdown. The
// baseline (bench/baseline-server.ts) shares only the shutdown.
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { Body } from './payment-view.ts';

export type Answer = { status: number; body: unknown };

/** A queued payment: answered once its batch (or, after a failed batch, its own retry) has run. */
export interface Pending {
  body: Body;
  walletId: string;
  amount: bigint;
  resolve: (answer: Answer) => void;
}

/**
 * Merging: `submit` queues a payment; a flush takes up to `batch` queued payments (never two on
 * one wallet: a later payment on a wallet already in the batch waits for the next one) and gives
 * them to `run`, which answers each. Up to `flushes` flushes run at once; payments arriving while
 * they are all in flight wait for the next batch. If `run` fails as a whole (a reference already
 * taken, a deadlock), its payments run again one by one, so the error reaches only the culprit
 * (a taken reference: 409).
 */
export function mergingQueue(options: { batch: number; flushes: number; run: (batch: Pending[]) => Promise<void> }) {
  const queue: Pending[] = [];
  let inFlight = 0;

  function takeBatch(): Pending[] {
    const batch: Pending[] = [];
    const taken = new Set<string>();
    const rest: Pending[] = [];
    for (const p of queue) {
      if (batch.length < options.batch && !taken.has(p.walletId)) {
        taken.add(p.walletId);
        batch.push(p);
      } else rest.push(p);
    }
    queue.length = 0;
    queue.push(...rest);
    return batch;
  }

  async function flush(batch: Pending[]): Promise<void> {
    try {
      await options.run(batch);
    } catch (error) {
      if (batch.length > 1) {
        for (const p of batch) await flush([p]);
        return;
      }
      const taken = (error as { code?: string }).code === '23505';
      batch[0]!.resolve(taken ? { status: 409, body: { error: 'reference taken' } } : { status: 500, body: { error: String(error) } });
    }
  }

  /** Starts flushes while there is work and a free slot; each flush, once done, pumps again. */
  function pump(): void {
    while (inFlight < options.flushes && queue.length > 0) {
      const batch = takeBatch();
      inFlight++;
      void flush(batch).finally(() => {
        inFlight--;
        pump();
      });
    }
  }

  return {
    /** The payment's answer, once its batch has run. */
    submit(p: Omit<Pending, 'resolve'>): Promise<Answer> {
      return new Promise<Answer>((resolve) => {
        queue.push({ ...p, resolve });
        pump();
      });
    },
    /** Nothing queued and no flush in flight. */
    idle: () => queue.length === 0 && inFlight === 0,
  };
}

/** SIGTERM and SIGINT close the server, then the pool, then exit. */
export function closeOnSignals(app: FastifyInstance, pool: pg.Pool): void {
  const shutdown = async () => {
    await app.close();
    await pool.end();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown());
  process.on('SIGINT', () => void shutdown());
}
