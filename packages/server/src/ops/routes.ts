import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Type } from 'typebox';
import type { Db } from '../db/db.ts';
import { ApiError } from '../shared/errors.ts';
import type { Metrics } from './metrics.ts';
import { errorResponses } from './openapi.ts';

const Status = Type.Object({ status: Type.String() });

/**
 * Unauthenticated operator endpoints: health, readiness, metrics and the OpenAPI document. A
 * plain instance rather than RouteApp: none of them reads request data, and the generated
 * OpenAPI document is typed by @fastify/swagger, not by the loose schema it is described with.
 */
export function registerOpsRoutes(app: FastifyInstance, deps: { db: Db; metrics: Metrics }): void {
  const common = { tags: ['Operations'], security: [] };
  app.get('/healthz', { schema: { ...common, operationId: 'getHealth', summary: 'Liveness', response: { 200: Status } } }, async () => ({
    status: 'ok',
  }));

  app.get(
    '/readyz',
    {
      schema: {
        ...common,
        operationId: 'getReadiness',
        summary: 'Readiness: the database answers',
        response: { 200: Status, ...errorResponses(503) },
      },
    },
    async () => {
      try {
        await sql`SELECT 1`.execute(deps.db);
      } catch {
        throw new ApiError('service_unavailable', 'The database is not reachable.', { headers: { 'retry-after': '2' } });
      }
      return { status: 'ready' };
    },
  );

  app.get(
    '/metrics',
    {
      schema: {
        ...common,
        operationId: 'getMetrics',
        summary: 'Prometheus metrics (text exposition format)',
        produces: ['text/plain'],
        response: { 200: { description: 'Prometheus text format.', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
    async (_request, reply) => {
      const body = await deps.metrics.registry.metrics();
      return reply.type(deps.metrics.registry.contentType).send(body);
    },
  );

  app.get(
    '/openapi.json',
    {
      schema: {
        ...common,
        operationId: 'getOpenApi',
        summary: 'This OpenAPI 3.1 document',
        response: { 200: { description: 'The OpenAPI document.', type: 'object', additionalProperties: true } },
      },
    },
    async () => app.swagger(),
  );
}
