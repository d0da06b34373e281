import { CREATE_RESPONSES, sendCreated } from '../http/created.ts';
import { IdParams } from '../http/params.ts';
import type { RouteApp } from '../http/route-app.ts';
import { errorResponses } from '../ops/openapi.ts';
import { CreatePayoutBody, PayoutListQuery, PayoutView, readOutflowFilters } from '../outflows/schemas.ts';
import type { OutflowService } from '../outflows/service.ts';
import { listResponseSchema, NoQuery, readPageRequest } from '../shared/pagination.ts';

export function registerPayoutRoutes(app: RouteApp, deps: { outflows: OutflowService }): void {
  app.addSchema(PayoutView);
  const tags = ['Payouts'];

  app.post(
    '/payouts',
    {
      schema: {
        operationId: 'createPayout',
        tags,
        summary: 'Send money from the available balance',
        description:
          'The amount is taken from the available balance by one conditional statement when the payout is created: not ' +
          'enough gives 201 failed insufficient_funds, and concurrent payouts never overdraw. To one of your wallets: ' +
          'succeeded at once (a frozen wallet gives failed wallet_inactive). To mobile money: pending, the amount reserved, ' +
          'until the provider answers; a failed payout returns the amount to the available balance. Sandbox numbers as for ' +
          'payments (the last three digits; 004 is payee_not_found). `reference` rules are those of payments, scoped to payouts.',
        body: CreatePayoutBody,
        response: {
          200: { description: CREATE_RESPONSES[200], $ref: 'Payout#' },
          201: { description: CREATE_RESPONSES[201], $ref: 'Payout#' },
          ...errorResponses(400, 401, 409, 413, 415, 429, 503),
        },
      },
    },
    async (request, reply) => sendCreated(reply, await deps.outflows.createPayout(request.auth, request.body), 'payouts'),
  );

  app.get(
    '/payouts/:id',
    {
      schema: {
        operationId: 'getPayout',
        tags,
        summary: 'Retrieve a payout',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: { $ref: 'Payout#' }, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => deps.outflows.getOutflow(request.auth, 'payout', request.params.id),
  );

  app.get(
    '/payouts',
    {
      schema: {
        operationId: 'listPayouts',
        tags,
        summary: 'List payouts, newest first',
        querystring: PayoutListQuery,
        response: { 200: listResponseSchema('Payout'), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) =>
      deps.outflows.listOutflows(request.auth, 'payout', readOutflowFilters(request.query), readPageRequest(request.query, 'payout')),
  );
}
