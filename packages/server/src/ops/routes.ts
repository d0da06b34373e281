import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/db.ts';
import { DatabaseStatus, writablePrimary } from './database-status.ts';
import type { Metrics } from './metrics.ts';
import { errorResponses, serversFor } from './openapi.ts';

const Status = Type.Object({ status: Type.String() });
const Readiness = Type.Object({
  status: Type.String(),
  limits: Type.String({
    description:
      'Where rate limits and failure throttles are counted: "shared through Redis", "per process", or "per process (Redis unreachable: …)".',
  }),
  database: DatabaseStatus,
});

/**
 * Unauthenticated operator endpoints: health, readiness, metrics and the OpenAPI document. A
 * plain instance rather than RouteApp: none of them reads request data, and the generated
 * OpenAPI document is typed by @fastify/swagger, not by the loose schema it is described with.
 */
const LINKS = {
  docs: '/docs',
  dashboard: '/dashboard',
  openapi: '/openapi.json',
  token: '/oauth/token',
  api: '/v1',
};

const LANDING_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Purse</title></head>
<body><h1>Purse</h1><p>A payment API. Start here:</p><ul>
<li><a href="/docs">API reference (try it in the browser)</a></li>
<li><a href="/dashboard">Merchant dashboard</a></li>
<li><a href="/openapi.json">OpenAPI document</a></li>
</ul><p>Get a token at POST /oauth/token with your client id and secret, then call /v1 with it.</p></body></html>
`;

export function registerOpsRoutes(
  app: FastifyInstance,
  deps: { db: Db; metrics: Metrics; publicBaseUrl: string | null; limitsMode: () => { shared: boolean; detail: string } },
): void {
  const common = { tags: ['Operations'], security: [] };
  app.get(
    '/',
    {
      schema: {
        ...common,
        operationId: 'getRoot',
        summary: 'Where to start: links to the documentation, the dashboard and this document',
        description: 'An HTML page for a browser (Accept: text/html), else JSON.',
        response: {
          200: Type.Object({
            name: Type.Literal('Purse'),
            links: Type.Object({
              docs: Type.String(),
              dashboard: Type.String(),
              openapi: Type.String(),
              token: Type.String(),
              api: Type.String(),
            }),
          }),
        },
      },
    },
    async (request, reply) => {
      if ((request.headers.accept ?? '').includes('text/html')) return reply.type('text/html; charset=utf-8').send(LANDING_HTML);
      return { name: 'Purse' as const, links: LINKS };
    },
  );
  app.get('/healthz', { schema: { ...common, operationId: 'getHealth', summary: 'Liveness', response: { 200: Status } } }, async () => ({
    status: 'ok',
  }));

  app.get(
    '/readyz',
    {
      schema: {
        ...common,
        operationId: 'getReadiness',
        summary: 'Readiness: a writable primary answers',
        description:
          'Ready when the database answers and takes writes (not a standby, not read-only: during a failover, 503 until the new primary answers). `database` names the node that answered and how many synchronous standbys it has. With PURSE_REDIS_URL, an unreachable Redis does not make the service unready: limits are then counted per process, and `limits` says so.',
        response: { 200: Readiness, ...errorResponses(503) },
      },
    },
    async () => ({ status: 'ready', limits: deps.limitsMode().detail, database: await writablePrimary(deps.db, deps.metrics) }),
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
    async (request) => ({ ...app.swagger(), servers: serversFor(deps.publicBaseUrl, request) }),
  );
}
