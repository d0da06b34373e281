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
  403: 'insufficient_scope: the API key lacks the scope this route needs (named in WWW-Authenticate: Bearer error="insufficient_scope", scope="…").',
  404: 'resource_not_found: unknown id, or an id of another merchant (identical body).',
  405: 'method_not_allowed; see Allow.',
  409: 'reference_conflict (with existing_id) or invalid_state.',
  413: 'payload_too_large: the body is over 16 KiB.',
  415: 'unsupported_media_type: send application/json.',
  429: 'rate_limited; see Retry-After and RateLimit-*.',
  503: 'service_unavailable: the database is unreachable; retry after Retry-After.',
};

/**
 * Response entries for the given error statuses, all in the contract's envelope. A route that can
 * answer 401 is a /v1 route behind a scope (route-scopes.ts), so it can answer 403 too.
 */
export function errorResponses(...statuses: number[]): Record<number, unknown> {
  const out: Record<number, unknown> = {};
  const all = statuses.includes(401) && !statuses.includes(403) ? [...statuses, 403].sort((a, b) => a - b) : statuses;
  for (const status of all) out[status] = { description: ERROR_DESCRIPTIONS[status] ?? 'Error.', $ref: 'Error#' };
  return out;
}

/**
 * The overview shown at the top of /docs. The decisions taken where the v1 contract is silent are
 * kept in docs/api-decisions.md, so the reference opens on the API rather than on a list of them.
 */
const API_DESCRIPTION = `Purse takes payments by wallet, mobile money and card, tops up wallets and moves money between them, for merchants authenticated with OAuth 2.0 client credentials: exchange the client id and secret at POST /oauth/token for a Bearer token (JSON or form body, or HTTP Basic), then call /v1. Every response carries Request-Id and Api-Version: ${API_VERSION}. Money amounts are decimal strings in major units. Unknown body fields are rejected (parameter_unknown); types are never coerced.

Decisions Purse took where the v1 contract is silent (wallet references, transfers, refunds, payouts, limits, input hygiene, …) are listed in docs/api-decisions.md in the Purse repository.`;

/** The mark: a rounded square with a P, drawn with the system's sans-serif font (nothing to download). */
const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b7a75"/>' +
  '<text x="16" y="23" font-family="system-ui,Segoe UI,Helvetica,Arial,sans-serif" font-size="20" font-weight="700" fill="#fff" text-anchor="middle">P</text></svg>';

/** The top bar's logo: the mark and "Purse API", white on the bar's dark background. */
const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="180" height="40" viewBox="0 0 180 40"><title>Purse API</title>' +
  '<rect x="2" y="4" width="32" height="32" rx="7" fill="#0b7a75"/>' +
  '<text x="18" y="27" font-family="system-ui,Segoe UI,Helvetica,Arial,sans-serif" font-size="20" font-weight="700" fill="#fff" text-anchor="middle">P</text>' +
  '<text x="44" y="28" font-family="system-ui,Segoe UI,Helvetica,Arial,sans-serif" font-size="22" font-weight="700" fill="#fff">Purse API</text></svg>';

/**
 * The `servers` of the document as served: PURSE_PUBLIC_URL when set, else the scheme and host
 * the request came to, so /docs "Try it out" and generated clients work on any port or host.
 */
export function serversFor(publicBaseUrl: string | null, request: FastifyRequest): { url: string; description: string }[] {
  if (publicBaseUrl !== null) return [{ url: publicBaseUrl, description: 'This service (PURSE_PUBLIC_URL)' }];
  return [{ url: `${request.protocol}://${request.host}`, description: 'This service, as this request reached it' }];
}

type Node = Record<string, unknown>;

/**
 * Ajv refuses a discriminator's `mapping` (charges/schemas.ts meansInput validates with its
 * discriminator), so the document gets it here, read from the variants themselves: each `$ref`'d
 * variant's `type` value names it. Without it, OpenAPI tools would look for schemas named "card".
 */
