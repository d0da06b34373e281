import type { FastifyBaseLogger } from 'fastify';
import type { AuthorisationOutcome, CancellationReason, CardOutcome, Connector, StatusOutcome } from '../connectors/connector.ts';
import { ProviderHttpError } from '../connectors/provider-error.ts';
import type { Db } from '../db/db.ts';
import { eventPayload } from '../events/view.ts';
import type { Clock } from '../shared/clock.ts';
import { present } from '../shared/invariant.ts';
import type { AuthenticationUrls } from './authentication.ts';
import { dropOperation, enterCardState, operationKey, releaseUnlessOperation, renewOperationKey } from './store/card-states.ts';
import * as store from './store/complete.ts';
import { findChargeById } from './store/read.ts';
import { type ChargeRow, chargeView } from './view.ts';

/** How long the payer has to complete a 3-D Secure challenge before it fails authentication_failed. */
export const CHALLENGE_WINDOW_MS = 15 * 60_000;
/** An acquirer that names no capture deadline holds an authorisation this long (the usual 7 days). */
export const DEFAULT_HOLD_MS = 7 * 24 * 3600_000;

type Final = Extract<AuthorisationOutcome, { status: 'succeeded' | 'failed' | 'canceled' }>;

const failedAuthentication = (providerReference: string | null): Final => ({
  status: 'failed',
  failureCode: 'authentication_failed',
  providerReference,
});

type CardDeps = {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  authentication: AuthenticationUrls;
  deadline: () => AbortSignal;
  apply: (charge: ChargeRow, outcome: Final) => Promise<ChargeRow>;
  record: (charge: ChargeRow, outcome: AuthorisationOutcome) => Promise<ChargeRow>;
};

/** A card payment waits on the payer (3-D Secure) or on the merchant (a hold to capture). */
async function enterState(
  deps: CardDeps,
  charge: ChargeRow,
  outcome: Extract<CardOutcome, { status: 'requires_action' | 'requires_capture' }>,
): Promise<ChargeRow> {
  const { db, clock } = deps;
  const now = clock.now();
  const action = outcome.status === 'requires_action';
  const expiresAt = action
    ? charge.status === 'requires_action' && charge.expires_at
      ? charge.expires_at
      : new Date(now.getTime() + CHALLENGE_WINDOW_MS)
    : null;
  const captureBefore = action ? null : (outcome.captureBefore ?? new Date(now.getTime() + DEFAULT_HOLD_MS));
  const nextAction = action
    ? {
        type: 'redirect_to_url',
        redirect_to_url: { url: deps.authentication.start(charge.id), return_url: charge.return_url },
        expires_at: present(expiresAt, 'challenge expiry').toISOString(),
      }
    : null;
  const shown: ChargeRow = {
    ...charge,
    status: outcome.status,
    provider_reference: outcome.providerReference,
    next_action: nextAction,
    expires_at: expiresAt ?? charge.expires_at,
    amount_capturable: action ? null : outcome.amountCapturableMinor.toString(),
    capture_before: captureBefore,
    three_d_secure: (action ? null : outcome.threeDSecure) ?? charge.three_d_secure,
    updated_at: now,
  };
  const nextCheckAt = present(action ? expiresAt : captureBefore, 'next check');
  const entered = await enterCardState(db, {
    charge,
    status: outcome.status,
    providerReference: outcome.providerReference,
    nextAction,
    providerActionUrl: action ? outcome.redirectUrl : null,
    expiresAt,
    amountCapturableMinor: action ? null : outcome.amountCapturableMinor,
    captureBefore,
    threeDSecure: action ? null : (outcome.threeDSecure ?? null),
    nextCheckAt,
    now,
    eventType: action ? 'payment.requires_action' : 'payment.requires_capture',
    payload: eventPayload(chargeView(shown)),
  });
  if (entered) return entered;
  // Already in that state (a second answer, a poll, a webhook): look again when it is due, unless a
  // capture or cancel is recorded: its lease and due time belong to it (a late webhook pushing it
  // to capture_before would leave the operation waiting for days).
  await releaseUnlessOperation(db, charge.id, nextCheckAt);
  return present(await findChargeById(db, charge.id), 'charge');
}

