import type { FastifyBaseLogger } from 'fastify';
import type { Settlement } from '../charges/settlement.ts';
import * as chargeStore from '../charges/store/read.ts';
import type { CallbackHeaders, CallbackHint, CallbackQuery, Connector, ProviderOutcome, StatusOutcome } from '../connectors/connector.ts';

type FinalOutcome = Extract<ProviderOutcome, { status: 'succeeded' | 'failed' }>;

import type { ConnectorRegistry } from '../connectors/registry.ts';
import type { Db } from '../db/db.ts';
import type { OutflowSettlement } from '../outflows/settlement.ts';
import * as outflowStore from '../outflows/store/read.ts';
import { ApiError, notFound } from '../shared/errors.ts';
import { isIdOf } from '../shared/ids.ts';

/** The charge, refund or payout a callback names, with how to ask about it and apply what the provider says. */
async function subjectFor(deps: { db: Db; settlement: Settlement; outflowSettlement: OutflowSettlement }, key: string) {
  const { db, settlement, outflowSettlement } = deps;
  if (isIdOf('payment', key) || isIdOf('topup', key)) {
    const charge = await chargeStore.findChargeById(db, key);
    return charge
      ? {
          id: charge.id,
          provider: charge.provider,
          status: (reference: string | null) =>
            settlement.providerStatus({ ...charge, provider_reference: charge.provider_reference ?? reference }),
          apply: (outcome: FinalOutcome) => settlement.applyOutcome(charge, outcome),
          // A card state confirmed by the acquirer (a hold, a cancel) is entered as an answer would be.
          record: (outcome: StatusOutcome) =>
            outcome.status === 'not_found' ? undefined : settlement.recordProviderOutcome(charge, outcome),
        }
      : undefined;
  }
  if (isIdOf('refund', key) || isIdOf('payout', key)) {
    const outflow = await outflowStore.findOutflowById(db, key);
    return outflow
      ? {
          id: outflow.id,
          provider: outflow.provider,
          status: (reference: string | null) =>
            outflowSettlement.providerStatus({ ...outflow, provider_reference: outflow.provider_reference ?? reference }),
          apply: (outcome: FinalOutcome) => outflowSettlement.applyOutcome(outflow, outcome),
          record: () => undefined,
        }
      : undefined;
  }
  return undefined;
}

/**
 * Asynchronous notifications from payment providers. A callback is a hint, not an outcome: it
 * is verified on its raw bytes by the provider's connector, which reads which charge it names;
 * then the connector's status call says what really happened, and that goes through the same
 * settlement as a polled status (pending → final once; a contradiction of a final state is shown
 * in late_outcome and announced by its event, never applied). So a callback can only make Purse look sooner: whatever its
 * body claims, the charge ends as the provider's books say, and duplicates change nothing.
 */
export function createProviderCallbackService(deps: {
  db: Db;
  registry: ConnectorRegistry;
  settlement: Settlement;
  outflowSettlement: OutflowSettlement;
  log: FastifyBaseLogger;
}) {
  const { registry, log } = deps;

  const subjectOf = (key: string) => subjectFor(deps, key);

  return {
    /** Every connector: each documents its callback on the shared route. */
    connectors: registry.connectors,

    /** The connector a callback is addressed to; 404 for a name no connector has. */
    connectorOf(providerName: string): Connector {
      const connector = registry.get(providerName);
      if (!connector) throw new ApiError('resource_not_found', 'No such provider.');
      return connector;
    },

    /** Before anything is parsed: the provider signed exactly these bytes. */
    authenticate(connector: Connector, headers: CallbackHeaders, rawBody: string | undefined, query: CallbackQuery = {}): void {
      if (rawBody === undefined || !connector.callbacks.verify(headers, rawBody, query)) {
        throw new ApiError('signature_invalid', 'The callback signature is missing or does not match the body.');
      }
    },

    /** A verified body that passed the connector's schema → the charge it names. */
    hintOf(connector: Connector, body: unknown, query: CallbackQuery = {}): CallbackHint {
      const hint = connector.callbacks.parse(body, query);
      if (!hint) throw new ApiError('parameter_invalid', `The body is not a callback ${connector.name} sends.`);
      return hint;
    },

    async receive(connector: Connector, hint: CallbackHint): Promise<{ received: true }> {
      const subject = await subjectOf(hint.idempotencyKey);
      // A provider only speaks for the requests it was sent.
      if (!subject || subject.provider !== connector.name) throw notFound();
      let status: StatusOutcome;
      try {
        // A provider answer delivered on the callback channel (no status call exists) is the
        // status; otherwise the provider is asked. When the answer to our request was lost, the
        // callback is where its reference is first seen: the status call uses it.
        status = hint.answer ?? (await subject.status(hint.providerReference));
      } catch (error) {
        // The provider could not confirm now: refuse, so that it delivers the callback again;
        // the worker's own polling settles the charge meanwhile either way.
        log.warn({ err: error, object_id: subject.id, claimed: hint.claimed }, 'provider status after a callback failed');
        throw new ApiError('service_unavailable', 'The provider status could not be confirmed; deliver the callback again.', {
          headers: { 'retry-after': '2' },
        });
      }
      // Only a final outcome the provider confirms is applied (a contradiction of our final state
      // is kept as a late outcome). Pending, or unknown to the provider: nothing changes, and the
      // worker keeps polling until the expiry.
      if (status.status === 'succeeded' || status.status === 'failed') await subject.apply(status);
      else if (status.status === 'requires_capture' || status.status === 'canceled') await subject.record(status);
      return { received: true };
    },
  };
}

export type ProviderCallbackService = ReturnType<typeof createProviderCallbackService>;
