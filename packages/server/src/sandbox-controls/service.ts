import type { Settlement } from '../charges/settlement.ts';
import * as chargeStore from '../charges/store.ts';
import { type ChargeView, chargeView } from '../charges/view.ts';
import type { FailureCode } from '../connectors/connector.ts';
import type { SandboxConnector } from '../connectors/sandbox/connector.ts';
import type { Db } from '../db/db.ts';
import type { ChargeKind } from '../db/schema.ts';
import type { AuthContext } from '../oauth/service.ts';
import { ApiError, notFound } from '../shared/errors.ts';
import { isIdOf } from '../shared/ids.ts';

/**
 * The sandbox controls behind /v1/sandbox/…/succeed|fail: a sandbox merchant plays the payer by
 * settling a pending charge in the sandbox provider's books, then it settles here as usual.
 */
export function createSandboxControls(deps: { db: Db; sandbox: SandboxConnector; settlement: Settlement }) {
  const { db, sandbox, settlement } = deps;
  return {
    async force(
      auth: AuthContext,
      kind: ChargeKind,
      id: string,
      outcome: 'succeed' | 'fail',
      failureCode: FailureCode | null,
    ): Promise<ChargeView> {
      if (auth.livemode) throw new ApiError('route_not_found', 'Sandbox helpers exist only for sandbox merchants.');
      const charge = isIdOf(kind === 'payment' ? 'payment' : 'topup', id)
        ? await chargeStore.findCharge(db, auth.merchantId, kind, id)
        : undefined;
      if (!charge) throw notFound();
      if (charge.status !== 'pending' || charge.provider !== sandbox.name) {
        throw new ApiError('invalid_state', `Only a pending ${kind} can be forced; this one is ${charge.status}.`);
      }
      const code: FailureCode | null =
        outcome === 'succeed' ? null : (failureCode ?? (charge.method_type === 'card' ? 'card_declined' : 'payer_declined'));
      await sandbox.force(charge.id, outcome === 'succeed' ? 'succeeded' : 'failed', code);
      const settled = await settlement.applyOutcome(
        charge,
        code === null
          ? { status: 'succeeded', providerReference: charge.provider_reference }
          : { status: 'failed', failureCode: code, providerReference: charge.provider_reference },
      );
      return chargeView(settled);
    },
  };
}

export type SandboxControls = ReturnType<typeof createSandboxControls>;
