import { Type } from 'typebox';
import { EVENT_TYPES } from '../events/store.ts';
import { IdParams } from '../http/params.ts';
import type { RouteApp } from '../http/route-app.ts';
import { errorResponses } from '../ops/openapi.ts';
import { ListQuery, listResponseSchema, readPageRequest } from '../shared/pagination.ts';
import type { WebhookService } from './service.ts';

const CreateEndpointBody = Type.Object(
  {
    url: Type.String({
      maxLength: 2048,
      description: 'Absolute http(s) URL without credentials; its host must resolve to a public address.',
    }),
    events: Type.Optional(
      Type.Array(Type.Union([...EVENT_TYPES.map((t) => Type.Literal(t)), Type.Literal('*')]), {
        minItems: 1,
        maxItems: 10,
        description: 'Event types to receive; absent or ["*"]: all. An empty list is refused (400).',
      }),
    ),
    description: Type.Optional(Type.String({ maxLength: 255 })),
  },
  { additionalProperties: false },
);

export const EndpointView = Type.Object(
  {
    id: Type.String({ examples: ['whe_01jd6x8v1ffq8v2k3m4n5p6q7r'] }),
    object: Type.Literal('webhook_endpoint'),
    url: Type.String(),
    events: Type.Array(Type.String()),
    description: Type.Union([Type.String(), Type.Null()]),
    status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')], {
      description: 'disabled after the endpoint answered 410 Gone.',
    }),
    livemode: Type.Boolean(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    secret: Type.Optional(Type.String({ description: 'whsec_…: only in the create and rotate_secret answers.' })),
  },
  { $id: 'WebhookEndpoint' },
);

