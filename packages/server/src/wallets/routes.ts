import { Type } from 'typebox';
import { CREATE_RESPONSES, sendCreated } from '../http/created.ts';
import { refuseBody } from '../http/no-body.ts';
import { IdParams } from '../http/params.ts';
import type { RouteApp } from '../http/route-app.ts';
import { errorResponses } from '../ops/openapi.ts';
import { ListQuery, listResponseSchema, NoQuery, readPageRequest } from '../shared/pagination.ts';
import { BalanceView, CreateWalletBody, WalletTransactionView, WalletView } from './schemas.ts';
import type { WalletService } from './service.ts';

const PageQuery = Type.Object(ListQuery, { additionalProperties: false });

export function registerWalletRoutes(app: RouteApp, deps: { wallets: WalletService }): void {
  app.addSchema(WalletView);
  app.addSchema(WalletTransactionView);
  app.addSchema(BalanceView);
  const tags = ['Wallets'];
  const one = { 200: { $ref: 'Wallet#' }, ...errorResponses(400, 401, 404, 429) };

  app.post(
    '/wallets',
    {
      schema: {
        operationId: 'createWallet',
        tags,
        summary: 'Create a stored-value wallet',
        description: 'An optional `reference` makes creation idempotent with the same rules as payments (200 replay, 409 conflict).',
        body: CreateWalletBody,
        response: {
          200: { description: CREATE_RESPONSES[200], $ref: 'Wallet#' },
          201: { description: 'Created, with balance 0 and status active.', $ref: 'Wallet#' },
          ...errorResponses(400, 401, 409, 413, 415, 429),
        },
      },
    },
    async (request, reply) => sendCreated(reply, await deps.wallets.createWallet(request.auth, request.body), 'wallets'),
  );

  app.get(
    '/wallets/:id',
    { schema: { operationId: 'getWallet', tags, summary: 'Retrieve a wallet', params: IdParams, querystring: NoQuery, response: one } },
    async (request) => deps.wallets.getWallet(request.auth, request.params.id),
  );

  app.get(
    '/wallets',
    {
      schema: {
        operationId: 'listWallets',
        tags,
        summary: 'List wallets, newest first',
        querystring: PageQuery,
        response: { 200: listResponseSchema('Wallet'), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => deps.wallets.listWallets(request.auth, readPageRequest(request.query, 'wallet')),
  );

  app.get(
    '/wallets/:id/transactions',
    {
      schema: {
        operationId: 'listWalletTransactions',
        tags,
        summary: "The wallet's ledger entries, newest first",
        params: IdParams,
        querystring: PageQuery,
        response: { 200: listResponseSchema('WalletTransaction'), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => deps.wallets.listTransactions(request.auth, request.params.id, readPageRequest(request.query, 'walletTransaction')),
  );

  for (const [action, status] of [
    ['freeze', 'inactive'],
    ['unfreeze', 'active'],
  ] as const) {
    app.post(
      `/wallets/:id/${action}`,
      {
        schema: {
          operationId: `${action}Wallet`,
          tags,
          summary: action === 'freeze' ? 'Freeze a wallet: it refuses payments and top-ups' : 'Unfreeze a wallet',
          description: 'Idempotent. No body (or an empty JSON object).',
          params: IdParams,
          querystring: NoQuery,
          response: one,
        },
      },
      async (request) => {
        refuseBody(request.body);
        return deps.wallets.setStatus(request.auth, request.params.id, status);
      },
    );
  }

  app.get(
    '/balance',
    {
      schema: {
        operationId: 'getBalance',
        tags: ['Balance'],
        summary: "The merchant's collected funds per currency",
        querystring: NoQuery,
        response: { 200: { $ref: 'Balance#' }, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => deps.wallets.getBalance(request.auth),
  );
}
