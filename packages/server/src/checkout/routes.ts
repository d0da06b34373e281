import { CREATE_RESPONSES, sendCreated } from '../http/created.ts';
import { refuseBody } from '../http/no-body.ts';
import { IdParams } from '../http/params.ts';
import type { RouteApp } from '../http/route-app.ts';
import { errorResponses } from '../ops/openapi.ts';
import { listResponseSchema, NoQuery, readPageRequest } from '../shared/pagination.ts';
import { CheckoutSessionView, CreateCheckoutSessionBody, readSessionFilters, SessionListQuery } from './schemas.ts';
import type { CheckoutService } from './service.ts';

export function registerCheckoutSessionRoutes(app: RouteApp, deps: { checkout: CheckoutService }): void {
  app.addSchema(CheckoutSessionView);
  const tags = ['Checkout sessions'];

  app.post(
    '/checkout_sessions',
    {
      schema: {
        operationId: 'createCheckoutSession',
        tags,
        summary: 'Open a hosted checkout session',
        description:
          'Send the payer to `url`: a page Purse hosts, where the payer pays by card (3-D Secure included) or mobile money; ' +
          "the card goes only to Purse. Each attempt is a payment of the merchant whose reference is the session's plus " +
          "`/attempt-N`; after 5 failed attempts the session expires. The session completes from the payment's server-side " +
          'state (never from the browser), with checkout_session.completed; the browser then goes to success_url with ' +
          '?session_id=…. `reference` rules are those of payments, scoped to checkout sessions.',
        body: CreateCheckoutSessionBody,
        response: {
          200: { description: CREATE_RESPONSES[200], $ref: 'CheckoutSession#' },
          201: { description: 'Created: the session is open.', $ref: 'CheckoutSession#' },
          ...errorResponses(400, 401, 409, 413, 415, 429, 503),
        },
      },
    },
    async (request, reply) => sendCreated(reply, await deps.checkout.createSession(request.auth, request.body), 'checkout_sessions'),
  );

  app.get(
    '/checkout_sessions/:id',
    {
      schema: {
        operationId: 'getCheckoutSession',
        tags,
        summary: 'Retrieve a checkout session',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: { $ref: 'CheckoutSession#' }, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => deps.checkout.getSession(request.auth, request.params.id),
  );

  registerListAndExpire(app, deps, tags);
}

function registerListAndExpire(app: RouteApp, deps: { checkout: CheckoutService }, tags: string[]): void {
  app.get(
    '/checkout_sessions',
    {
      schema: {
        operationId: 'listCheckoutSessions',
        tags,
        summary: 'List checkout sessions, newest first',
        querystring: SessionListQuery,
        response: { 200: listResponseSchema('CheckoutSession'), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) =>
      deps.checkout.listSessions(request.auth, readSessionFilters(request.query), readPageRequest(request.query, 'checkoutSession')),
  );

  app.post(
    '/checkout_sessions/:id/expire',
    {
      schema: {
        operationId: 'expireCheckoutSession',
        tags,
        summary: 'Expire an open checkout session',
        description:
          'No body (or an empty JSON object). The page stops taking payments; checkout_session.expired is sent. An expired session answers as it is. A complete ' +
          'session, or one whose payment is still under way (mobile money waiting for the payer, 3-D Secure), is 409 ' +
          'checkout_session_invalid_state: that payment decides first.',
        params: IdParams,
        querystring: NoQuery,
        response: {
          200: { $ref: 'CheckoutSession#' },
          409: { description: 'checkout_session_invalid_state', $ref: 'Error#' },
          ...errorResponses(400, 401, 404, 413, 415, 429),
        },
      },
    },
    async (request) => {
      refuseBody(request.body);
      return deps.checkout.expireSession(request.auth, request.params.id);
    },
  );
}
