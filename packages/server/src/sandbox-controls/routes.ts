import { Type } from 'typebox';
import { IdParams } from '../http/params.ts';
import type { RouteApp } from '../http/route-app.ts';
import type { AuthContext } from '../oauth/service.ts';
import { errorResponses } from '../ops/openapi.ts';
import { FAILURE_CODES, type FailureCode } from '../shared/failures.ts';
import type { SandboxControls } from './service.ts';

const ForceBody = Type.Object(
  { failure_code: Type.Optional(Type.Union(FAILURE_CODES.map((c) => Type.Literal(c)))) },
  { additionalProperties: false },
);

/** A request without a body validates as {}: the failure code is optional, and so is the body. */
async function emptyBodyAsObject(request: { body: unknown }): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

/**
 * Sandbox-only controls that force a pending object's outcome. Live merchants get 404. Succeed
 * and fail are registered apart so that only fail has a body schema, and its handler reads the
 * validated failure code.
 */
type Kind = 'payment' | 'topup' | 'refund' | 'payout';

/** Per kind: its path, schema name and what a fail without a failure code means. */
const KINDS: readonly { path: string; kind: Kind; ref: string; note: string }[] = [
  { path: 'payments', kind: 'payment', ref: 'Payment', note: 'default payer_declined (mobile money) or card_declined' },
  { path: 'topups', kind: 'topup', ref: 'Topup', note: 'default payer_declined (mobile money) or card_declined' },
  { path: 'refunds', kind: 'refund', ref: 'Refund', note: 'default provider_error; the amount returns to the balance and the payment' },
  { path: 'payouts', kind: 'payout', ref: 'Payout', note: 'default payee_not_found; the amount returns to the available balance' },
];

export function registerSandboxControlRoutes(app: RouteApp, deps: { sandboxControls: SandboxControls }): void {
  const force = (auth: AuthContext, kind: Kind, id: string, outcome: 'succeed' | 'fail', code: FailureCode | null) =>
    kind === 'payment' || kind === 'topup'
      ? deps.sandboxControls.force(auth, kind, id, outcome, code)
      : deps.sandboxControls.forceOutflow(auth, kind, id, outcome, code);
  for (const { path, kind, ref, note } of KINDS) {
    const schema = (outcome: 'succeed' | 'fail') => ({
      operationId: `sandbox${outcome === 'succeed' ? 'Succeed' : 'Fail'}${ref}`,
      tags: ['Sandbox'],
      summary: `Force a pending ${kind} to ${outcome === 'succeed' ? 'succeed' : 'fail'} (sandbox merchants only)`,
      description:
        'Only for pending objects at the sandbox provider (otherwise 409 invalid_state). The outcome goes through the sandbox ' +
        'provider and the normal settlement, so the ledger, events and webhooks behave as live.' +
        (outcome === 'fail' ? ` Optional body {"failure_code": …}; ${note}.` : ''),
      params: IdParams,
    });
    const response = { 200: { $ref: `${ref}#` }, ...errorResponses(400, 401, 404, 409, 429) };

    app.post(
      `/sandbox/${path}/:id/succeed`,
      { schema: { ...schema('succeed'), response }, preValidation: emptyBodyAsObject },
      async (request) => force(request.auth, kind, request.params.id, 'succeed', null),
    );
    app.post(
      `/sandbox/${path}/:id/fail`,
      { schema: { ...schema('fail'), body: ForceBody, response }, preValidation: emptyBodyAsObject },
      async (request) => force(request.auth, kind, request.params.id, 'fail', request.body.failure_code ?? null),
    );
  }
}
