import { Type } from 'typebox';
import { FAILURE_CODES } from '../connectors/connector.ts';
import type { RouteApp } from '../http/route-app.ts';
import { errorResponses } from '../ops/openapi.ts';
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
export function registerSandboxControlRoutes(app: RouteApp, deps: { sandboxControls: SandboxControls }): void {
  for (const [path, kind, ref] of [
    ['payments', 'payment', 'Payment'],
    ['topups', 'topup', 'Topup'],
  ] as const) {
    const schema = (outcome: 'succeed' | 'fail') => ({
      operationId: `sandbox${outcome === 'succeed' ? 'Succeed' : 'Fail'}${ref}`,
      tags: ['Sandbox'],
      summary: `Force a pending ${kind} to ${outcome === 'succeed' ? 'succeed' : 'fail'} (sandbox merchants only)`,
      description:
        'Only for pending objects (otherwise 409 invalid_state). The outcome goes through the sandbox provider and the ' +
        'normal settlement, so the ledger, events and webhooks behave as live.' +
        (outcome === 'fail' ? ' Optional body {"failure_code": …}; default payer_declined (mobile money) or card_declined.' : ''),
      params: Type.Object({ id: Type.String({ maxLength: 500 }) }),
    });
    const response = { 200: { $ref: `${ref}#` }, ...errorResponses(400, 401, 404, 409, 429) };

    app.post(
      `/sandbox/${path}/:id/succeed`,
      { schema: { ...schema('succeed'), response }, preValidation: emptyBodyAsObject },
      async (request) => deps.sandboxControls.force(request.auth, kind, request.params.id, 'succeed', null),
    );
    app.post(
      `/sandbox/${path}/:id/fail`,
      { schema: { ...schema('fail'), body: ForceBody, response }, preValidation: emptyBodyAsObject },
      async (request) => deps.sandboxControls.force(request.auth, kind, request.params.id, 'fail', request.body.failure_code ?? null),
    );
  }
}