const UpdateEndpointBody = Type.Object(
  {
    url: Type.Optional(CreateEndpointBody.properties.url),
    events: Type.Optional(CreateEndpointBody.properties.events),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    status: Type.Optional(
      Type.Union([Type.Literal('enabled'), Type.Literal('disabled')], {
        description: '"enabled" brings back an endpoint disabled by a 410 answer; "disabled" pauses deliveries.',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

const WebhookSecretView = Type.Object({
  object: Type.Literal('webhook_secret'),
  secret: Type.String({ description: 'whsec_…: signs deliveries to the callback_url of payments and top-ups.' }),
});

/** Answers that carry a secret are never kept by a cache or a proxy. */
const noStore = { 'cache-control': 'no-store' };
const PageQuery = Type.Object(ListQuery, { additionalProperties: false });

export function registerWebhookRoutes(app: RouteApp, deps: { webhooks: WebhookService }): void {
  app.addSchema(EndpointView);
  const tags = ['Webhooks'];
  const one = { 200: { $ref: 'WebhookEndpoint#' }, ...errorResponses(401, 404, 429) };

  app.post(
    '/webhook_endpoints',
    {
      schema: {
        operationId: 'createWebhookEndpoint',
        tags,
        summary: 'Register a webhook endpoint',
        description:
          'Deliveries are signed per Standard Webhooks (webhook-id = event id, webhook-timestamp, webhook-signature v1,<base64 HMAC-SHA256> ' +
          'over id.timestamp.body). At-least-once, no ordering promise, 10 s timeout, redirects not followed, retried with exponential ' +
          'back-off and jitter for about three days; any 2xx counts as delivered; 410 disables the endpoint. At most 16 endpoints per merchant and mode (400 limit_exceeded); events [] is refused.',
        body: CreateEndpointBody,
        response: {
          201: { description: 'Created; `secret` is shown only here.', $ref: 'WebhookEndpoint#' },
          ...errorResponses(400, 401, 413, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const endpoint = await deps.webhooks.createEndpoint(request.auth, request.body);
      return reply.status(201).headers(noStore).header('location', `/v1/webhook_endpoints/${endpoint.id}`).send(endpoint);
    },
  );
  app.get(
    '/webhook_endpoints',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        tags,
        summary: 'List webhook endpoints',
        querystring: PageQuery,
        response: { 200: listResponseSchema('WebhookEndpoint'), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => deps.webhooks.listEndpoints(request.auth, readPageRequest(request.query, 'webhookEndpoint')),
  );
  app.get(
    '/webhook_endpoints/:id',
    { schema: { operationId: 'getWebhookEndpoint', tags, summary: 'Retrieve a webhook endpoint', params: IdParams, response: one } },
    async (request) => deps.webhooks.getEndpoint(request.auth, request.params.id),
  );
  app.delete(
    '/webhook_endpoints/:id',
    {
      schema: {
        operationId: 'deleteWebhookEndpoint',
        tags,
        summary: 'Delete a webhook endpoint; its pending deliveries are not sent',
        params: IdParams,
        response: {
          200: Type.Object({ id: Type.String(), object: Type.Literal('webhook_endpoint'), deleted: Type.Literal(true) }),
          ...errorResponses(401, 404, 429),
        },
      },
    },
    async (request) => deps.webhooks.deleteEndpoint(request.auth, request.params.id),
  );
  app.post(
    '/webhook_endpoints/:id/rotate_secret',
    {
      schema: {
        operationId: 'rotateWebhookEndpointSecret',
        tags,
        summary: 'Rotate the signing secret',
        description:
          'Answers the endpoint with its new secret. For 24 h the old secret keeps signing too: webhook-signature carries both signatures.',
        params: IdParams,
        response: one,
      },
    },
    async (request, reply) => reply.headers(noStore).send(await deps.webhooks.rotateSecret(request.auth, request.params.id)),
  );
  app.patch(
    '/webhook_endpoints/:id',
    {
      schema: {
        operationId: 'updateWebhookEndpoint',
        tags,
        summary: 'Edit a webhook endpoint',
        description: 'Changes url, events, description or status; only the fields given. A new url is checked like at creation.',
        params: IdParams,
        body: UpdateEndpointBody,
        response: { 200: { $ref: 'WebhookEndpoint#' }, ...errorResponses(400, 401, 404, 413, 415, 429) },
      },
    },
    async (request) => deps.webhooks.updateEndpoint(request.auth, request.params.id, request.body),
  );
  app.post(
    '/webhook_endpoints/:id/test',
    {
      schema: {
        operationId: 'sendTestWebhookEvent',
        tags,
        summary: 'Send a test event to this endpoint',
        description:
          'Creates a `webhook_endpoint.test` event (its object is the endpoint) delivered to this endpoint only, whatever its `events`, ' +
          'signed and retried like every delivery; GET /v1/events/{id}/deliveries shows the attempts. 400 when the endpoint is disabled.',
        params: IdParams,
        response: { 201: { $ref: 'Event#' }, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request, reply) => reply.status(201).send(await deps.webhooks.sendTestEvent(request.auth, request.params.id)),
  );
  app.get(
    '/webhook_secret',
    {
      schema: {
        operationId: 'getWebhookSecret',
        tags,
        summary: "The merchant's default signing secret",
        description:
          'Deliveries to the `callback_url` of a payment or top-up are signed with this secret (endpoints have their own). Cache-Control: no-store.',
        response: { 200: WebhookSecretView, ...errorResponses(401, 429) },
      },
    },
    async (request, reply) => reply.headers(noStore).send(await deps.webhooks.merchantSecret(request.auth)),
  );
  app.post(
    '/webhook_secret/rotate',
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        summary: "Rotate the merchant's default signing secret",
        description: 'Answers the new secret. For 24 h the old secret keeps signing too: webhook-signature carries both signatures.',
        response: { 200: WebhookSecretView, ...errorResponses(401, 429) },
      },
    },
    async (request, reply) => reply.headers(noStore).send(await deps.webhooks.rotateMerchantSecret(request.auth)),
  );
}
