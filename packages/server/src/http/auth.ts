import type { FastifyReply, FastifyRequest } from 'fastify';
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
 */
export function bearerAuth(oauth: OAuthService) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') {
      throw new ApiError('token_missing', 'Send an access token as "Authorization: Bearer <token>".', {
        headers: { 'www-authenticate': REALM },
      });
    }
    const match = /^bearer(?:[ \t]+(.*))?$/i.exec(header.trim());
    if (!match) {
      throw new ApiError('token_invalid', 'The Authorization header must use the Bearer scheme.', {
        headers: { 'www-authenticate': INVALID },
      });
    }
    const result = await oauth.authenticate((match[1] ?? '').trim());
    if (!result.ok) throw new ApiError(result.error, MESSAGES[result.error], { headers: { 'www-authenticate': INVALID } });
    request.auth = result.value;
  };
}