/** The payer never finished the challenge: cancel the authorisation, then the payment fails authentication_failed. */
async function abandonChallenge(deps: CardDeps, connector: Connector, charge: ChargeRow): Promise<ChargeRow> {
  const { db, clock, log, deadline } = deps;
  if (!connector.cancel) return deps.apply(charge, failedAuthentication(charge.provider_reference));
  let outcome: AuthorisationOutcome;
  try {
    outcome = await connector.cancel(cancelRequest(charge, 'abandoned'), deadline());
  } catch (error) {
    log.warn({ err: error, charge_id: charge.id }, 'cancel of an abandoned challenge failed; will retry');
    await store.releaseCharge(db, charge.id, new Date(clock.now().getTime() + 5_000));
    return charge;
  }
  if (outcome.status === 'canceled' || outcome.status === 'failed') {
    return deps.apply(charge, failedAuthentication(outcome.providerReference));
  }
  if (outcome.status === 'requires_action' || outcome.status === 'pending') {
    await store.releaseCharge(db, charge.id, new Date(clock.now().getTime() + 5_000));
    return charge;
  }
  // Completed at the last moment: what the acquirer did stands.
  return deps.record(charge, outcome);
}

const cancelRequest = (charge: ChargeRow, reason: CancellationReason) => ({
  idempotencyKey: operationKey(charge.id, 'cancel', charge.operation_key_generation),
  paymentKey: charge.id,
  providerReference: charge.provider_reference,
  reason,
});

/**
 * Sends the merchant's capture or cancel, recorded on the payment before (claimOperation), with
 * its stored key and amount: a retry is the same request to the acquirer. An unknown outcome
 * leaves it recorded for the worker. An answer for another state (the hold expired, the payment
 * was captured) drops the operation and applies that state.
 */
async function runOperation(deps: CardDeps, connector: Connector, charge: ChargeRow): Promise<ChargeRow> {
  const { db, clock, log, deadline } = deps;
  const operation = present(charge.pending_operation, 'operation');
  const now = clock.now();
  let outcome: AuthorisationOutcome;
  try {
    if (operation === 'capture') {
      outcome = await present(connector.capture, 'capture').call(
        connector,
        {
          idempotencyKey: operationKey(charge.id, 'capture', charge.operation_key_generation),
          paymentKey: charge.id,
          providerReference: charge.provider_reference,
          amountMinor: BigInt(present(charge.operation_amount, 'capture amount')),
          currency: charge.currency,
        },
        deadline(),
      );
    } else {
      const reason = (charge.cancellation_reason ?? 'requested_by_customer') as CancellationReason;
      outcome = await present(connector.cancel, 'cancel').call(connector, cancelRequest(charge, reason), deadline());
    }
  } catch (error) {
    log.warn({ err: error, charge_id: charge.id, operation }, 'card operation answer unknown; the worker sends it again');
    // A 5xx is kept under its key and replayed forever: the next attempt (after the read) takes a new one.
    if (error instanceof ProviderHttpError && error.status >= 500) await renewOperationKey(db, charge.id, now);
    await store.releaseCharge(db, charge.id, new Date(now.getTime() + 2_000));
    return present(await findChargeById(db, charge.id), 'charge');
  }
  if ((operation === 'capture' && outcome.status === 'succeeded') || (operation === 'cancel' && outcome.status === 'canceled')) {
    return deps.apply(charge, outcome);
  }
  await dropOperation(db, charge.id, now);
  const current = { ...charge, pending_operation: null, operation_amount: null };
  return deps.record(current, outcome);
}

/**
 * A recorded capture or cancel that did not finish (its caller died, or the answer was lost):
 * the acquirer is asked first, since it may have acted and then answered an error it keeps under
 * the key (a saved 500 replays forever); only a payment still waiting there is sent again.
 */
async function resumeOperation(deps: CardDeps, connector: Connector, charge: ChargeRow): Promise<ChargeRow> {
  let status: StatusOutcome;
  try {
    status = await connector.getStatus({ idempotencyKey: charge.id, providerReference: charge.provider_reference }, deps.deadline());
  } catch (error) {
    deps.log.warn({ err: error, charge_id: charge.id }, 'status before resending a card operation failed; will retry');
    await store.releaseCharge(deps.db, charge.id, new Date(deps.clock.now().getTime() + 5_000));
    return charge;
  }
  if (status.status === 'succeeded' || status.status === 'failed' || status.status === 'canceled') return deps.apply(charge, status);
  return runOperation(deps, connector, charge);
}

/**
 * The card part of settlement (settlement.ts): entering requires_action or requires_capture,
 * sending the merchant's capture or cancel with its stored key, and cancelling a challenge the
 * payer abandoned. Final outcomes go back through settlement's `apply` (the completion
 * statement), other answers through its `record`.
 */
export function createCardSettlement(deps: CardDeps) {
  return {
    enterState: (charge: ChargeRow, outcome: Extract<CardOutcome, { status: 'requires_action' | 'requires_capture' }>) =>
      enterState(deps, charge, outcome),
    abandonChallenge: (connector: Connector, charge: ChargeRow) => abandonChallenge(deps, connector, charge),
    runOperation: (connector: Connector, charge: ChargeRow) => runOperation(deps, connector, charge),
    resumeOperation: (connector: Connector, charge: ChargeRow) => resumeOperation(deps, connector, charge),
  };
}
