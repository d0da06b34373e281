import type { FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import type { Connector } from '../connectors/connector.ts';
import { parseJsonBody } from '../http/json-body.ts';
import type { RouteApp } from '../http/route-app.ts';
import { errorResponses } from '../ops/openapi.ts';
import { present } from '../shared/invariant.ts';
import type { ProviderCallbackService } from './service.ts';

const Params = Type.Object({ provider: Type.String({ maxLength: 64, description: 'The provider sending the callback, e.g. sandbox.' }) });

const Received = Type.Object({ received: Type.Literal(true) });

/** One connector's body as is, several as alternatives: what the route documents and first checks. */
function documentedBody(connectors: readonly Connector[]): TSchema {
  const bodies = connectors.map((c) => c.callbacks.body);
  return bodies.length === 1 ? (bodies[0] as TSchema) : Type.Union(bodies);
}

function describe(connectors: readonly Connector[]): string {
  const signing = connectors.map((c) => `${c.callbacks.description}; `).join('');
  return (
    `Called by providers, not by merchants. ${signing}a missing or wrong signature is 401 and changes nothing. A callback ` +
    "is a hint: Purse then asks the provider for the object's status and applies that, not the body's claim. A pending " +
    'object takes a final status (ledger posting, event and webhooks as for a polled status). Repeated callbacks are ' +
    'answered 200 and change nothing; a status contradicting a final state is answered 200 and kept for reconciliation ' +
    '(a final state never changes). When the provider cannot be asked, 503: deliver the callback again.'
  );
}

/** The named connector's own schema, with the app's validator: its errors read as any body's. */
function validateBody(request: FastifyRequest, connector: Connector, body: unknown): void {
  const validate = request.compileValidationSchema(connector.callbacks.body, 'body');
  if (validate(body)) return;
  throw Object.assign(new Error('callback body invalid'), { validation: validate.errors ?? [], validationContext: 'body' });
}

/**
 * POST /provider-callbacks/:provider. Outside /v1 and without a Bearer token: the provider
 * authenticates with a signature over the raw body, checked by its connector. Register it in a
 * scope of its own: it replaces the JSON parser there to keep the raw bytes, and parses them
 * only once verified.
 */
export function registerProviderCallbackRoutes(app: RouteApp, deps: { providerCallbacks: ProviderCallbackService }): void {
  const { connectors } = deps.providerCallbacks;
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  // MTN MoMo calls back with PUT, the others with POST: one route, two methods, documented apart.
  for (const method of ['POST', 'PUT'] as const) {
    app.route({
      method,
      url: '/provider-callbacks/:provider',
      schema: {
        operationId: method === 'POST' ? 'receiveProviderCallback' : 'receiveProviderCallbackPut',
        tags: ['Provider callbacks'],
        summary: 'Receive an asynchronous outcome from a payment provider',
        description: describe(connectors),
        security: [],
        params: Params,
        querystring: Type.Object(Object.assign({}, ...connectors.map((c) => c.callbacks.query ?? {}))),
        headers: Type.Object(Object.assign({}, ...connectors.map((c) => c.callbacks.headers))),
        body: documentedBody(connectors),
        response: {
          200: Received,
          ...errorResponses(400, 404, 413, 415),
          401: { description: 'signature_invalid: the signature is missing or does not match the body.', $ref: 'Error#' },
        },
      },
      preValidation: async (request) => {
        const connector = deps.providerCallbacks.connectorOf(request.params.provider);
        const raw = typeof request.body === 'string' ? request.body : undefined;
        deps.providerCallbacks.authenticate(connector, request.headers, raw, request.query as Record<string, unknown>);
        // authenticate refuses a missing body, so raw is the verified string here.
        const body = parseJsonBody(present(raw, 'verified callback body'));
        validateBody(request, connector, body);
        request.body = body;
      },
      handler: async (request) => {
        const providerCallbacks = deps.providerCallbacks;
        const connector = providerCallbacks.connectorOf(request.params.provider);
        return providerCallbacks.receive(
          connector,
          providerCallbacks.hintOf(connector, request.body, request.query as Record<string, unknown>),
        );
      },
    });
  }
}
