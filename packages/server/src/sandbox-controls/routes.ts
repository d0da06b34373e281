import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { FAILURE_CODES, type FailureCode } from '../connectors/connector.ts';
import type { ChargeKind } from '../db/schema.ts';
import { errorResponses } from '../ops/openapi.ts';
import type { SandboxControls } from './service.ts';

const ForceBody = Type.Object(
  { failure_code: Type.Optional(Type.Union(FAILURE_CODES.map((c) => Type.Literal(c)))) },
  { additionalProperties: false },
);

/** Sandbox-only controls that force a pending object's outcome. Live merchants get 404. */
export function registerSandboxControlRoutes(app: FastifyInstance, deps: { sandboxControls: SandboxControls }): void {
  for (const [path, kind, ref] of [
    ['payments', 'payment', 'Payment'],
    ['topups', 'topup', 'Topup'],
  ] as const) {
    for (const outcome of ['succeed', 'fail'] as const) {
      app.post(
        `/sandbox/${path}/:id/${outcome}`,
        {
          schema: {
            operationId: `sandbox${outcome === 'succeed' ? 'Succeed' : 'Fail'}${ref}`,
            tags: ['Sandbox'],
            summary: `Force a pending ${kind} to ${outcome === 'succeed' ? 'succeed' : 'fail'} (sandbox merchants only)`,
            description:
              'Only for pending objects (otherwise 409 invalid_state). The outcome goes through the sandbox provider and the ' +
              'normal settlement, so the ledger, events and webhooks behave as live.' +
              (outcome === 'fail' ? ' Optional body {"failure_code": …}; default payer_declined (mobile money) or card_declined.' : ''),
            params: Type.Object({ id: Type.String({ maxLength: 500 }) }),
            ...(outcome === 'fail' ? { body: ForceBody } : {}),
            response: { 200: { $ref: `${ref}#` }, ...errorResponses(400, 401, 404, 409, 429) },
          },
          // The body is optional: a request without one validates as {}.
          preValidation: async (request) => {
            if (request.body === undefined || request.body === null) request.body = {};
          },
        },
        async (request) => {
          const body = (request.body ?? {}) as Static<typeof ForceBody>;
          return deps.sandboxControls.force(
            request.auth,
            kind as ChargeKind,
            (request.params as { id: string }).id,
            outcome,
            (body.failure_code as FailureCode | undefined) ?? null,
          );
        },
      );
    }
  }
}
