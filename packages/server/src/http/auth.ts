import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AddressFailureLimit } from '../limits/address.ts';
import { ACCESS_TOKEN_PREFIX, type AuthContext, type OAuthService } from '../oauth/service.ts';
import { ApiError } from '../shared/errors.ts';
import { ID_PREFIXES } from '../shared/ids.ts';
import { CLIENT_SECRET_PREFIXES } from '../shared/secrets.ts';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
}

const REALM = 'Bearer realm="payments"';
const INVALID = `${REALM}, error="invalid_token"`;

const GET_ONE = 'get one at POST /oauth/token';
const SEND_IT = 'send "Authorization: Bearer <access_token>"';

const MESSAGES = {
  token_invalid: `The access token is invalid or has been revoked; ${GET_ONE}.`,
  token_expired: 'The access token has expired; request a new one at /oauth/token.',
} as const;

const CLIENT_SECRET = new RegExp(`^(${Object.values(CLIENT_SECRET_PREFIXES).join('|')})_`);
const CLIENT_ID = new RegExp(`^${ID_PREFIXES.client}_`);

/**
 * The usual mistakes, told apart by shape alone (no lookup, so they reveal nothing about any
 * account), with what to do instead; the value sent is never repeated. null: an ordinary invalid token.
 */
function mistakeIn(token: string): string | null {
  if (CLIENT_SECRET.test(token)) {
    return `This is a client secret, not an access token: exchange it (with your client_id) at POST /oauth/token first, then ${SEND_IT}.`;
  }
  if (CLIENT_ID.test(token))
    return `This is a client id, not an access token: exchange your client credentials at POST /oauth/token first, then ${SEND_IT}.`;
  if (token === '') return `The Authorization header has no token after Bearer (is the variable that should hold it empty?); ${GET_ONE}.`;
  if (token === 'undefined' || token === 'null')
    return `The token is the text "${token}": the variable that should hold it was not set; ${GET_ONE}.`;
  if (/^bearer\b/i.test(token)) return `The Authorization header says Bearer twice; ${SEND_IT}.`;
  if (/^["']/.test(token)) return `The token must not be in quotes: ${SEND_IT}.`;
  return null;
}

/** An Authorization header that is not "Bearer <token>" at all. */
function wrongScheme(header: string): string {
  const value = header.trim();
  if (/^basic\s/i.test(value))
    return `Basic client credentials are for POST /oauth/token only: exchange them there for an access token, then ${SEND_IT}.`;
  if (/^bearer/i.test(value)) return `Put a space between Bearer and the token: ${SEND_IT}.`;
  if (value.startsWith(`${ACCESS_TOKEN_PREFIX}_`)) return `The word Bearer is missing before the token: ${SEND_IT}.`;
  return mistakeIn(value) ?? `The Authorization header must use the Bearer scheme: ${SEND_IT}.`;
}

/**
 * onRequest hook for merchant routes (RFC 6750). Runs before the body is read, so an
 * unauthenticated caller costs no parsing. No `error=` when no token was sent at all.
 * An address over its limit of failed requests is refused before anything else (no database
 * work); each refusal here counts against the address.
 */
export function bearerAuth(oauth: OAuthService, addressLimit: AddressFailureLimit) {
  const refuse = async (request: FastifyRequest, error: ApiError): Promise<never> => {
    const waitS = await addressLimit.failed(request.ip);
    if (waitS > 0) throw tooManyFailures(waitS);
    throw error;
  };
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const waitS = await addressLimit.retryAfterS(request.ip);
    if (waitS > 0) throw tooManyFailures(waitS);
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') {
      return refuse(
        request,
        new ApiError('token_missing', `This route needs an access token: ${GET_ONE}, then ${SEND_IT}.`, {
          headers: { 'www-authenticate': REALM },
        }),
      );
    }
    const match = /^bearer(?:[ \t]+(.*))?$/i.exec(header.trim());
    if (!match) {
      return refuse(request, new ApiError('token_invalid', wrongScheme(header), { headers: { 'www-authenticate': INVALID } }));
    }
    const token = (match[1] ?? '').trim();
    const result = await oauth.authenticate(token);
    if (!result.ok) {
      const message = (result.error === 'token_invalid' ? mistakeIn(token) : null) ?? MESSAGES[result.error];
      return refuse(request, new ApiError(result.error, message, { headers: { 'www-authenticate': INVALID } }));
    }
    const userAgent = request.headers['user-agent'];
    request.auth = {
      ...result.value,
      origin: { ip: request.ip, userAgent: userAgent === undefined ? null : userAgent.slice(0, 512), requestId: request.id },
    };
  };
}

function tooManyFailures(retryAfterS: number): ApiError {
  return new ApiError('rate_limited', `Too many failed or unauthenticated requests from this address; retry in ${retryAfterS} s.`, {
    headers: { 'retry-after': String(retryAfterS) },
  });
}
