import formbody from '@fastify/formbody';
import { Type } from 'typebox';
import type { RouteApp } from '../http/route-app.ts';
import { OAuthError } from './errors.ts';
import type { OAuthService } from './service.ts';

const REALM = 'purse';
const TOKEN_BODY_LIMIT = 4 * 1024;

const TokenRequest = Type.Object(
  {
    grant_type: Type.String({
      examples: ['client_credentials'],
      description: 'client_credentials; any other grant: 400 unsupported_grant_type.',
    }),
    client_id: Type.Optional(
      Type.String({ description: 'Required unless the client authenticates with HTTP Basic; never both.', examples: ['cli_…'] }),
    ),
    client_secret: Type.Optional(
      Type.String({ description: 'Required unless the client authenticates with HTTP Basic; never both.', examples: ['sk_test_…'] }),
    ),
  },
  {
    $id: 'TokenRequest',
    additionalProperties: true,
    description:
      'RFC 6749 §4.4 client-credentials request, as JSON or form-encoded (the same fields); unknown fields are ignored. ' +
      'The client id and secret go in the body or in an HTTP Basic Authorization header (clientBasic), not both.',
  },
);

const TokenResponse = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ examples: [3600] }),
  },
  { $id: 'TokenResponse' },
);

const OAuthErrorBody = Type.Object(
  {
    error: Type.Union([
      Type.Literal('invalid_request'),
      Type.Literal('unsupported_grant_type'),
      Type.Literal('invalid_client'),
      Type.Literal('too_many_requests'),
    ]),
    error_description: Type.String(),
  },
  { $id: 'OAuthError' },
);

/**
 * HTTP Basic client authentication (RFC 6749 §2.3.1): id and secret are form-encoded, then
 * joined with the first ':' and base64-encoded. Returns null when the header is not Basic.
 */
