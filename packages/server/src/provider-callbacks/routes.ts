import { Type } from 'typebox';
import { type CallbackHeaders, FAILURE_CODES } from '../connectors/connector.ts';
import { SANDBOX_SIGNATURE_HEADER } from '../connectors/sandbox/callbacks.ts';
import { parseJsonBody } from '../http/json-body.ts';
import type { RouteApp } from '../http/route-app.ts';
import { errorResponses } from '../ops/openapi.ts';
import { present } from '../shared/invariant.ts';
import type { ProviderCallbackService } from './service.ts';

const Params = Type.Object({ provider: Type.String({ maxLength: 64, description: 'The provider sending the callback, e.g. sandbox.' }) });

const CallbackBody = Type.Object(
  {
    idempotency_key: Type.String({
      maxLength: 64,
      description: 'The Purse object id the provider was given as idempotency key (pay_… or top_…).',
    }),
    provider_reference: Type.String({ maxLength: 128, description: "The provider's own reference." }),
    status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
    failure_code: Type.Optional(
      Type.Union(
        FAILURE_CODES.map((c) => Type.Literal(c)),
        { description: 'With status failed.' },
      ),
    ),
  },
  // A provider may add fields over time; the signature already vouches for the whole body.
  { additionalProperties: true, description: "The sandbox provider's callback; another provider's format is read by its connector." },
);

const Received = Type.Object({ received: Type.Literal(true) });

/**
 * POST /provider-callbacks/:provider. Outside /v1 and without a Bearer token: the provider
 * authenticates with a signature over the raw body. Register it in a scope of its own: it
 * replaces the JSON parser there to keep the raw bytes, and parses them only once verified.
 */
export function registerProviderCallbackRoutes(app: RouteApp, deps: { providerCallbacks: ProviderCallbackService }): void {
  // Runs before validation, while the body is still the raw string the parser below keeps; the
  // request's declared body type only holds once this hook has parsed it.
  const verifyThenParse = async (request: { params: { provider: string }; headers: CallbackHeaders; body: unknown }) => {
    const raw = typeof request.body === 'string' ? request.body : undefined;
    deps.providerCallbacks.authenticate(request.params.provider, request.headers, raw);
    // authenticate refuses a missing body, so raw is the verified string here.
    request.body = parseJsonBody(present(raw, 'verified callback body'));
  };
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.post(
    '/provider-callbacks/:provider',
    {
      schema: {
        operationId: 'receiveProviderCallback',
        tags: ['Provider callbacks'],
        summary: 'Receive an asynchronous outcome from a payment provider',
        description:
          'Called by providers, not by merchants. The sandbox signs the raw body with HMAC-SHA256 under a key derived from the ' +
          `service key, base64url, in the ${SANDBOX_SIGNATURE_HEADER} header; a missing or wrong signature is 401 and changes ` +
          'nothing. A pending object takes the outcome (ledger posting, event and webhooks as for a polled status). Repeated ' +
          'callbacks are answered 200 and change nothing; an outcome contradicting a final state is answered 200 and kept for ' +
          'reconciliation (a final state never changes).',
        security: [],
        params: Params,
        headers: Type.Object({
          [SANDBOX_SIGNATURE_HEADER]: Type.Optional(Type.String({ description: 'Sandbox: base64url HMAC-SHA256 of the raw body.' })),
        }),
        body: CallbackBody,
        response: {
          200: Received,
          ...errorResponses(400, 404, 413, 415),
          401: { description: 'signature_invalid: the signature is missing or does not match the body.', $ref: 'Error#' },
        },
      },
      preValidation: verifyThenParse,
    },
    async (request) => deps.providerCallbacks.receive(request.params.provider, request.body),
  );
}
