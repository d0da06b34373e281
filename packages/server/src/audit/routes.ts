import { Type } from 'typebox';
import type { RouteApp } from '../http/route-app.ts';
import { errorResponses } from '../ops/openapi.ts';
import { ListQuery, listResponseSchema, readPageRequest } from '../shared/pagination.ts';
import { type AuditService, readAuditFilters } from './service.ts';

const Nullable = (schema: ReturnType<typeof Type.String>) => Type.Union([schema, Type.Null()]);

const AuditEventView = Type.Object(
  {
    id: Type.String({ examples: ['aud_01jd6x8v1ffq8v2k3m4n5p6q7r'] }),
    object: Type.Literal('audit_event'),
    action: Type.String({ examples: ['api_key.created', 'refund.created', 'merchant.secret_rotated'] }),
    actor: Type.Object({
      type: Type.Union([Type.Literal('user'), Type.Literal('api_key'), Type.Literal('operator')]),
      id: Nullable(Type.String({ description: 'The key or user id; null for the operator.' })),
      email: Type.Optional(Type.String()),
    }),
    target: Type.Object({ type: Type.String(), id: Type.String() }),
    ip_address: Nullable(Type.String()),
    user_agent: Nullable(Type.String()),
    request_id: Nullable(Type.String()),
    changes: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'AuditEvent' },
);

const AuditQuery = Type.Object(
  {
    ...ListQuery,
    action: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    actor_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    created_gte: Type.Optional(Type.String({ maxLength: 40, description: 'RFC 3339 time: created at or after.' })),
    created_lte: Type.Optional(Type.String({ maxLength: 40, description: 'RFC 3339 time: created at or before.' })),
  },
  { additionalProperties: false },
);

export function registerAuditRoutes(app: RouteApp, deps: { audit: AuditService }): void {
  app.addSchema(AuditEventView);
  app.get(
    '/audit_events',
    {
      schema: {
        operationId: 'listAuditEvents',
        tags: ['Audit log'],
        summary: "The merchant's audit log, newest first",
        description:
          'Security-relevant acts (keys, webhook endpoints, refunds, payouts, wallet freezes, the operator’s changes to the ' +
          'merchant), each written in the same transaction as the act and chained by hash (`purse audit verify`). Scope all.',
        querystring: AuditQuery,
        response: { 200: listResponseSchema('AuditEvent'), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => deps.audit.list(request.auth, readAuditFilters(request.query), readPageRequest(request.query, 'auditEvent')),
  );
}
