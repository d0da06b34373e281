import { CREATE_RESPONSES, sendCreated } from '../http/created.ts';
import { IdParams } from '../http/params.ts';
import type { RouteApp } from '../http/route-app.ts';
import { errorResponses } from '../ops/openapi.ts';
import { CreateRefundBody, DestinationView, RefundListQuery, RefundView, readOutflowFilters } from '../outflows/schemas.ts';
import type { OutflowService } from '../outflows/service.ts';
import { listResponseSchema, NoQuery, readPageRequest } from '../shared/pagination.ts';

export function registerRefundRoutes(app: RouteApp, deps: { outflows: OutflowService }): void {
  app.addSchema(DestinationView);
  app.addSchema(RefundView);
  const tags = ['Refunds'];

  app.post(
    '/refunds',
    {
      schema: {
        operationId: 'createRefund',
        tags,
        summary: 'Refund a payment, in full or in part',
        description:
          'Only a succeeded payment can be refunded (else 400 payment_not_refundable), and never above what is left of it ' +
          '(400 amount_too_large, param amount): pending and succeeded refunds count, a failed one gives its amount back. The ' +
          "database decides both on the payment's locked row, so concurrent refunds never add up to more than the payment. " +
          "The money comes out of the available balance in the payment's currency; not enough gives 201 failed " +
          'insufficient_funds. A wallet payment is refunded into its wallet at once (succeeded; a frozen wallet gives failed ' +
          "wallet_inactive); a card through its provider at once; mobile money to the payer's number, pending until the " +
          'provider answers (refund.succeeded / refund.failed). `reference` rules are those of payments, scoped to refunds.',
        body: CreateRefundBody,
        response: {
          200: { description: CREATE_RESPONSES[200], $ref: 'Refund#' },
          201: { description: CREATE_RESPONSES[201], $ref: 'Refund#' },
          ...errorResponses(400, 401, 409, 413, 415, 429, 503),
        },
      },
    },
    async (request, reply) => sendCreated(reply, await deps.outflows.createRefund(request.auth, request.body), 'refunds'),
  );

  app.get(
    '/refunds/:id',
    {
      schema: {
        operationId: 'getRefund',
        tags,
        summary: 'Retrieve a refund',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: { $ref: 'Refund#' }, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => deps.outflows.getOutflow(request.auth, 'refund', request.params.id),
  );

  app.get(
    '/refunds',
    {
      schema: {
        operationId: 'listRefunds',
        tags,
        summary: 'List refunds, newest first',
        querystring: RefundListQuery,
        response: { 200: listResponseSchema('Refund'), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) =>
      deps.outflows.listOutflows(request.auth, 'refund', readOutflowFilters(request.query), readPageRequest(request.query, 'refund')),
  );
}
