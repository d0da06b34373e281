import { Type } from 'typebox';
import { IdParams } from '../http/params.ts';
import type { RouteApp } from '../http/route-app.ts';
import { errorResponses } from '../ops/openapi.ts';
import { ListQuery, listResponseSchema, NoQuery, readPageRequest } from '../shared/pagination.ts';
import { API_KEY_SCOPES } from './scopes.ts';
import { type ApiKeyService, MAX_OVERLAP_S } from './service.ts';

const Scope = Type.Union(
  API_KEY_SCOPES.map((s) => Type.Literal(s)),
  { description: 'payments:read, payments:write, refunds:write, payouts:write, wallets:read, wallets:write, webhooks:write or all.' },
);

const ApiKeyView = Type.Object(
  {
    id: Type.String({ examples: ['key_01jd6x8v1ffq8v2k3m4n5p6q7r'] }),
    object: Type.Literal('api_key'),
    name: Type.String(),
    client_id: Type.String({ description: 'The client_id to send to POST /oauth/token with this key’s secret.' }),
    scopes: Type.Array(Type.String()),
    status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
    livemode: Type.Boolean(),
    previous_secret_expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'After a roll with an overlap: until when the previous secret (and its tokens) still work.',
    }),
    created_at: Type.String({ format: 'date-time' }),
    revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    client_secret: Type.Optional(Type.String({ description: 'Only in the create and roll answers: shown once, stored only as a hash.' })),
  },
  { $id: 'ApiKey', additionalProperties: false },
);

const CreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
    scopes: Type.Array(Scope, { minItems: 1, maxItems: 8 }),
  },
  { additionalProperties: false },
);

const RollBody = Type.Object(
  {
    overlap_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_OVERLAP_S,
        description: 'How long the previous secret and its tokens keep working (default 0: they stop now). At most 7 days.',
      }),
    ),
  },
  { additionalProperties: false },
);

const PageQuery = Type.Object(ListQuery, { additionalProperties: false });

/** A POST without a body validates as {} (roll's overlap is optional, and so is its body). */
async function emptyBodyAsObject(request: { body: unknown }): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

export function registerApiKeyRoutes(app: RouteApp, deps: { apiKeys: ApiKeyService }): void {
  app.addSchema(ApiKeyView);
  const tags = ['API keys'];
  const one = { 200: { $ref: 'ApiKey#' }, ...errorResponses(400, 401, 404, 409, 429) };

  app.get(
    '/api_keys',
    {
      schema: {
        operationId: 'listApiKeys',
        tags,
        summary: "List the merchant's API keys, newest first (revoked ones included)",
        querystring: PageQuery,
        response: { 200: listResponseSchema('ApiKey'), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => deps.apiKeys.list(request.auth, readPageRequest(request.query, 'apiKey')),
  );
  app.post(
    '/api_keys',
    {
      schema: {
        operationId: 'createApiKey',
        tags,
        summary: 'Create an API key with a name and scopes; its client_secret is shown in this answer only',
        description:
          'Exchange the client_id and client_secret at POST /oauth/token as with any client credential: the token carries the ' +
          "key's scopes, and a route outside them answers 403 insufficient_scope. Needs scope all, or a developer's dashboard " +
          'session token, which creates, rolls and revokes only keys within its own scopes (else 403 insufficient_scope).',
        body: CreateBody,
        response: { 201: { $ref: 'ApiKey#' }, ...errorResponses(400, 401, 413, 415, 429) },
      },
    },
    async (request, reply) => reply.code(201).send(await deps.apiKeys.create(request.auth, request.body)),
  );
  registerKeyRoutes(app, deps, one);
}

function registerKeyRoutes(app: RouteApp, deps: { apiKeys: ApiKeyService }, one: Record<number, unknown>): void {
  const tags = ['API keys'];
  app.get(
    '/api_keys/:id',
    { schema: { operationId: 'getApiKey', tags, summary: 'Retrieve an API key', params: IdParams, querystring: NoQuery, response: one } },
    async (request) => deps.apiKeys.get(request.auth, request.params.id),
  );
  app.post(
    '/api_keys/:id/roll',
    {
      schema: {
        operationId: 'rollApiKey',
        tags,
        summary: 'Give an API key a new secret (shown once); the old one may keep working for an overlap',
        description:
          'Without overlap_seconds the old secret and every token issued with it stop at once (within 5 s on every process); ' +
          'with it they stop when the overlap ends. A revoked key cannot be rolled (409 invalid_state).',
        params: IdParams,
        body: RollBody,
        response: one,
      },
      preValidation: emptyBodyAsObject,
    },
    async (request) => deps.apiKeys.roll(request.auth, request.params.id, request.body.overlap_seconds ?? 0),
  );
  app.delete(
    '/api_keys/:id',
    {
      schema: {
        operationId: 'revokeApiKey',
        tags,
        summary: 'Revoke an API key: its secret and its tokens stop working within 5 s on every process',
        description: 'The key stays listed with status revoked. Revoking it again answers the same.',
        params: IdParams,
        querystring: NoQuery,
        response: one,
      },
    },
    async (request) => deps.apiKeys.revoke(request.auth, request.params.id),
  );
}
