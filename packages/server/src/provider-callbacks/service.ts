import type { Settlement } from '../charges/settlement.ts';
import * as chargeStore from '../charges/store.ts';
import type { CallbackHeaders, Connector } from '../connectors/connector.ts';
import type { ConnectorRegistry } from '../connectors/registry.ts';
import type { Db } from '../db/db.ts';
import { ApiError, notFound } from '../shared/errors.ts';
import { isIdOf } from '../shared/ids.ts';

/**
 * Asynchronous notifications from payment providers. A callback is only a hint with the
 * provider's authority: it is verified on its raw bytes, then its outcome goes through the same
 * settlement as a polled status (pending → final once; a contradiction of a final state is kept
 * in late_outcome for reconciliation, never applied). Duplicates are harmless by construction.
 */
export function createProviderCallbackService(deps: { db: Db; registry: ConnectorRegistry; settlement: Settlement }) {
  const { db, registry, settlement } = deps;

  function connectorOf(providerName: string): Connector {
    const connector = registry.get(providerName);
    if (!connector) throw new ApiError('resource_not_found', 'No such provider.');
    return connector;
  }

  return {
    /** Before anything is parsed: the provider exists and signed exactly these bytes. */
    authenticate(providerName: string, headers: CallbackHeaders, rawBody: string | undefined): void {
      const connector = connectorOf(providerName);
      if (rawBody === undefined || !connector.verifyCallback(headers, rawBody)) {
        throw new ApiError('signature_invalid', 'The callback signature is missing or does not match the body.');
      }
    },

    async receive(providerName: string, body: unknown): Promise<{ received: true }> {
      const connector = connectorOf(providerName);
      const parsed = connector.parseCallback(body);
      if (!parsed) throw new ApiError('parameter_invalid', `The body is not a callback ${connector.name} sends.`);
      const { idempotencyKey, outcome } = parsed;
      const known = isIdOf('payment', idempotencyKey) || isIdOf('topup', idempotencyKey);
      const charge = known ? await chargeStore.findChargeById(db, idempotencyKey) : undefined;
      // A provider only speaks for the charges it was asked to make.
      if (!charge || charge.provider !== connector.name) throw notFound();
      // Still pending at the provider: nothing to record; the worker keeps polling.
      if (outcome.status !== 'pending') await settlement.applyOutcome(charge, outcome);
      return { received: true };
    },
  };
}

export type ProviderCallbackService = ReturnType<typeof createProviderCallbackService>;
