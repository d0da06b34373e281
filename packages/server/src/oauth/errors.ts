import type { FastifyReply } from 'fastify';

/** RFC 6749 §5.2 error codes the token endpoint answers with, and their HTTP status. */
export const OAUTH_ERROR_STATUS = {
  invalid_request: 400,
  unsupported_grant_type: 400,
  invalid_client: 401,
  too_many_requests: 429,
} as const;

export type OAuthErrorCode = keyof typeof OAUTH_ERROR_STATUS;

/** The token endpoint's error: `{"error","error_description"}`, which OAuth libraries parse. */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }

  static of(code: OAuthErrorCode, description: string, headers?: Record<string, string>): OAuthError {
    return new OAuthError(OAUTH_ERROR_STATUS[code], code, description, headers);
  }

  send(reply: FastifyReply): FastifyReply {
    return reply
      .status(this.status)
      .headers({ 'cache-control': 'no-store', pragma: 'no-cache', ...this.headers })
      .send({ error: this.code, error_description: this.description });
  }
}
