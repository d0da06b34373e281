import type { FastifyBaseLogger } from 'fastify';
import type {
  AuthorisationOutcome,
  CardOutcome,
  Connector,
  ProviderMethod,
  ProviderOutcome,
  StatusOutcome,
} from '../connectors/connector.ts';
import type { ConnectorRegistry } from '../connectors/registry.ts';
import type { Db } from '../db/db.ts';
import type { GroupCommit } from '../db/group-commit.ts';
import { eventType } from '../events/store.ts';
import { eventPayload } from '../events/view.ts';
import type { Clock } from '../shared/clock.ts';
import { FAILURE_MESSAGES, type FailureCode } from '../shared/failures.ts';
import { present } from '../shared/invariant.ts';
import type { AuthenticationUrls } from './authentication.ts';
import { createCardSettlement } from './card-settlement.ts';
import * as store from './store/complete.ts';
import { chargeLaneKey } from './store/create.ts';
import { findChargeById } from './store/read.ts';
import { type ChargeRow, chargeView } from './view.ts';

/** How long a request or worker may hold a pending charge while it talks to the provider. */
export const LEASE_MS = 15_000;
/** A card charge the provider never saw can be resumed by a retry (which carries the card) this long. */
export const CARD_RESUME_WINDOW_MS = 120_000;

export type FinalOutcome = Extract<ProviderOutcome, { status: 'succeeded' | 'failed' }> | Extract<CardOutcome, { status: 'canceled' }>;

export const failed = (failureCode: FailureCode, providerReference: string | null = null): FinalOutcome => ({
  status: 'failed',
  failureCode,
  providerReference,
});

/**
 * Not final → succeeded | failed | canceled, with its ledger posting (what was received) and
 * event, in one statement. A final
 * state never changes: an outcome that contradicts it is shown as late_outcome and announced by
 * its own event, so the merchant can refund or chase.
 */
async function applyFinal(
  deps: { db: Db; groupCommit: GroupCommit; clock: Clock; log: FastifyBaseLogger },
  charge: ChargeRow,
  outcome: FinalOutcome,
): Promise<ChargeRow> {
  const { db, clock, log } = deps;
  const now = clock.now();
  const failureCode = outcome.status === 'failed' ? outcome.failureCode : null;
  const failureMessage = failureCode ? FAILURE_MESSAGES[failureCode] : null;
  const received = outcome.status === 'succeeded' ? receivedOf(charge, outcome) : null;
  const cancellationReason = outcome.status === 'canceled' ? outcome.reason : null;
  const threeDSecure = outcome.status === 'canceled' ? null : (outcome.threeDSecure ?? null);
  const expected = finalRow(charge, outcome, { failureCode, received, cancellationReason, threeDSecure, now });
  // A top-up credits its wallet: the wallet's lane. A payment credits the merchant's funds on its lane's shard.
  const lane = deps.groupCommit.lane(charge.kind === 'topup' ? present(charge.wallet_id, 'top-up wallet') : chargeLaneKey(charge));
  const updated = await store.completeCharge(lane, {
    charge,
    status: outcome.status,
    failureCode,
    failureMessage,
    providerReference: outcome.providerReference,
    receivedMinor: received ?? 0n,
    cancellationReason,
    threeDSecure,
    now,
    eventType: completionEvent(charge, outcome.status),
    payload: eventPayload(chargeView(expected)),
  });
  if (updated) return updated;
  const existing = present(await findChargeById(db, charge.id), 'charge');
  // Canceled and failed are both "no money": a hold the acquirer let expire after a failure here is not news.
  if (outcome.status !== 'canceled' && (existing.status !== outcome.status || existing.failure_code !== failureCode)) {
    log.warn(
      { charge_id: charge.id, status: existing.status, late: outcome.status },
      'provider outcome after a final state; shown as late_outcome, never applied',
    );
    await store.recordLateOutcome(db, existing, outcome, now);
  }
  return existing;
}

