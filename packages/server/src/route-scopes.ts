import type { RouteRequirement } from './api-keys/scopes.ts';

/**
 * The scope every /v1 route demands, in one table (docs/api.md, keys). A route missing here is
 * refused to every token (403) and fails test/auth/route-scopes.test.ts, which compares this table
 * with the routes Fastify registered; so adding a route means deciding its scope here.
 *
 * Reads of money (payments, top-ups, refunds, payouts, balance, events) need payments:read; reads
 * of wallets and transfers wallets:read. Webhook endpoints have no read scope of their own: their
 * routes all need webhooks:write (the signing secret is readable there). Sandbox helpers need the
 * write scope of the object they settle. The audit log needs `all`; keys need `all` or a dashboard
 * role that manages keys (`manage_keys`: developer, limited to keys within its own scopes).
 */
export const ROUTE_SCOPES: Readonly<Record<string, RouteRequirement>> = {
  'GET /v1/merchant': 'authenticated',

  'POST /v1/wallets': 'wallets:write',
  'GET /v1/wallets/:id': 'wallets:read',
  'GET /v1/wallets': 'wallets:read',
  'GET /v1/wallets/:id/transactions': 'wallets:read',
  'POST /v1/wallets/:id/freeze': 'wallets:write',
  'POST /v1/wallets/:id/unfreeze': 'wallets:write',
  'GET /v1/balance': 'payments:read',

  'POST /v1/payments': 'payments:write',
  'GET /v1/payments/:id': 'payments:read',
  'GET /v1/payments': 'payments:read',
  'POST /v1/payments/:id/capture': 'payments:write',
  'POST /v1/payments/:id/cancel': 'payments:write',

  'POST /v1/topups': 'payments:write',
  'GET /v1/topups/:id': 'payments:read',
  'GET /v1/topups': 'payments:read',

  'POST /v1/refunds': 'refunds:write',
  'GET /v1/refunds/:id': 'payments:read',
  'GET /v1/refunds': 'payments:read',

  'POST /v1/payouts': 'payouts:write',
  'GET /v1/payouts/:id': 'payments:read',
  'GET /v1/payouts': 'payments:read',

  'POST /v1/transfers': 'wallets:write',
  'GET /v1/transfers/:id': 'wallets:read',
  'GET /v1/transfers': 'wallets:read',

  // Hosted checkout: a session or a link creates payments (on the payer's behalf), so creating,
  // expiring or switching one needs payments:write; reading them payments:read.
  'POST /v1/checkout_sessions': 'payments:write',
  'GET /v1/checkout_sessions/:id': 'payments:read',
  'GET /v1/checkout_sessions': 'payments:read',
  'POST /v1/checkout_sessions/:id/expire': 'payments:write',
  'POST /v1/payment_links': 'payments:write',
  'GET /v1/payment_links/:id': 'payments:read',
  'PATCH /v1/payment_links/:id': 'payments:write',
  'GET /v1/payment_links': 'payments:read',

  'GET /v1/balance_transactions': 'payments:read',

  'POST /v1/sandbox/payments/:id/succeed': 'payments:write',
  'POST /v1/sandbox/payments/:id/fail': 'payments:write',
  'POST /v1/sandbox/topups/:id/succeed': 'payments:write',
  'POST /v1/sandbox/topups/:id/fail': 'payments:write',
  'POST /v1/sandbox/refunds/:id/succeed': 'refunds:write',
  'POST /v1/sandbox/refunds/:id/fail': 'refunds:write',
  'POST /v1/sandbox/payouts/:id/succeed': 'payouts:write',
  'POST /v1/sandbox/payouts/:id/fail': 'payouts:write',

  'GET /v1/events': 'payments:read',
  'GET /v1/events/:id': 'payments:read',
  'GET /v1/events/:id/deliveries': 'payments:read',
  'POST /v1/events/:id/redeliver': 'webhooks:write',

  'POST /v1/webhook_endpoints': 'webhooks:write',
  'GET /v1/webhook_endpoints': 'webhooks:write',
  'GET /v1/webhook_endpoints/:id': 'webhooks:write',
  'DELETE /v1/webhook_endpoints/:id': 'webhooks:write',
  'POST /v1/webhook_endpoints/:id/rotate_secret': 'webhooks:write',
  'PATCH /v1/webhook_endpoints/:id': 'webhooks:write',
  'POST /v1/webhook_endpoints/:id/test': 'webhooks:write',
  'GET /v1/webhook_secret': 'webhooks:write',
  'POST /v1/webhook_secret/rotate': 'webhooks:write',

  'GET /v1/api_keys': 'manage_keys',
  'POST /v1/api_keys': 'manage_keys',
  'GET /v1/api_keys/:id': 'manage_keys',
  'POST /v1/api_keys/:id/roll': 'manage_keys',
  'DELETE /v1/api_keys/:id': 'manage_keys',

  'GET /v1/audit_events': 'all',
};
