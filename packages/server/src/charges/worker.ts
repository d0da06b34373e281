import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/db.ts';
import type { Clock } from '../shared/clock.ts';
import { createPoller } from '../shared/poller.ts';
import { LEASE_MS, type Settlement, storedProviderMethod } from './settlement.ts';
import * as store from './store/complete.ts';

const BATCH = 50;

/**
 * Settles what stays pending: polls the provider for due charges, resumes attempts that died,
 * expires mobile money at expires_at. All state is in the database (next_check_at, lease_until),
 * so it survives restarts, and SKIP LOCKED claims let several server processes run it at once.
 */
export function createSettlementWorker(deps: { db: Db; clock: Clock; settlement: Settlement; log: FastifyBaseLogger; intervalMs: number }) {
  const { db, clock, settlement, log, intervalMs } = deps;

  async function runOnce(): Promise<number> {
    const now = clock.now();
    const due = await store.claimDueCharges(db, now, new Date(now.getTime() + LEASE_MS), BATCH);
    await Promise.all(
      due.map((charge) =>
        settlement.resume(charge, storedProviderMethod(charge)).catch((error: unknown) => {
          log.error({ err: error, charge_id: charge.id }, 'settlement of a due charge failed; it will be retried');
        }),
      ),
    );
    return due.length;
  }

  return createPoller({ name: 'settlement', runOnce, batch: BATCH, intervalMs: intervalMs, log });
}

export type SettlementWorker = ReturnType<typeof createSettlementWorker>;
