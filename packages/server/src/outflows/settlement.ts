import type { FastifyBaseLogger } from 'fastify';
import { findChargeById } from '../charges/store/read.ts';
import {
  asMovementStatus,
  type OutboundRequest,
  type ProviderOutcome,
  type ProviderStatusOutcome,
  type StatusOutcome,
} from '../connectors/connector.ts';
import type { ConnectorRegistry } from '../connectors/registry.ts';
import type { Db } from '../db/db.ts';
import { lateOutcome } from '../events/late-outcome.ts';
import { eventPayload } from '../events/view.ts';
import type { Clock } from '../shared/clock.ts';
import { FAILURE_MESSAGES } from '../shared/failures.ts';
import { present } from '../shared/invariant.ts';
import * as store from './store/complete.ts';
import { findOutflowById } from './store/read.ts';
import { reverseFailedRefund } from './store/reversal.ts';
import { type OutflowRow, outflowView } from './view.ts';

type FinalOutcome = Extract<ProviderOutcome, { status: 'succeeded' | 'failed' }>;

/**
 * The request the provider gets, rebuilt from the stored outflow (nothing secret is needed to
 * send money out) and, for a card refund, the provider's reference of the payment it refunds.
 */
export function outboundRequest(outflow: OutflowRow, paymentProviderReference: string | null): OutboundRequest {
  const destination = outflow.destination as { type: string; mobile_money?: { phone_number: string; provider: string | null } };
  const base = { idempotencyKey: outflow.id, kind: outflow.kind, amountMinor: BigInt(outflow.amount), currency: outflow.currency };
  if (outflow.destination_type === 'mobile_money') {
    const mm = present(destination.mobile_money, 'mobile money destination');
    return { ...base, destination: { type: 'mobile_money', phoneNumber: mm.phone_number, provider: mm.provider } };
  }
  // A card refund goes back through the payment it refunds: the provider knows the card by that charge.
  return { ...base, destination: { type: 'card', paymentKey: present(outflow.payment_id, 'refunded payment'), paymentProviderReference } };
}

/**
 * A contradiction of a final state is kept, never applied, with one exception: a refund that
 * succeeded and then failed (the payer never got the money) gives it back to the merchant in the
 * statement that keeps the late outcome (store/reversal.ts), exactly once.
 */
async function keepLateOutcome(
  deps: { db: Db; log: FastifyBaseLogger },
  existing: OutflowRow,
  outcome: FinalOutcome,
  now: Date,
): Promise<void> {
  const { db, log } = deps;
  if (existing.kind !== 'refund' || existing.status !== 'succeeded' || outcome.status !== 'failed') {
    await store.recordLateOutcome(db, existing, outcome, now);
    return;
  }
  const late = lateOutcome(outcome, now);
  const shown: OutflowRow = { ...existing, late_outcome: late, updated_at: now };
  const reversed = await reverseFailedRefund(db, { refund: existing, outcome: late, now, payload: eventPayload(outflowView(shown)) });
  if (reversed)
    log.warn({ refund_id: existing.id, amount: existing.amount }, 'refund failed after it succeeded; its amount is back in the balance');
}

/**
 * Settles refunds and payouts that go through a provider: the same rules as charges
 * (charges/settlement.ts): the request is stored before the call, the call happens outside any
 * transaction under a deadline, an unknown outcome stays pending and is asked for later, and a
 * final state never changes (a contradiction is kept as a late outcome).
 */
