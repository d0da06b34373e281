import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { API_VERSION } from '../shared/api-version.ts';

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      type: Type.String({ examples: ['invalid_request_error'] }),
      code: Type.String({ examples: ['parameter_invalid'] }),
      message: Type.String(),
      param: Type.Optional(Type.String({ description: 'Dotted path of the offending field, e.g. payment_method.card.number.' })),
      existing_id: Type.Optional(Type.String({ description: 'With reference_conflict: the id of the object that owns the reference.' })),
      request_id: Type.String({ examples: ['req_01jd6x8v1ffq8v2k3m4n5p6q7r'] }),
    }),
  },
  { $id: 'Error', description: 'The error envelope of every /v1 error: type, code, message, param and the request id.' },
);

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request: invalid_json, parameter_missing, parameter_invalid, parameter_unknown, currency_not_supported or resource_missing.',
  401: 'token_missing, token_invalid or token_expired; see WWW-Authenticate.',
  404: 'resource_not_found: unknown id, or an id of another merchant (identical body).',
  405: 'method_not_allowed; see Allow.',
  409: 'reference_conflict (with existing_id) or invalid_state.',
  413: 'payload_too_large: the body is over 16 KiB.',
  415: 'unsupported_media_type: send application/json.',
  429: 'rate_limited; see Retry-After and RateLimit-*.',
  503: 'service_unavailable: the database is unreachable; retry after Retry-After.',
};

/** Response entries for the given error statuses, all in the contract's envelope. */
export function errorResponses(...statuses: number[]): Record<number, unknown> {
  const out: Record<number, unknown> = {};
  for (const status of statuses) out[status] = { description: ERROR_DESCRIPTIONS[status] ?? 'Error.', $ref: 'Error#' };
  return out;
}

/** The overview, with the decisions taken where the API description (docs/api.md) left a choice open, kept here in the contract itself. */
const API_DESCRIPTION = `Purse takes payments by wallet, mobile money and card, tops up wallets and moves money between them, for merchants authenticated with OAuth 2.0 client credentials. Every response carries Request-Id and Api-Version: ${API_VERSION}. Money amounts are decimal strings in major units. Unknown body fields are rejected (parameter_unknown); types are never coerced.

## Decisions where the v1 contract is silent

- **Wallet references.** A wallet may carry a \`reference\`; it follows the same reference rules as payments (same request: 200 replay; different: 409).
- **Top-up to a frozen wallet.** 201 with status failed / wallet_inactive, no provider call. A wallet frozen after a top-up started is still credited when the top-up succeeds: the money was already collected.
- **Transfers** are final when created: a source that does not cover the amount is 201 failed / insufficient_funds, a frozen source or destination 201 failed / wallet_inactive, and nothing moves. The same wallet on both sides is 400 parameter_invalid on destination_wallet_id. The list's wallet_id filter matches either side.
- **Refunds.** A refund without \`amount\` of a payment already refunded in full is 400 payment_not_refundable. A refund into a frozen wallet is 201 failed / wallet_inactive (nothing moves; the merchant may unfreeze and refund again). A refund has no \`currency\` field: the payment's currency applies. A card refund whose provider does not answer in time stays pending and is settled by the worker.
- **Payouts** to mobile money on a network no connector serves are 201 failed / provider_error, nothing reserved. A payout to a frozen wallet is 201 failed / wallet_inactive.
- **The merchant's funds** are decided per merchant and currency on one row: refunds and payouts of one merchant and currency are applied one after the other (payments are not: they credit 15 rows at random).
- **Forcing a final object** with a sandbox helper: 409 \`invalid_state\`.
- **A live merchant with no live provider configured**: card and mobile-money charges are 201 failed / provider_error.
- **A card payment whose first attempt died before the provider saw it**: a retry with the same reference and card within 2 minutes resumes it; after that it fails with processing_error (the card number is never stored, so Purse cannot resume it alone). Mobile money is resumed by the settlement worker from the stored phone number.
- **Balance** lists the currencies the merchant has ever held funds in (none yet: empty lists), with available and reserved side by side in the same order.
- **Balance transactions.** balance_after is the running balance of the currency's funds, computed before the filters (a filtered list skips lines, it never restarts the balance). The CSV statement (Accept: text/csv) is newest first like the list, takes no page parameters (400 parameter_invalid) and lists nothing newer than the newest entry when its download started.
- **Lists** accept only their documented query parameters (400 parameter_unknown otherwise); a cursor must be an id of the listed type; a cursor of another merchant only positions the page.
- **Events and webhooks.** \`events: ["*"]\` (or none) subscribes to every type. Redelivery makes every delivery of the event due now, on the retry schedule where it stands: a delivery whose schedule ran out gets one attempt per redelivery, never a fresh set of retries; a delivery being sent at that moment counts as the redelivery. Deleting an endpoint fails its pending deliveries.
- **Input hygiene.** Control characters or invalid Unicode (a lone UTF-16 surrogate such as \\ud800) anywhere in a body, or control characters in a query string: 400 parameter_invalid naming the field, nothing stored. Callback and webhook URLs with raw spaces or control characters: 400 (percent-encode them). Keys named \`__proto__\`: 400. Duplicate JSON keys: the last one wins (JSON.parse).
- **Limits.** The rate limit (PURSE_RATE_LIMIT_PER_S per merchant per second), failed token requests (PURSE_TOKEN_FAILURE_LIMIT per client_id and source address per minute: a stranger's guesses never lock a merchant out from elsewhere) and failed or unauthenticated requests per source address (PURSE_ADDRESS_FAILURE_LIMIT per minute, checked before any database work) answer 429 with Retry-After. They are counted per process, or shared by every process and host through Redis with PURSE_REDIS_URL (if Redis stops answering, per process until it answers again; /readyz says which). The source address is the connection's peer; X-Forwarded-For is believed only from PURSE_TRUSTED_PROXIES.
- **Provider callbacks** come to /provider-callbacks/{provider}, signed by the provider, never with a merchant token.`;

