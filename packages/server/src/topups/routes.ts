import { Type } from 'typebox';
import { ChargeListQuery, readChargeFilters } from '../charges/filters.ts';
import { Amount, CallbackUrl, Currency, Description, Metadata, paymentMethodInput, Reference, TopupView } from '../charges/schemas.ts';
import type { ChargeService } from '../charges/service.ts';
import { CREATE_RESPONSES, sendCreated } from '../http/created.ts';
import { IdParams } from '../http/params.ts';
import type { RouteApp } from '../http/route-app.ts';
import { errorResponses } from '../ops/openapi.ts';
import { listResponseSchema, NoQuery, readPageRequest } from '../shared/pagination.ts';

export const CreateTopupBody = Type.Object(
  {
    reference: Reference,
    amount: Amount,
    currency: Currency,
    wallet_id: Type.String({ maxLength: 64, description: 'The wallet to credit: same merchant, same currency.' }),
    source: paymentMethodInput(['mobile_money', 'card']),
    description: Type.Optional(Description),
    callback_url: Type.Optional(CallbackUrl),
    metadata: Type.Optional(Metadata),
    return_url: Type.Optional(
      Type.String({
        maxLength: 2048,
        description: "Cards: where Purse sends the payer's browser after 3-D Secure, with ?topup_id=… (absolute http(s) URL).",
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        reference: 'topup-77',
        amount: '5000',
        currency: 'UGX',
        wallet_id: 'wal_01jd6x8v1ffq8v2k3m4n5p6q7r',
        source: { type: 'mobile_money', mobile_money: { phone_number: '+256772000000', provider: 'mtn' } },
      },
    ],
  },
);

export function registerTopupRoutes(app: RouteApp, deps: { charges: ChargeService }): void {
  app.addSchema(TopupView);
  const tags = ['Top-ups'];

  app.post(
    '/topups',
    {
      schema: {
        operationId: 'createTopup',
        tags,
        summary: 'Top up a wallet from mobile money or a card',
        description:
          "Moves money from outside into one of the merchant's wallets; the wallet is credited only when the top-up succeeds. " +
          'A frozen wallet gives 201 failed/wallet_inactive. If the wallet is frozen after a mobile-money top-up started, the ' +
          'money already collected is still credited. `reference` rules are those of payments, scoped to top-ups.',
        body: CreateTopupBody,
        response: {
          200: { description: CREATE_RESPONSES[200], $ref: 'Topup#' },
          201: { description: CREATE_RESPONSES[201], $ref: 'Topup#' },
          ...errorResponses(400, 401, 409, 413, 415, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const result = await deps.charges.createCharge(request.auth, 'topup', {
        ...body,
        walletId: body.wallet_id,
        method: body.source,
        methodParam: 'source',
      });
      return sendCreated(reply, result, 'topups');
    },
  );

  app.get(
    '/topups/:id',
    {
      schema: {
        operationId: 'getTopup',
        tags,
        summary: 'Retrieve a top-up',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: { $ref: 'Topup#' }, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => deps.charges.getCharge(request.auth, 'topup', request.params.id),
  );

  app.get(
    '/topups',
    {
      schema: {
        operationId: 'listTopups',
        tags,
        summary: 'List top-ups, newest first',
        description: 'payment_method_type filters on the source type.',
        querystring: ChargeListQuery,
        response: { 200: listResponseSchema('Topup'), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const query = request.query;
      return deps.charges.listCharges(request.auth, 'topup', readChargeFilters(query), readPageRequest(query, 'topup'));
    },
  );
}
