import formbody from '@fastify/formbody';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import type { Deps } from './deps.ts';
import { registerErrorHandler } from './http/error-handler.ts';
import { registerJsonParser } from './http/json-body.ts';
import { rawNotFound, registerNotFound } from './http/not-found.ts';
import { registerRequestHooks } from './http/request-hooks.ts';
import { registerV1 } from './http/v1.ts';
import { registerOAuthRoutes } from './oauth/routes.ts';
import { registerOpenApi } from './ops/openapi.ts';
import { registerOpsRoutes } from './ops/routes.ts';
import { registerProviderCallbackRoutes } from './provider-callbacks/routes.ts';
import { newId } from './shared/ids.ts';

export const API_VERSION = '1.0.0';

export async function createApp(deps: Deps) {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    genReqId: () => newId('request'),
    requestIdHeader: false,
    // One lean line per request is written by the onResponse hook instead of Fastify's two.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    bodyLimit: 16 * 1024,
    requestTimeout: 30_000,
    connectionTimeout: 60_000,
    keepAliveTimeout: 5_000,
    return503OnClosing: false, // closing is answered by http/drain.ts (main.ts), in the contract's envelope
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 500, onBadUrl: rawNotFound, onMaxParamLength: rawNotFound },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  // Fastify has no option for it; a client that dribbles headers is cut off after 10 s.
  app.server.headersTimeout = 10_000;
  // Node checks both timeouts only every connectionsCheckingInterval (30 s by default), which let
  // slow clients stay 27 s (headers) and 57 s (bodies); checked every second, they hold.
  (app.server as { connectionsCheckingInterval?: number }).connectionsCheckingInterval = 1_000;

  registerRequestHooks(app, deps);
  registerJsonParser(app);
  registerErrorHandler(app);
  registerNotFound(app);
  await registerOpenApi(app);

  await app.register(async (token) => {
    // Form bodies only for the token endpoint; every /v1 route takes JSON alone.
    await token.register(formbody, { bodyLimit: 4 * 1024 });
    registerOAuthRoutes(token, deps.services);
  });
  registerOpsRoutes(app, deps);
  // A scope of its own: the callback route keeps the raw body (the provider signs the bytes).
  await app.register(async (callbacks) => registerProviderCallbackRoutes(callbacks, deps.services));
  await app.register(async (v1) => registerV1(v1, deps), { prefix: '/v1' });

  return app;
}

export type App = Awaited<ReturnType<typeof createApp>>;