/**
 * The `servers` of the document as served: PURSE_PUBLIC_URL when set, else the scheme and host
 * the request came to, so /docs "Try it out" and generated clients work on any port or host.
 */
export function serversFor(publicBaseUrl: string | null, request: FastifyRequest): { url: string; description: string }[] {
  if (publicBaseUrl !== null) return [{ url: publicBaseUrl, description: 'This service (PURSE_PUBLIC_URL)' }];
  return [{ url: `${request.protocol}://${request.host}`, description: 'This service, as this request reached it' }];
}

export async function registerOpenApi(app: FastifyInstance, options: { publicBaseUrl: string | null }): Promise<void> {
  app.addSchema(ErrorBody);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Purse API',
        version: API_VERSION,
        description: API_DESCRIPTION,
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        contact: { name: 'Purse operators' },
      },
      // Relative: the document as a file resolves against where it was read; served, it names its host (serversFor).
      servers: [{ url: '/', description: 'The host this document was read from' }],
      components: {
        securitySchemes: {
          oauth2: {
            type: 'oauth2',
            description: 'Client credentials exchanged at POST /oauth/token for a Bearer token.',
            flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes: {} } },
          },
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'The access_token from POST /oauth/token.' },
        },
      },
      security: [{ oauth2: [] }, { bearerAuth: [] }],
      tags: [
        { name: 'Authentication', description: 'OAuth 2.0 client credentials.' },
        { name: 'Merchant', description: 'The authenticated merchant.' },
        { name: 'Operations', description: 'Health, readiness, metrics and this document.' },
        { name: 'Provider callbacks', description: 'Asynchronous outcomes sent by payment providers, signed by them (no Bearer token).' },
      ],
    },
    // @fastify/swagger marks every body it knows as required; the sandbox fail body is optional
    // (a request without one validates as {}), and the document says so.
    transformObject: (documentObject) => {
      const spec = (
        documentObject as { openapiObject: { paths?: Record<string, Record<string, { requestBody?: { required?: boolean } }>> } }
      ).openapiObject;
      for (const [path, methods] of Object.entries(spec.paths ?? {})) {
        const body = methods.post?.requestBody;
        if (path.endsWith('/fail') && body) body.required = false;
      }
      return spec as never;
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true },
    staticCSP: true,
    transformSpecificationClone: true,
    transformSpecification: (spec, request) => ({ ...spec, servers: serversFor(options.publicBaseUrl, request) }),
  });
}
