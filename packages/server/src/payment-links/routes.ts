import { CREATE_RESPONSES } from '../http/created.ts';
import { IdParams } from '../http/params.ts';
import type { RouteApp } from '../http/route-app.ts';
import { errorResponses } from '../ops/openapi.ts';
import { listResponseSchema, NoQuery, readPageRequest } from '../shared/pagination.ts';
import { CreatePaymentLinkBody, PaymentLinkListQuery, PaymentLinkView, UpdatePaymentLinkBody } from './schemas.ts';
import type { PaymentLinkService } from './service.ts';

export function registerPaymentLinkRoutes(app: RouteApp, deps: { paymentLinks: PaymentLinkService }): void {
  app.addSchema(PaymentLinkView);
  const tags = ['Payment links'];
  app.post(
    '/payment_links',
    {
      schema: {
        operationId: 'createPaymentLink',
        tags,
        summary: 'Create a reusable payment link',
        description:
          'A URL to share (a QR code, a message): each visit opens a fresh checkout session for `amount`, or for the amount ' +
          'the payer types when `amount` is null. Payment links take no `reference` (each session gets one naming the link); ' +
          'creating twice makes two links.',
        body: CreatePaymentLinkBody,
        response: { 201: { description: CREATE_RESPONSES[201], $ref: 'PaymentLink#' }, ...errorResponses(400, 401, 413, 415, 429, 503) },
      },
    },
    async (request, reply) => {
      const link = await deps.paymentLinks.createLink(request.auth, request.body);
      return reply.status(201).header('location', `/v1/payment_links/${link.id}`).send(link);
    },
  );
  app.get(
    '/payment_links/:id',
    {
      schema: {
        operationId: 'getPaymentLink',
        tags,
        summary: 'Retrieve a payment link',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: { $ref: 'PaymentLink#' }, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => deps.paymentLinks.getLink(request.auth, request.params.id),
  );
  app.patch(
    '/payment_links/:id',
    {
      schema: {
        operationId: 'updatePaymentLink',
        tags,
        summary: 'Turn a payment link on or off',
        params: IdParams,
        body: UpdatePaymentLinkBody,
        response: { 200: { $ref: 'PaymentLink#' }, ...errorResponses(400, 401, 404, 413, 415, 429) },
      },
    },
    async (request) => deps.paymentLinks.updateLink(request.auth, request.params.id, request.body.active),
  );
  registerList(app, deps, tags);
}

function registerList(app: RouteApp, deps: { paymentLinks: PaymentLinkService }, tags: string[]): void {
  app.get(
    '/payment_links',
    {
      schema: {
        operationId: 'listPaymentLinks',
        tags,
        summary: 'List payment links, newest first',
        querystring: PaymentLinkListQuery,
        response: { 200: listResponseSchema('PaymentLink'), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { active } = request.query;
      return deps.paymentLinks.listLinks(
        request.auth,
        active === undefined ? undefined : active === 'true',
        readPageRequest(request.query, 'paymentLink'),
      );
    },
  );
}
