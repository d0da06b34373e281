import { Type } from 'typebox';
import type { RouteApp } from '../http/route-app.ts';
import { errorResponses } from '../ops/openapi.ts';
import { notFound } from '../shared/errors.ts';
import type { MerchantService } from './service.ts';

export const Merchant = Type.Object(
  {
    id: Type.String({ examples: ['mer_01jd6x8v1ffq8v2k3m4n5p6q7r'] }),
    object: Type.Literal('merchant'),
    name: Type.String(),
    status: Type.Union([Type.Literal('active'), Type.Literal('disabled')]),
    livemode: Type.Boolean({ description: 'false for a sandbox merchant: its objects go to the sandbox provider.' }),
    client_id: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Merchant', additionalProperties: false },
);

export function registerMerchantRoutes(app: RouteApp, deps: { merchants: MerchantService }): void {
  app.addSchema(Merchant);
  app.get(
    '/merchant',
    {
      schema: {
        operationId: 'getMerchant',
        tags: ['Merchant'],
        summary: 'The authenticated merchant',
        description: 'The profile of the merchant the access token belongs to; a cheap way to check a token.',
        response: { 200: { $ref: 'Merchant#' }, ...errorResponses(401, 429) },
      },
    },
    async (request) => {
      const merchant = await deps.merchants.getMerchant(request.auth.merchantId);
      if (!merchant) throw notFound();
      return merchant;
    },
  );
}
