import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.ts';
import { registerMerchantRoutes } from '../merchants/routes.ts';
import { registerPaymentRoutes } from '../payments/routes.ts';
import { registerSandboxRoutes } from '../sandbox/routes.ts';
import { registerTopupRoutes } from '../topups/routes.ts';
import { registerWalletRoutes } from '../wallets/routes.ts';
import { bearerAuth } from './auth.ts';
import { merchantRateLimit } from './rate-limit.ts';

/** Every /v1 route: Bearer authentication, then the per-merchant rate limit, then the domain routes. */
export async function registerV1(v1: FastifyInstance, deps: Deps): Promise<void> {
  v1.addHook('onRequest', bearerAuth(deps.services.oauth));
  v1.addHook('onRequest', merchantRateLimit(deps.config.rateLimitPerS));
  registerMerchantRoutes(v1, deps.services);
  registerWalletRoutes(v1, deps.services);
  registerPaymentRoutes(v1, deps.services);
  registerTopupRoutes(v1, deps.services);
  registerSandboxRoutes(v1, deps.services);
}
