import { setTimeout as sleep } from 'node:timers/promises';
import type { ProviderMethod } from '../connectors/connector.ts';
import type { Db } from '../db/db.ts';
import type { Clock } from '../shared/clock.ts';
import { LEASE_MS, type Settlement } from './settlement.ts';
import { claimLease } from './store/complete.ts';
import { findChargeById } from './store/read.ts';
import type { ChargeRow } from './view.ts';

/** How often a retry looks again at a charge another attempt holds. */
const POLL_MS = 100;

/**
 * A retry (same reference, same body) of a card or mobile-money charge that was claimed but not
 * yet sent to the provider (provider_state not_started). The attempt holding it is either still
 * on its way to the provider, or dead: its process died, or it answered 503 because its claim's
 * COMMIT never answered (a failover), in between. The retry carries the card or the phone, so it
 * can send it itself, but never while the holder may still be sending (one provider call per
 * charge): it takes the lease as soon as it is free (released, or expired: at most LEASE_MS) and
 * resumes (ask the provider first, then send), or returns the charge as soon as the holder has
 * moved it on. Never a `pending` answer that nobody will act on: a card left so could only fail
 * processing_error after two minutes.
 */
export async function resumeClaimed(
  deps: { db: Db; clock: Clock; settlement: Settlement },
  charge: ChargeRow,
  method: ProviderMethod,
): Promise<ChargeRow> {
  const { db, clock, settlement } = deps;
  const deadline = Date.now() + LEASE_MS + POLL_MS;
  let current = charge;
  for (;;) {
    const now = clock.now();
    const claimed = await claimLease(db, current.id, now, new Date(now.getTime() + LEASE_MS));
    if (claimed) return settlement.resume(claimed, method);
    current = (await findChargeById(db, current.id)) ?? current;
    if (current.completed_at !== null || current.provider_state !== 'not_started' || Date.now() > deadline) return current;
    await sleep(POLL_MS);
  }
}
