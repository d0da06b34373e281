import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import { registerApiKeyRoutes } from './api-keys/routes.ts';
import { registerAuditRoutes } from './audit/routes.ts';
import { registerBalanceTransactionRoutes } from './balance/routes.ts';
import { registerCheckoutSessionRoutes } from './checkout/routes.ts';
import { registerDashboardRoutes } from './dashboard/routes.ts';
import type { Deps } from './deps.ts';
import { registerEventRoutes } from './events/routes.ts';
import { registerErrorHandler } from './http/error-handler.ts';
import { registerJsonParser } from './http/json-body.ts';
import { rawNotFound, registerNotFound } from './http/not-found.ts';
import { registerRequestHooks } from './http/request-hooks.ts';
import type { RouteApp } from './http/route-app.ts';
import { cachedCompilers } from './http/schema-compilers.ts';
import { addV1Hooks } from './http/v1.ts';
import { registerMerchantRoutes } from './merchants/routes.ts';
import { registerOAuthRoutes } from './oauth/routes.ts';
import { registerOpenApi } from './ops/openapi.ts';
import { registerOpsRoutes } from './ops/routes.ts';
import { registerPayRoutes } from './pay/routes.ts';
import { registerPaymentLinkRoutes } from './payment-links/routes.ts';
import { registerCardAuthenticationRoutes } from './payments/authentication-routes.ts';
import { registerPaymentRoutes } from './payments/routes.ts';
import { registerPayoutRoutes } from './payouts/routes.ts';
import { registerProviderCallbackRoutes } from './provider-callbacks/routes.ts';
import { registerRefundRoutes } from './refunds/routes.ts';
import { ROUTE_SCOPES } from './route-scopes.ts';
import { registerSandboxControlRoutes } from './sandbox-controls/routes.ts';
import { newId } from './shared/ids.ts';
import { registerTopupRoutes } from './topups/routes.ts';
import { registerTransferRoutes } from './transfers/routes.ts';
import { registerUserRoutes } from './users/routes.ts';
import { registerWalletRoutes } from './wallets/routes.ts';
import { registerWebhookRoutes } from './webhooks/routes.ts';

export async function createApp(deps: Deps) {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    genReqId: () => newId('request'),
    // request.ip is the peer unless it is a proxy the operator trusts (PURSE_TRUSTED_PROXIES).
    trustProxy: deps.config.trustedProxies.length > 0 ? [...deps.config.trustedProxies] : false,
    requestIdHeader: false,
    // One lean line per request is written by the onResponse hook instead of Fastify's two.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    bodyLimit: 16 * 1024,
    requestTimeout: 30_000,
    connectionTimeout: 60_000,
    keepAliveTimeout: 5_000,
    return503OnClosing: false, // closing is answered by http/drain.ts (main.ts), in the contract's envelope
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 500, onBadUrl: rawNotFound, onMaxParamLength: rawNotFound },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: false, discriminator: true } }, // discriminator: charges/schemas.ts meansInput
    // Fastify's compilers, with each route's compiled validator and serializer kept for the process.
    schemaController: { compilersFactory: cachedCompilers() },
  }).withTypeProvider<TypeBoxTypeProvider>();
  // Fastify has no option for it; a client that dribbles headers is cut off after 10 s.
  app.server.headersTimeout = 10_000;
  // Node checks both timeouts only every connectionsCheckingInterval (30 s by default), which let
  // slow clients stay 27 s (headers) and 57 s (bodies); checked every second, they hold.
  (app.server as { connectionsCheckingInterval?: number }).connectionsCheckingInterval = 1_000;

  registerRequestHooks(app, deps.metrics);
  registerJsonParser(app);
  registerErrorHandler(app);
  registerNotFound(app);
  await registerOpenApi(app, { publicBaseUrl: deps.config.publicBaseUrl });

  const { oauth, providerCallbacks } = deps.services;
  await registerOAuthRoutes(app, { oauth });
  registerOpsRoutes(app, {
    db: deps.db.db,
    metrics: deps.metrics,
    publicBaseUrl: deps.config.publicBaseUrl,
    limitsMode: deps.limits.counters.mode,
  });
  await registerDashboardRoutes(app);
  await registerUserRoutes(app, { users: deps.services.users, publicBaseUrl: deps.config.publicBaseUrl });
  await registerCardAuthenticationRoutes(app, { cardAuthentication: deps.services.cardAuthentication, sandbox: deps.sandboxConnector });
  // A scope of its own: the callback route keeps the raw body (the provider signs the bytes).
  await app.register(async (callbacks) => registerProviderCallbackRoutes(callbacks, { providerCallbacks }));
  await registerPayRoutes(app, { pages: deps.services.payPages, links: deps.services.paymentLinks });
  await app.register(async (v1) => registerV1Routes(v1 as RouteApp, deps), { prefix: '/v1' });

  return app;
}

/** Every domain route is listed here, in the order the OpenAPI document shows them. */
function registerV1Routes(v1: RouteApp, deps: Deps): void {
  const { oauth, merchants, wallets, charges, transfers, outflows, balanceTransactions, sandboxControls, events, webhooks } = deps.services;
  addV1Hooks(v1, {
    oauth,
    rateLimitPerS: deps.config.rateLimitPerS,
    counters: deps.limits.counters,
    addressLimit: deps.limits.addressLimit,
    scopes: ROUTE_SCOPES,
  });
  registerMerchantRoutes(v1, { merchants });
  registerWalletRoutes(v1, { wallets });
  registerPaymentRoutes(v1, { charges, cardOperations: deps.services.cardOperations });
  registerTopupRoutes(v1, { charges });
  registerRefundRoutes(v1, { outflows });
  registerPayoutRoutes(v1, { outflows });
  registerTransferRoutes(v1, { transfers });
  registerCheckoutSessionRoutes(v1, { checkout: deps.services.checkout });
  registerPaymentLinkRoutes(v1, { paymentLinks: deps.services.paymentLinks });
  registerBalanceTransactionRoutes(v1, { balanceTransactions });
  registerSandboxControlRoutes(v1, { sandboxControls });
  registerEventRoutes(v1, { events });
  registerWebhookRoutes(v1, { webhooks });
  registerAccessRoutes(v1, deps);
}

/** API keys and the audit log: who may do what, and who did what. */
function registerAccessRoutes(v1: RouteApp, deps: Deps): void {
  registerApiKeyRoutes(v1, { apiKeys: deps.services.apiKeys });
  registerAuditRoutes(v1, { audit: deps.services.audit });
}

export type App = Awaited<ReturnType<typeof createApp>>;
