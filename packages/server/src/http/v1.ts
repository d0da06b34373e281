import type { FastifyInstance } from 'fastify';
import type { RouteRequirement } from '../api-keys/scopes.ts';
import type { AddressFailureLimit } from '../limits/address.ts';
import type { WindowCounters } from '../limits/counters.ts';
import type { OAuthService } from '../oauth/service.ts';
import { bearerAuth } from './auth.ts';
import { refuseControlCharactersInQuery } from './query.ts';
import { merchantRateLimit } from './rate-limit.ts';
import { requireScope } from './scope.ts';

/**
 * What every /v1 route goes through before its handler: Bearer authentication, the token's scope, the
 * per-merchant rate limit, the query-string guard. The routes themselves are listed in app.ts, so this layer
 * knows no domain route.
 */
export function addV1Hooks(
  v1: FastifyInstance,
  deps: {
    oauth: OAuthService;
    rateLimitPerS: number;
    counters: WindowCounters;
    addressLimit: AddressFailureLimit;
    /** Each route's scope: "METHOD /v1/path" → scope (route-scopes.ts). */
    scopes: Readonly<Record<string, RouteRequirement>>;
  },
): void {
  v1.addHook('onRequest', bearerAuth(deps.oauth, deps.addressLimit));
  v1.addHook('onRequest', requireScope(deps.scopes));
  v1.addHook('onRequest', merchantRateLimit(deps.rateLimitPerS, deps.counters));
  v1.addHook('preValidation', refuseControlCharactersInQuery);
}