function addDiscriminatorMappings(node: unknown, spec: Node): void {
  if (typeof node !== 'object' || node === null) return;
  for (const child of Object.values(node)) addDiscriminatorMappings(child, spec);
  const schema = node as { discriminator?: { propertyName: string; mapping?: Record<string, string> }; oneOf?: { $ref?: string }[] };
  if (!schema.discriminator || !schema.oneOf) return;
  const mapping: Record<string, string> = {};
  for (const { $ref } of schema.oneOf) {
    const name = $ref?.replace('#/components/schemas/', '') ?? '';
    const variant = ((spec.components as Node | undefined)?.schemas as Node | undefined)?.[name] as Node | undefined;
    const tag = ((variant?.properties as Node | undefined)?.[schema.discriminator.propertyName] as { enum?: string[] } | undefined)?.enum;
    if ($ref === undefined || tag?.length !== 1)
      throw new Error(`openapi: a discriminated oneOf needs $ref variants with one ${schema.discriminator.propertyName} value`);
    mapping[tag[0] as string] = $ref;
  }
  schema.discriminator.mapping = mapping;
}

/** Every tag, in the order /docs shows them: what a merchant calls first, the operator's last. */
const TAGS = [
  { name: 'Authentication', description: 'OAuth 2.0 client credentials.' },
  { name: 'Merchant', description: 'The authenticated merchant.' },
  { name: 'Payments', description: 'Take a payment by wallet, mobile money or card.' },
  { name: 'Top-ups', description: 'Add money to a wallet by mobile money or card.' },
  { name: 'Refunds', description: 'Give back all or part of a payment.' },
  { name: 'Payouts', description: 'Send collected funds to mobile money or a wallet.' },
  { name: 'Wallets', description: 'Stored-value wallets of your customers.' },
  { name: 'Transfers', description: 'Move money between two of your wallets.' },
  { name: 'Checkout sessions', description: 'A page Purse hosts where the payer pays by card or mobile money.' },
  { name: 'Payment links', description: 'A reusable URL to the hosted page: each visit opens a fresh session.' },
  { name: 'Balance', description: 'Your balance, available and reserved.' },
  { name: 'Balance transactions', description: 'Every movement of your balance.' },
  { name: 'Events', description: 'What happened, in order.' },
  { name: 'Webhooks', description: 'Endpoints that receive the events, signed.' },
  { name: 'Sandbox', description: 'Sandbox merchants only: make a pending object succeed or fail now.' },
  { name: 'API keys', description: 'Named client credentials with scopes; a token carries its key’s scopes.' },
  { name: 'Audit log', description: 'Who did what, from where: append-only, chained by hash.' },
  {
    name: 'Dashboard sign-in',
    description:
      'The dashboard’s users: sign-in by email and password with TOTP, cookie sessions with a CSRF token, session-bound tokens for /v1, ' +
      'invitations and the owner’s users (docs/users.md). Outside /v1; not for integrations.',
  },
  { name: 'Operations', description: 'Health, readiness, metrics and this document.' },
  { name: 'Provider callbacks', description: 'Asynchronous outcomes sent by payment providers, signed by them (no Bearer token).' },
];

/** How each route authenticates: OAuth client credentials and Bearer tokens; the dashboard's cookie and CSRF header. */
const SECURITY_SCHEMES = {
  oauth2: {
    type: 'oauth2',
    description: 'Client credentials exchanged at POST /oauth/token for a Bearer token.',
    flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes: {} } },
  },
  bearerAuth: { type: 'http', scheme: 'bearer', description: 'The access_token from POST /oauth/token.' },
  dashboardSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'purse_session',
    description: 'The dashboard session cookie set by POST /dashboard/api/sign-in (HttpOnly, SameSite=Strict, Path=/dashboard).',
  },
  csrfToken: {
    type: 'apiKey',
    in: 'header',
    name: 'X-CSRF-Token',
    description: 'The session’s CSRF token (csrf_token of sign-in, the second factor or GET /dashboard/api/session), on every write.',
  },
  clientBasic: {
    type: 'http',
    scheme: 'basic',
    description:
      'Only at POST /oauth/token: the client id and secret as HTTP Basic (RFC 6749 §2.3.1), each form-encoded before they are joined with ":".',
  },
} as const;

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
        securitySchemes: SECURITY_SCHEMES,
      },
      security: [{ oauth2: [] }, { bearerAuth: [] }],
      tags: TAGS,
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
      addDiscriminatorMappings(spec, spec);
      return spec as never;
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true },
    // Purse's name in the top bar, the tab and its icon, rather than the framework's.
    logo: { type: 'image/svg+xml', content: Buffer.from(LOGO_SVG), href: '/docs', target: '_self' },
    theme: {
      title: 'Purse API reference',
      favicon: [{ filename: 'purse.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(ICON_SVG) }],
    },
    staticCSP: true,
    transformSpecificationClone: true,
    transformSpecification: (spec, request) => ({ ...spec, servers: serversFor(options.publicBaseUrl, request) }),
  });
}