export function createSettlement(deps: {
  db: Db;
  groupCommit: GroupCommit;
  clock: Clock;
  registry: ConnectorRegistry;
  log: FastifyBaseLogger;
  providerTimeoutMs: number;
  authentication: AuthenticationUrls;
}) {
  const { db, clock, registry, log, providerTimeoutMs } = deps;
  const cards = createCardSettlement({
    db,
    clock,
    log,
    authentication: deps.authentication,
    deadline: () => deadline(),
    apply: (charge, outcome) => applyOutcome(charge, outcome),
    record: (charge, outcome) => recordProviderOutcome(charge, outcome),
  });

  const applyOutcome = (charge: ChargeRow, outcome: FinalOutcome) => applyFinal(deps, charge, outcome);

  /**
   * Stores what the provider said: a final outcome settles; pending waits for the worker; a card
   * state (a challenge, a hold) is entered with its event.
   */
  async function recordProviderOutcome(charge: ChargeRow, outcome: AuthorisationOutcome): Promise<ChargeRow> {
    if (outcome.status === 'requires_action' || outcome.status === 'requires_capture') return cards.enterState(charge, outcome);
    if (outcome.status !== 'pending') return applyOutcome(charge, outcome);
    const now = clock.now();
    let nextCheck = now.getTime() + outcome.checkAfterMs;
    if (charge.expires_at) nextCheck = Math.min(nextCheck, charge.expires_at.getTime());
    const updated = await store.markInitiated(db, charge.id, outcome.providerReference, new Date(nextCheck), now);
    return updated ?? present(await findChargeById(db, charge.id), 'charge');
  }

  /**
   * The deadline of one provider call: the signal aborts the call itself (its socket, its wait),
   * not only our wait for it, so an abandoned call leaves nothing running.
   */
  const deadline = () => AbortSignal.timeout(providerTimeoutMs);

  const askStatus = (connector: Connector, charge: ChargeRow): Promise<StatusOutcome> =>
    connector.getStatus({ idempotencyKey: charge.id, providerReference: charge.provider_reference }, deadline());

  /** Calls the provider outside any transaction. A timeout or error leaves the charge pending. */
  async function initiateWithProvider(charge: ChargeRow, method: ProviderMethod): Promise<ChargeRow> {
    const connector = registry.get(charge.provider);
    if (!connector) return applyOutcome(charge, failed('provider_error'));
    try {
      const request = {
        idempotencyKey: charge.id,
        kind: charge.kind,
        amountMinor: BigInt(charge.amount),
        currency: charge.currency,
        method,
        expiresAt: charge.expires_at,
        captureMethod: charge.capture_method,
        returnUrl: charge.method_type === 'card' ? deps.authentication.return(charge.id) : null,
      };
      const outcome = await connector.initiate(request, deadline());
      return await recordProviderOutcome(charge, outcome);
    } catch (error) {
      // Unknown outcome: pending, never failed, since the provider may have acted. The worker asks for the status.
      log.warn({ err: error, charge_id: charge.id }, 'provider call failed; the worker will ask for the status');
      await store.releaseCharge(db, charge.id, new Date(clock.now().getTime() + 2_000));
      return present(await findChargeById(db, charge.id), 'charge');
    }
  }

  /**
   * Picks up a charge whose first attempt died, or that is due: ask the provider first, initiate
   * only if it never saw it. A merchant's capture or cancel that did not finish is sent again,
   * with its key; a 3-D Secure challenge past its expiry is cancelled and fails.
   */
  async function resume(charge: ChargeRow, method: ProviderMethod | null): Promise<ChargeRow> {
    const connector = registry.get(charge.provider);
    if (!connector) return applyOutcome(charge, failed('provider_error'));
    if (charge.pending_operation !== null) return cards.resumeOperation(connector, charge);
    const now = clock.now();
    const expired = charge.expires_at !== null && now >= charge.expires_at;
    let status: StatusOutcome;
    try {
      status = await askStatus(connector, charge);
    } catch (error) {
      log.warn({ err: error, charge_id: charge.id }, 'provider status failed; will retry');
      await store.releaseCharge(db, charge.id, new Date(now.getTime() + 5_000));
      return charge;
    }
    if (status.status === 'requires_action' && expired) return cards.abandonChallenge(connector, charge);
    if (status.status === 'pending' && expired) return applyOutcome(charge, failed('expired', status.providerReference));
    if (status.status !== 'not_found') return recordProviderOutcome(charge, status);
    if (expired) return applyOutcome(charge, failed('expired'));
    if (method) return initiateWithProvider(charge, method);
    if (now.getTime() - charge.created_at.getTime() > CARD_RESUME_WINDOW_MS) return applyOutcome(charge, failed('processing_error'));
    await store.releaseCharge(db, charge.id, new Date(now.getTime() + 5_000));
    return charge;
  }

  /** The provider's status of a charge, under the same deadline as every provider call (provider callbacks). */
  async function providerStatus(charge: ChargeRow): Promise<StatusOutcome> {
    return askStatus(present(registry.get(charge.provider), 'connector of the charge'), charge);
  }

  return { applyOutcome, recordProviderOutcome, initiateWithProvider, resume, runOperation: cards.runOperation, providerStatus };
}

