import { Type } from 'typebox';
import { IdParams } from '../http/params.ts';
import type { RouteApp } from '../http/route-app.ts';
import { errorResponses } from '../ops/openapi.ts';
import { ListQuery, listResponseSchema, readPageRequest } from '../shared/pagination.ts';
import type { EventService } from './service.ts';
import { EVENT_TYPES } from './store.ts';

export const EventView = Type.Object(
  {
    id: Type.String({ examples: ['evt_01jd6x8v1ffq8v2k3m4n5p6q7r'] }),
    object: Type.Literal('event'),
    type: Type.String({ examples: ['payment.succeeded'] }),
    livemode: Type.Boolean(),
    created_at: Type.String({ format: 'date-time' }),
    data: Type.Object({
      object: Type.Object({}, { additionalProperties: true, description: 'The payment or top-up as it was at this change.' }),
    }),
  },
  { $id: 'Event', description: 'One state change. Its id is the webhook-id header of every delivery of it.' },
);

export const DeliveryView = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('webhook_delivery'),
    event_id: Type.String(),
    webhook_endpoint_id: Type.Union([Type.String(), Type.Null()], { description: "null: the object's callback_url." }),
    url: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
    attempt_count: Type.Integer(),
    next_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    last_status_code: Type.Union([Type.Integer(), Type.Null()]),
    last_error: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    delivered_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    attempts: Type.Array(
      Type.Object({
        attempted_at: Type.String({ format: 'date-time' }),
        status_code: Type.Union([Type.Integer(), Type.Null()]),
        latency_ms: Type.Integer(),
        error: Type.Union([Type.String(), Type.Null()], { examples: ['HTTP 400'] }),
        response_excerpt: Type.Union([Type.String({ maxLength: 200 }), Type.Null()], {
          description:
            "The start of the endpoint's answer when it was not 2xx: at most 200 characters, tabs and line breaks as spaces, " +
            'other control characters as U+FFFD. null when the attempt was delivered, got no answer, or the answer had no body.',
          examples: ['{"error":"invalid signature"}'],
        }),
      }),
    ),
  },
  { $id: 'WebhookDelivery' },
);

const EventListQuery = Type.Object(
  {
    ...ListQuery,
    type: Type.Optional(Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)))),
    object_id: Type.Optional(Type.String({ maxLength: 64, description: 'Only the events of this payment or top-up.' })),
  },
  { additionalProperties: false },
);

export function registerEventRoutes(app: RouteApp, deps: { events: EventService }): void {
  app.addSchema(EventView);
  app.addSchema(DeliveryView);
  const tags = ['Events'];
  const deliveries = { 200: listResponseSchema('WebhookDelivery'), ...errorResponses(401, 404, 429) };

  app.get(
    '/events',
    {
      schema: {
        operationId: 'listEvents',
        tags,
        summary: 'List events, newest first',
        querystring: EventListQuery,
        response: { 200: listResponseSchema('Event'), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      return deps.events.listEvents(
        request.auth,
        { ...(q.type ? { type: q.type } : {}), ...(q.object_id ? { objectId: q.object_id } : {}) },
        readPageRequest(q, 'event'),
      );
    },
  );
  app.get(
    '/events/:id',
    {
      schema: {
        operationId: 'getEvent',
        tags,
        summary: 'Retrieve an event',
        params: IdParams,
        response: { 200: { $ref: 'Event#' }, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => deps.events.getEvent(request.auth, request.params.id),
  );
  app.get(
    '/events/:id/deliveries',
    {
      schema: {
        operationId: 'listEventDeliveries',
        tags,
        summary: "The event's webhook deliveries and every attempt",
        params: IdParams,
        response: deliveries,
      },
    },
    async (request) => deps.events.listDeliveries(request.auth, request.params.id),
  );
  app.post(
    '/events/:id/redeliver',
    {
      schema: {
        operationId: 'redeliverEvent',
        tags,
        summary: 'Send the event again to its endpoints and callback_url',
        description:
          'Every delivery of the event becomes due now (delivered ones too); enabled endpoints added since get a delivery. Answers the deliveries.',
        params: IdParams,
        response: deliveries,
      },
    },
    async (request) => deps.events.redeliver(request.auth, request.params.id),
  );
}
