import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/db.ts';
import type { Clock } from '../shared/clock.ts';
import { createPoller } from '../shared/poller.ts';
import type { CheckoutService } from './service.ts';
import { findSessionsToSync } from './store.ts';

const BATCH = 50;

/**
 * Completes, counts and expires checkout sessions from their payments' server-side state, so the
 * merchant's webhook hears of it even when the payer closed the page. Every change is a
 * conditional update (service.sync), so several processes may run it at once.
 */
export function createCheckoutWorker(deps: {
  db: Db;
  clock: Clock;
  checkout: CheckoutService;
  log: FastifyBaseLogger;
  intervalMs: number;
}) {
  const { db, clock, checkout, log } = deps;

  async function runOnce(): Promise<number> {
    const due = await findSessionsToSync(db, clock.now(), BATCH);
    let changed = 0;
    for (const session of due) {
      try {
        const after = await checkout.sync(session);
        if (after.status !== session.status || after.failed_attempts !== session.failed_attempts) changed++;
      } catch (error) {
        log.error({ err: error, checkout_session_id: session.id }, 'checkout session sync failed; it will be retried');
      }
    }
    // A due session that could not change (its payment still under way) must not spin the poller.
    return changed === due.length ? due.length : 0;
  }

  return createPoller({ name: 'checkout', runOnce, batch: BATCH, intervalMs: deps.intervalMs, log });
}

export type CheckoutWorker = ReturnType<typeof createCheckoutWorker>;