export type Settlement = ReturnType<typeof createSettlement>;

/** The charge as it reads once final: what the completion statement writes, for the event's payload. */
function finalRow(
  charge: ChargeRow,
  outcome: FinalOutcome,
  p: {
    failureCode: FailureCode | null;
    received: bigint | null;
    cancellationReason: string | null;
    threeDSecure: string | null;
    now: Date;
  },
): ChargeRow {
  return {
    ...charge,
    status: outcome.status,
    failure_code: p.failureCode,
    failure_message: p.failureCode ? FAILURE_MESSAGES[p.failureCode] : null,
    provider_reference: outcome.providerReference ?? charge.provider_reference,
    amount_received: p.received?.toString() ?? null,
    amount_capturable: null,
    next_action: null,
    pending_operation: null,
    cancellation_reason: p.cancellationReason,
    three_d_secure: p.threeDSecure ?? charge.three_d_secure,
    completed_at: p.now,
    updated_at: p.now,
    lease_until: null,
    next_check_at: null,
  };
}

/** A succeeded charge's received amount: a manual capture's (the acquirer's word, else what was asked), else the whole amount. */
function receivedOf(charge: ChargeRow, outcome: Extract<FinalOutcome, { status: 'succeeded' }>): bigint {
  const amount = BigInt(charge.amount);
  if (charge.capture_method !== 'manual') return amount;
  const asked = charge.operation_amount === null ? amount : BigInt(charge.operation_amount);
  const said = outcome.amountMinor;
  return said !== undefined && said > 0n && said <= amount ? said : asked;
}

/** The event of a final state: a manual payment's capture is payment.captured. */
function completionEvent(charge: ChargeRow, status: FinalOutcome['status']): string {
  if (charge.kind === 'topup') {
    if (status === 'canceled') throw new Error('invariant broken: a top-up cannot be canceled');
    return eventType('topup', status);
  }
  if (status === 'succeeded' && charge.capture_method === 'manual') return eventType('payment', 'captured');
  return eventType('payment', status);
}

/** What the worker can rebuild from a stored charge: mobile money yes, a card never (no number kept). */
export function storedProviderMethod(charge: ChargeRow): ProviderMethod | null {
  if (charge.method_type !== 'mobile_money') return null;
  const mm = (charge.method as { mobile_money: { phone_number: string; provider: string | null } }).mobile_money;
  return { type: 'mobile_money', phoneNumber: mm.phone_number, provider: mm.provider };
}
