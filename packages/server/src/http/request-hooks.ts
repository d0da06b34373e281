import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../ops/metrics.ts';
import { API_VERSION } from '../shared/api-version.ts';

/** Request-Id and Api-Version on every response; one lean log line and metrics per request. */
export function registerRequestHooks(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('request-id', request.id).header('api-version', API_VERSION);
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    metrics.observeRequest(request.method, route, reply.statusCode, seconds);
    request.log.info(
      { method: request.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request completed',
    );
  });
}
