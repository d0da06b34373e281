import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AddressFailureLimit } from '../limits/address.ts';
import type { AuthContext, OAuthService } from '../oauth/service.ts';
import { ApiError } from '../shared/errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
}

const REALM = 'Bearer realm="payments"';
const INVALID = `${REALM}, error="invalid_token"`;

const MESSAGES = {
  token_invalid: 'The access token is invalid or has been revoked.',
  token_expired: 'The access token has expired; request a new one at /oauth/token.',
} as const;

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
        new ApiError('token_missing', 'Send an access token as "Authorization: Bearer <token>".', {
          headers: { 'www-authenticate': REALM },
        }),
      );
    }
    const match = /^bearer(?:[ \t]+(.*))?$/i.exec(header.trim());
    if (!match) {
      return refuse(
        request,
        new ApiError('token_invalid', 'The Authorization header must use the Bearer scheme.', { headers: { 'www-authenticate': INVALID } }),
      );
    }
    const result = await oauth.authenticate((match[1] ?? '').trim());
    if (!result.ok)
      return refuse(request, new ApiError(result.error, MESSAGES[result.error], { headers: { 'www-authenticate': INVALID } }));
    request.auth = result.value;
  };
}

function tooManyFailures(retryAfterS: number): ApiError {
  return new ApiError('rate_limited', `Too many failed or unauthenticated requests from this address; retry in ${retryAfterS} s.`, {
    headers: { 'retry-after': String(retryAfterS) },
  });
}
