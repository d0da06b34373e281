import { CREATE_RESPONSES, sendCreated } from '../http/created.ts';
import { IdParams } from '../http/params.ts';
import type { RouteApp } from '../http/route-app.ts';
import { errorResponses } from '../ops/openapi.ts';
import { listResponseSchema, NoQuery, readPageRequest } from '../shared/pagination.ts';
import { CreateTransferBody, readTransferFilters, TransferListQuery, TransferView } from './schemas.ts';
import type { TransferService } from './service.ts';

export function registerTransferRoutes(app: RouteApp, deps: { transfers: TransferService }): void {
  app.addSchema(TransferView);
  const tags = ['Transfers'];

  app.post(
    '/transfers',
    {
      schema: {
        operationId: 'createTransfer',
        tags,
        summary: 'Move money from one wallet to another',
        description:
          'Both wallets belong to the merchant, hold the transfer currency and differ. The debit of the source, the credit of ' +
          'the destination, the ledger posting and the event are one atomic write. A source that does not cover the amount, or ' +
          'a frozen source or destination, gives 201 failed (insufficient_funds, wallet_inactive) and moves nothing. ' +
          '`reference` rules are those of payments, scoped to transfers.',
        body: CreateTransferBody,
        response: {
          200: { description: CREATE_RESPONSES[200], $ref: 'Transfer#' },
          201: { description: CREATE_RESPONSES[201], $ref: 'Transfer#' },
          ...errorResponses(400, 401, 409, 413, 415, 429, 503),
        },
      },
    },
    async (request, reply) => sendCreated(reply, await deps.transfers.createTransfer(request.auth, request.body), 'transfers'),
  );

  app.get(
    '/transfers/:id',
    {
      schema: {
        operationId: 'getTransfer',
        tags,
        summary: 'Retrieve a transfer',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: { $ref: 'Transfer#' }, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => deps.transfers.getTransfer(request.auth, request.params.id),
  );

  app.get(
    '/transfers',
    {
      schema: {
        operationId: 'listTransfers',
        tags,
        summary: 'List transfers, newest first',
        description: 'wallet_id matches transfers from or to that wallet.',
        querystring: TransferListQuery,
        response: { 200: listResponseSchema('Transfer'), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const query = request.query;
      return deps.transfers.listTransfers(request.auth, readTransferFilters(query), readPageRequest(query, 'transfer'));
    },
  );
}