function basicCredentials(header: string | undefined): { clientId: string; clientSecret: string } | null | 'malformed' {
  if (header === undefined) return null;
  const match = /^basic +(\S+)$/i.exec(header.trim());
  if (!match) return 'malformed';
  const decoded = Buffer.from(match[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  try {
    const formDecode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    return 'malformed';
  }
}

// C0/C1 controls and DEL: no client id or secret has them, and PostgreSQL refuses NUL in text
// (a form body or Basic header is not checked by the JSON parser, so it is checked here).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** RFC 6749 §3.1: a parameter sent without a value is treated as omitted. */
const absent = (value: unknown): boolean => value === undefined || value === '';

/** A JSON object or a parsed form: the only bodies whose fields are read. */
const isFields = (body: unknown): body is Record<string, unknown> => body !== null && typeof body === 'object' && !Array.isArray(body);

/** One credential from the body: present, a non-empty string, no control characters. */
function bodyCredential(fields: Record<string, unknown>, name: 'client_id' | 'client_secret'): string {
  const value = fields[name];
  if (value === undefined) throw OAuthError.of('invalid_request', `${name} is required.`);
  if (typeof value !== 'string' || value === '') throw OAuthError.of('invalid_request', `${name} must be a non-empty string.`);
  if (CONTROL.test(value)) throw OAuthError.of('invalid_request', `${name} must not contain control characters.`);
  return value;
}

/** Reads the grant and the client's credentials from the body and/or the Basic header. */
function readTokenRequest(fields: unknown, authorization: string | undefined) {
  if (!isFields(fields)) {
    throw OAuthError.of('invalid_request', 'The body must be a JSON object or a form with grant_type, client_id and client_secret.');
  }
  const basic = basicCredentials(authorization);
  if (basic === 'malformed') throw OAuthError.of('invalid_request', 'The Authorization header must be HTTP Basic client credentials.');
  if (absent(fields.grant_type)) {
    // A JSON text sent as a form (curl -d without a Content-Type) parses as one odd field name.
    if (Object.keys(fields).some((name) => name.trimStart().startsWith('{'))) {
      throw OAuthError.of(
        'invalid_request',
        'The body looks like JSON but was sent as application/x-www-form-urlencoded (what curl -d sends unless told otherwise): ' +
          'send Content-Type: application/json with it.',
      );
    }
    throw OAuthError.of('invalid_request', 'grant_type is required (the only grant type is client_credentials).');
  }
  if (typeof fields.grant_type !== 'string') throw OAuthError.of('invalid_request', 'grant_type must be the string client_credentials.');
  if (fields.grant_type !== 'client_credentials') {
    throw OAuthError.of('unsupported_grant_type', 'Only the client_credentials grant is supported.');
  }
  if (basic) {
    if (CONTROL.test(basic.clientId) || CONTROL.test(basic.clientSecret)) {
      throw OAuthError.of('invalid_request', 'Client credentials must not contain control characters.');
    }
    if (!absent(fields.client_id) || !absent(fields.client_secret)) {
      throw OAuthError.of('invalid_request', 'Send client credentials either in the body or in the Authorization header, not both.');
    }
    return { ...basic, usedBasic: true };
  }
  const clientId = bodyCredential(fields, 'client_id');
  return { clientId, clientSecret: bodyCredential(fields, 'client_secret'), usedBasic: false };
}

/** The token endpoint in a scope of its own: form bodies only there; every /v1 route takes JSON alone. */
export async function registerOAuthRoutes(app: RouteApp, deps: { oauth: OAuthService }): Promise<void> {
  await app.register(async (token) => {
    await token.register(formbody, { bodyLimit: 4 * 1024 });
    registerTokenRoutes(token, deps);
  });
}

function registerTokenRoutes(app: RouteApp, deps: { oauth: OAuthService }): void {
  app.addSchema(TokenRequest);
  app.addSchema(TokenResponse);
  app.addSchema(OAuthErrorBody);
  app.post(
    '/oauth/token',
    {
      bodyLimit: TOKEN_BODY_LIMIT,
      schema: {
        operationId: 'createToken',
        tags: ['Authentication'],
        summary: 'Exchange client credentials for an access token',
        description:
          'OAuth 2.0 client-credentials grant (RFC 6749 §4.4), in three forms:\n\n' +
          '- a JSON body (`Content-Type: application/json`): `{"grant_type":"client_credentials","client_id":"cli_…","client_secret":"sk_…"}`;\n' +
          '- the same fields form-encoded (`Content-Type: application/x-www-form-urlencoded`): ' +
          '`grant_type=client_credentials&client_id=cli_…&client_secret=sk_…`;\n' +
          '- HTTP Basic client authentication (`Authorization: Basic base64(client_id:client_secret)`, each part form-encoded first) ' +
          'with only `grant_type` in the body (JSON or form).\n\n' +
          'Credentials in both the body and the header are refused (400 invalid_request). Several tokens of one client are valid at once. ' +
          'Repeated failures for one client are throttled with 429 and Retry-After.',
        // No Bearer token: the client authenticates with its credentials in the body, or with HTTP Basic.
        security: [{}, { clientBasic: [] }],
        consumes: ['application/json', 'application/x-www-form-urlencoded'],
        body: { $ref: 'TokenRequest#' },
        response: {
          200: { description: 'A Bearer token.', $ref: 'TokenResponse#' },
          400: { description: 'invalid_request or unsupported_grant_type.', $ref: 'OAuthError#' },
          401: {
            description: 'invalid_client: unknown client, wrong secret or disabled merchant (identical bodies).',
            $ref: 'OAuthError#',
          },
          429: { description: 'too_many_requests after repeated failures for one client; see Retry-After.', $ref: 'OAuthError#' },
        },
      },
      // Validation is done by hand below so every refusal is an RFC 6749 error, not a v1 one.
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      const credentials = readTokenRequest(request.body, request.headers.authorization);
      const result = await deps.oauth.issueToken(credentials.clientId, credentials.clientSecret, request.ip);
      if (!result.ok) {
        if (result.error === 'throttled') {
          throw OAuthError.of('too_many_requests', 'Too many failed attempts for this client from this address; retry later.', {
            'retry-after': String(result.retryAfterS),
          });
        }
        throw OAuthError.of(
          'invalid_client',
          // One answer for an unknown client and a wrong secret (and a disabled merchant): nothing to tell them apart.
          'Client authentication failed: the client_id is unknown or the client_secret is not its current one (or the merchant is disabled). ' +
            'A secret is shown once, when the merchant is created or its secret rotated.',
          credentials.usedBasic ? { 'www-authenticate': `Basic realm="${REALM}"` } : {},
        );
      }
      return reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' }).send(result.value);
    },
  );
}
