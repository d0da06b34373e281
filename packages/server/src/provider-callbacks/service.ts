import type { FastifyBaseLogger } from 'fastify';
import type { Settlement } from '../charges/settlement.ts';
import * as chargeStore from '../charges/store.ts';
import type { CallbackHeaders, CallbackHint, Connector, StatusOutcome } from '../connectors/connector.ts';
import type { ConnectorRegistry } from '../connectors/registry.ts';
import type { Db } from '../db/db.ts';
import { ApiError, notFound } from '../shared/errors.ts';
import { isIdOf } from '../shared/ids.ts';

/**
 * Asynchronous notifications from payment providers. A callback is a hint, not an outcome: it
 * is verified on its raw bytes by the provider's connector, which reads which charge it names;
 * then the connector's status call says what really happened, and that goes through the same
 * settlement as a polled status (pending → final once; a contradiction of a final state is kept
 * in late_outcome, never applied). So a callback can only make Purse look sooner: whatever its
 * body claims, the charge ends as the provider's books say, and duplicates change nothing.
 */
export function createProviderCallbackService(deps: {
  db: Db;
  registry: ConnectorRegistry;
  settlement: Settlement;
  log: FastifyBaseLogger;
}) {
  const { db, registry, settlement, log } = deps;

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
    authenticate(connector: Connector, headers: CallbackHeaders, rawBody: string | undefined): void {
      if (rawBody === undefined || !connector.callbacks.verify(headers, rawBody)) {
        throw new ApiError('signature_invalid', 'The callback signature is missing or does not match the body.');
      }
    },

    /** A verified body that passed the connector's schema → the charge it names. */
    hintOf(connector: Connector, body: unknown): CallbackHint {
      const hint = connector.callbacks.parse(body);
      if (!hint) throw new ApiError('parameter_invalid', `The body is not a callback ${connector.name} sends.`);
      return hint;
    },

    async receive(connector: Connector, hint: CallbackHint): Promise<{ received: true }> {
      const { idempotencyKey } = hint;
      const known = isIdOf('payment', idempotencyKey) || isIdOf('topup', idempotencyKey);
      const charge = known ? await chargeStore.findChargeById(db, idempotencyKey) : undefined;
      // A provider only speaks for the charges it was asked to make.
      if (!charge || charge.provider !== connector.name) throw notFound();
      let status: StatusOutcome;
      try {
        status = await settlement.providerStatus(charge);
      } catch (error) {
        // The provider could not confirm now: refuse, so that it delivers the callback again;
        // the worker's own polling settles the charge meanwhile either way.
        log.warn({ err: error, charge_id: charge.id, claimed: hint.claimed }, 'provider status after a callback failed');
        throw new ApiError('service_unavailable', 'The provider status could not be confirmed; deliver the callback again.', {
          headers: { 'retry-after': '2' },
        });
      }
      // Only a final outcome the provider confirms is applied (a contradiction of our final state
      // is kept as a late outcome). Pending, or unknown to the provider: nothing changes, and the
      // worker keeps polling until the expiry.
      if (status.status === 'succeeded' || status.status === 'failed') await settlement.applyOutcome(charge, status);
      return { received: true };
    },
  };
}

export type ProviderCallbackService = ReturnType<typeof createProviderCallbackService>;
