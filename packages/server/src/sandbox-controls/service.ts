import type { Settlement } from '../charges/settlement.ts';
import * as chargeStore from '../charges/store/read.ts';
import { type ChargeView, chargeView } from '../charges/view.ts';
import type { SandboxConnector } from '../connectors/sandbox/connector.ts';
import type { Db } from '../db/db.ts';
import type { ChargeKind, OutflowKind } from '../db/schema.ts';
import type { AuthContext } from '../oauth/service.ts';
import type { OutflowSettlement } from '../outflows/settlement.ts';
import * as outflowStore from '../outflows/store/read.ts';
import { type OutflowView, outflowView } from '../outflows/view.ts';
import { ApiError, notFound } from '../shared/errors.ts';
import type { FailureCode } from '../shared/failures.ts';
import { isIdOf } from '../shared/ids.ts';

/**
 * The sandbox controls behind /v1/sandbox/…/succeed|fail: a sandbox merchant plays the payer by
 * settling a pending charge in the sandbox provider's books, then it settles here as usual.
 */
export function createSandboxControls(deps: {
  db: Db;
  sandbox: SandboxConnector;
  settlement: Settlement;
  outflowSettlement: OutflowSettlement;
}) {
  const { db, sandbox, settlement, outflowSettlement } = deps;
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

    /** The same for a pending refund or payout that went to the sandbox provider. */
    async forceOutflow(
      auth: AuthContext,
      kind: OutflowKind,
      id: string,
      outcome: 'succeed' | 'fail',
      failureCode: FailureCode | null,
    ): Promise<OutflowView> {
      if (auth.livemode) throw new ApiError('route_not_found', 'Sandbox helpers exist only for sandbox merchants.');
      const outflow = isIdOf(kind, id) ? await outflowStore.findOutflow(db, auth.merchantId, kind, id) : undefined;
      if (!outflow) throw notFound();
      if (outflow.status !== 'pending' || outflow.provider !== sandbox.name) {
        throw new ApiError('invalid_state', `Only a pending ${kind} can be forced; this one is ${outflow.status}.`);
      }
      const code: FailureCode | null =
        outcome === 'succeed' ? null : (failureCode ?? (kind === 'payout' ? 'payee_not_found' : 'provider_error'));
      await sandbox.force(outflow.id, outcome === 'succeed' ? 'succeeded' : 'failed', code);
      const settled = await outflowSettlement.applyOutcome(
        outflow,
        code === null
          ? { status: 'succeeded', providerReference: outflow.provider_reference }
          : { status: 'failed', failureCode: code, providerReference: outflow.provider_reference },
      );
      return outflowView(settled);
    },
  };
}

export type SandboxControls = ReturnType<typeof createSandboxControls>;
