import type { FastifyInstance } from 'fastify';
import type { OAuthService } from '../oauth/service.ts';
import { bearerAuth } from './auth.ts';
import { refuseControlCharactersInQuery } from './query.ts';
import { merchantRateLimit } from './rate-limit.ts';

/**
 * What every /v1 route goes through before its handler: Bearer authentication, the per-merchant
 * rate limit, the query-string guard. The routes themselves are listed in app.ts, so this layer
 * knows no domain route.
 */
export function addV1Hooks(v1: FastifyInstance, deps: { oauth: OAuthService; rateLimitPerS: number }): void {
  v1.addHook('onRequest', bearerAuth(deps.oauth));
  v1.addHook('onRequest', merchantRateLimit(deps.rateLimitPerS));
  v1.addHook('preValidation', refuseControlCharactersInQuery);
}
