import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.ts';
import { registerEventRoutes } from '../events/routes.ts';
import { registerMerchantRoutes } from '../merchants/routes.ts';
import { registerPaymentRoutes } from '../payments/routes.ts';
import { registerSandboxControlRoutes } from '../sandbox-controls/routes.ts';
import { registerTopupRoutes } from '../topups/routes.ts';
import { registerWalletRoutes } from '../wallets/routes.ts';
import { registerWebhookRoutes } from '../webhooks/routes.ts';
import { bearerAuth } from './auth.ts';
import { refuseControlCharactersInQuery } from './query.ts';
import { merchantRateLimit } from './rate-limit.ts';

/** Every /v1 route: Bearer authentication, the per-merchant rate limit, the query-string guard, then the domain routes. */
export async function registerV1(v1: FastifyInstance, deps: Deps): Promise<void> {
  v1.addHook('onRequest', bearerAuth(deps.services.oauth));
  v1.addHook('onRequest', merchantRateLimit(deps.config.rateLimitPerS));
  v1.addHook('preValidation', refuseControlCharactersInQuery);
  registerMerchantRoutes(v1, deps.services);
  registerWalletRoutes(v1, deps.services);
  registerPaymentRoutes(v1, deps.services);
  registerTopupRoutes(v1, deps.services);
  registerSandboxControlRoutes(v1, deps.services);
  registerEventRoutes(v1, deps.services);
  registerWebhookRoutes(v1, deps.services);
}
