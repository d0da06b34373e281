import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/db.ts';
import type { Clock } from '../shared/clock.ts';
import { createPoller } from '../shared/poller.ts';
import type { OutflowSettlement } from './settlement.ts';
import * as store from './store/complete.ts';

const BATCH = 50;
/** How long the worker may hold a pending outflow while it talks to the provider. */
export const OUTFLOW_LEASE_MS = 15_000;

/** Settles pending refunds and payouts: asks the provider, sends what it never saw. State lives in the database. */
export function createOutflowWorker(deps: {
  db: Db;
  clock: Clock;
  settlement: OutflowSettlement;
  log: FastifyBaseLogger;
  intervalMs: number;
}) {
  const { db, clock, settlement, log, intervalMs } = deps;

  async function runOnce(): Promise<number> {
    const now = clock.now();
    const due = await store.claimDueOutflows(db, now, new Date(now.getTime() + OUTFLOW_LEASE_MS), BATCH);
    await Promise.all(
      due.map((outflow) =>
        settlement.resume(outflow).catch((error: unknown) => {
          log.error({ err: error, outflow_id: outflow.id }, 'settlement of a due outflow failed; it will be retried');
        }),
      ),
    );
    return due.length;
  }

  return createPoller({ name: 'outflows', runOnce, batch: BATCH, intervalMs, log });
}

export type OutflowWorker = ReturnType<typeof createOutflowWorker>;