export function createOutflowSettlement(deps: {
  db: Db;
  clock: Clock;
  registry: ConnectorRegistry;
  log: FastifyBaseLogger;
  providerTimeoutMs: number;
}) {
  const { db, clock, registry, log, providerTimeoutMs } = deps;
  const deadline = () => AbortSignal.timeout(providerTimeoutMs);

  async function applyOutcome(outflow: OutflowRow, outcome: FinalOutcome): Promise<OutflowRow> {
    const now = clock.now();
    const failureCode = outcome.status === 'failed' ? outcome.failureCode : null;
    const failureMessage = failureCode ? FAILURE_MESSAGES[failureCode] : null;
    const expected: OutflowRow = {
      ...outflow,
      status: outcome.status,
      failure_code: failureCode,
      failure_message: failureMessage,
      provider_reference: outcome.providerReference ?? outflow.provider_reference,
      completed_at: now,
      updated_at: now,
      lease_until: null,
      next_check_at: null,
    };
    const updated = await store.completeOutflow(db, {
      outflow,
      status: outcome.status,
      failureCode,
      failureMessage,
      providerReference: outcome.providerReference,
      now,
      payload: eventPayload(outflowView(expected)),
    });
    if (updated) return updated;
    const existing = present(await findOutflowById(db, outflow.id), 'outflow');
    if (existing.status !== outcome.status || existing.failure_code !== failureCode) {
      log.warn({ outflow_id: outflow.id, status: existing.status, late: outcome.status }, 'provider outcome after a final state; kept');
      await keepLateOutcome({ db, log }, existing, outcome, now);
    }
    return existing;
  }

  async function record(outflow: OutflowRow, outcome: ProviderOutcome): Promise<OutflowRow> {
    if (outcome.status !== 'pending') return applyOutcome(outflow, outcome);
    const now = clock.now();
    const updated = await store.markInitiated(
      db,
      outflow.id,
      outcome.providerReference,
      new Date(now.getTime() + outcome.checkAfterMs),
      now,
    );
    return updated ?? present(await findOutflowById(db, outflow.id), 'outflow');
  }

  /**
   * Sends the stored request; a timeout or error leaves it pending for the worker to ask about.
   * A card refund needs its payment's provider reference: the create path passes the payment it
   * loaded, the worker reads it again.
   */
  async function send(outflow: OutflowRow, payment?: { provider_reference: string | null }): Promise<OutflowRow> {
    const connector = registry.get(outflow.provider);
    if (!connector) return applyOutcome(outflow, { status: 'failed', failureCode: 'provider_error', providerReference: null });
    try {
      const refunded =
        outflow.destination_type !== 'card' ? undefined : (payment ?? (await findChargeById(db, present(outflow.payment_id, 'payment'))));
      return await record(outflow, await connector.sendOut(outboundRequest(outflow, refunded?.provider_reference ?? null), deadline()));
    } catch (error) {
      log.warn({ err: error, outflow_id: outflow.id }, 'provider call failed; the worker will ask for the status');
      await store.releaseOutflow(db, outflow.id, new Date(clock.now().getTime() + 2_000));
      return present(await findOutflowById(db, outflow.id), 'outflow');
    }
  }

  /**
   * The worker's turn: ask first; send only when the provider never saw the request (sending
   * again is safe then, and the provider's idempotency on our key covers a race with a late
   * first request).
   */
  async function resume(outflow: OutflowRow): Promise<OutflowRow> {
    const connector = registry.get(outflow.provider);
    if (!connector) return applyOutcome(outflow, { status: 'failed', failureCode: 'provider_error', providerReference: null });
    let status: ProviderStatusOutcome;
    try {
      status = asMovementStatus(await providerStatus(outflow));
    } catch (error) {
      log.warn({ err: error, outflow_id: outflow.id }, 'provider status failed; will retry');
      await store.releaseOutflow(db, outflow.id, new Date(clock.now().getTime() + 5_000));
      return outflow;
    }
    if (status.status === 'not_found') return send(outflow);
    return record(outflow, status);
  }

  async function providerStatus(outflow: OutflowRow): Promise<StatusOutcome> {
    const connector = present(registry.get(outflow.provider), 'connector of the outflow');
    return connector.getStatus({ idempotencyKey: outflow.id, providerReference: outflow.provider_reference }, deadline());
  }

  return { applyOutcome, send, resume, providerStatus };
}

export type OutflowSettlement = ReturnType<typeof createOutflowSettlement>;
