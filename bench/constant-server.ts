// Fastify's own ceiling on this machine: a server that answers constants behind hooks of the same
// weight as Purse's request path, without any database. Its rows (`constant-get`,
// `constant-post`) are what one Node.js process with Fastify can answer per second here; Purse's
// `get` and `token` rows compare with them (ratio lines "Purse get / Fastify constant", …).
//
// - Request ids like Purse's (a generated id per request, answered in a `request-id` header with
//   `api-version`; `cache-control: no-store`), no logging.
// - GET /constant: an onRequest hook reads the Bearer token and looks it up in an in-memory Map
//   (like Purse's cache of verified tokens), 401 without a known token; then a small constant JSON
//   serialised through a response schema.
// - POST /constant: a body shaped like Purse's token request (grant_type, client_id,
//   client_secret) validated by a JSON schema (Ajv, additionalProperties false), answered with a
//   small constant, token-shaped JSON through a response schema. No Bearer (the token route has none).
//
// Env: PORT, CONSTANT_TOKEN (the Bearer token GET /constant accepts).
import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';

const port = Number(process.env.PORT ?? 18202);
const token = process.env.CONSTANT_TOKEN;
if (!token) {
  process.stderr.write('constant-server: CONSTANT_TOKEN is required\n');
  process.exit(1);
}

/** The token cache: token → who it belongs to (Purse caches verified tokens in memory the same way). */
const tokens = new Map<string, { merchantId: string; scopes: string[] }>([[token, { merchantId: 'mer_constant', scopes: ['payments'] }]]);
const authenticated = new WeakMap<object, { merchantId: string }>();

let sequence = 0;
const idPrefix = randomBytes(6).toString('hex');
const app = Fastify({
  logger: false,
  genReqId: () => `req_${idPrefix}${(sequence++).toString(36).padStart(10, '0')}`,
  requestIdHeader: false,
});

app.addHook('onRequest', async (request, reply) => {
  void reply.header('request-id', request.id).header('api-version', '2026-01-01').header('cache-control', 'no-store');
  if (request.method !== 'GET' || request.url === '/healthz') return;
  const header = request.headers.authorization;
  const found = header?.startsWith('Bearer ') ? tokens.get(header.slice(7)) : undefined;
  if (!found) return reply.code(401).send({ error: { type: 'authentication_error', message: 'invalid token' } });
  authenticated.set(request, found);
});

app.get('/healthz', async () => ({ status: 'ok' }));

const constant = { id: 'pay_constant', object: 'payment', status: 'succeeded', amount: '1.00', currency: 'KES', livemode: false };

app.get(
  '/constant',
  {
    schema: {
      response: {
        200: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            object: { type: 'string' },
            status: { type: 'string' },
            amount: { type: 'string' },
            currency: { type: 'string' },
            livemode: { type: 'boolean' },
          },
        },
      },
    },
  },
  async () => constant,
);

app.post(
  '/constant',
  {
    schema: {
      body: {
        type: 'object',
        required: ['grant_type', 'client_id', 'client_secret'],
        additionalProperties: false,
        properties: {
          grant_type: { type: 'string', const: 'client_credentials' },
          client_id: { type: 'string', minLength: 1, maxLength: 200 },
          client_secret: { type: 'string', minLength: 1, maxLength: 200 },
          scope: { type: 'string', maxLength: 200 },
        },
      },
      response: {
        200: {
          type: 'object',
          properties: { access_token: { type: 'string' }, token_type: { type: 'string' }, expires_in: { type: 'integer' } },
        },
      },
    },
  },
  async () => ({ access_token: 'constant', token_type: 'Bearer', expires_in: 3600 }),
);

const shutdown = async () => {
  await app.close();
  process.exit(0);
};
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());

app.listen({ port, host: '127.0.0.1' }).catch((error: unknown) => {
  process.stderr.write(`constant-server: ${String(error)}\n`);
  process.exit(1);
});
