import { Type } from 'typebox';
import { ChargeListQuery, readChargeFilters } from '../charges/filters.ts';
import type { CardOperations } from '../charges/operations.ts';
import {
  Amount,
  CallbackUrl,
  CaptureMethod,
  Currency,
  CustomerInput,
  Description,
  MEANS_VARIANTS,
  Metadata,
  PaymentMethodView,
  PaymentView,
  paymentMethodInput,
  Reference,
} from '../charges/schemas.ts';
import type { ChargeService } from '../charges/service.ts';
import { METHOD_TYPES } from '../db/schema.ts';
import { CREATE_RESPONSES, sendCreated } from '../http/created.ts';
import { IdParams } from '../http/params.ts';
import type { RouteApp } from '../http/route-app.ts';
import { errorResponses } from '../ops/openapi.ts';
import { listResponseSchema, NoQuery, readPageRequest } from '../shared/pagination.ts';

export const CreatePaymentBody = Type.Object(
  {
    reference: Reference,
    amount: Amount,
    currency: Currency,
    payment_method: paymentMethodInput(METHOD_TYPES),
    customer: Type.Optional(CustomerInput),
    description: Type.Optional(Description),
    callback_url: Type.Optional(CallbackUrl),
    metadata: Type.Optional(Metadata),
    capture_method: Type.Optional(CaptureMethod),
    return_url: Type.Optional(
      Type.String({
        maxLength: 2048,
        description: "Cards: where Purse sends the payer's browser after 3-D Secure, with ?payment_id=… (absolute http(s) URL).",
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        reference: 'order-1001',
        amount: '1500.00',
        currency: 'KES',
        payment_method: { type: 'mobile_money', mobile_money: { phone_number: '+254712345678', provider: 'mpesa' } },
        description: 'Order 1001',
        callback_url: 'https://shop.example/hooks',
        metadata: { order_id: '1001' },
      },
      {
        reference: 'order-1002',
        amount: '10.00',
        currency: 'USD',
        payment_method: { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' } },
      },
      {
        reference: 'order-1003',
        amount: '120.50',
        currency: 'KES',
        payment_method: { type: 'wallet', wallet: { wallet_id: 'wal_01jd6x8v1ffq8v2k3m4n5p6q7r' } },
      },
    ],
  },
);

const CaptureBody = Type.Object(
  {
    amount: Type.Optional({ ...Amount, description: 'At most amount_capturable; absent: all of it. A partial capture releases the rest.' }),
  },
  { additionalProperties: false },
);
const CancelBody = Type.Object(
  {
    reason: Type.Optional(
      Type.Union([Type.Literal('requested_by_customer'), Type.Literal('duplicate'), Type.Literal('fraudulent')], {
        description: 'Shown as cancellation_reason; requested_by_customer when absent.',
      }),
    ),
  },
  { additionalProperties: false },
);

export function registerPaymentRoutes(app: RouteApp, deps: { charges: ChargeService; cardOperations: CardOperations }): void {
  for (const variant of MEANS_VARIANTS) app.addSchema(variant);
  app.addSchema(PaymentMethodView);
  app.addSchema(PaymentView);
  const tags = ['Payments'];

  app.post(
    '/payments',
    {
      schema: {
        operationId: 'createPayment',
        tags,
        summary: 'Take a payment by mobile money, card or wallet',
        description:
          'Mobile money is asynchronous (pending, then settled or expired at expires_at). A card is authorised synchronously. ' +
          'A wallet of the same merchant and currency is debited atomically. `reference` is unique per merchant: the same ' +
          'reference with the same request replays (200), with a different request is 409 reference_conflict.',
        body: CreatePaymentBody,
        response: {
          200: { description: CREATE_RESPONSES[200], $ref: 'Payment#' },
          201: { description: CREATE_RESPONSES[201], $ref: 'Payment#' },
          ...errorResponses(400, 401, 409, 413, 415, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const result = await deps.charges.createCharge(request.auth, 'payment', {
        ...body,
        method: body.payment_method,
        methodParam: 'payment_method',
      });
      return sendCreated(reply, result, 'payments');
    },
  );

  app.get(
    '/payments/:id',
    {
      schema: {
        operationId: 'getPayment',
        tags,
        summary: 'Retrieve a payment',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: { $ref: 'Payment#' }, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => deps.charges.getCharge(request.auth, 'payment', request.params.id),
  );

  registerCardOperationRoutes(app, deps.cardOperations, tags);

  app.get(
    '/payments',
    {
      schema: {
        operationId: 'listPayments',
        tags,
        summary: 'List payments, newest first',
        querystring: ChargeListQuery,
        response: { 200: listResponseSchema('Payment'), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const query = request.query;
      return deps.charges.listCharges(request.auth, 'payment', readChargeFilters(query), readPageRequest(query, 'payment'));
    },
  );
}

/** What capture and cancel refuse, in the contract's words. */
const CARD_OPERATION_ERRORS = {
  400: { description: 'Invalid request; a capture above amount_capturable is amount_too_large.', $ref: 'Error#' },
  409: {
    description: 'payment_invalid_state: the payment is in a state that does not allow it (or another operation of it is in progress).',
    $ref: 'Error#',
  },
};

/** Capture and cancel of card payments (manual capture, 3-D Secure not finished). */
function registerCardOperationRoutes(app: RouteApp, cardOperations: CardOperations, tags: string[]): void {
  app.post(
    '/payments/:id/capture',
    {
      schema: {
        operationId: 'capturePayment',
        tags,
        summary: 'Capture an authorised card payment',
        description:
          'For a card payment created with capture_method manual, in requires_capture: takes amount (all of amount_capturable ' +
          'when absent; a partial capture releases the rest) and answers the payment, succeeded with amount_received. The ' +
          'same capture again answers the payment as it is. Another state: 409 payment_invalid_state. Concurrent captures ' +
          'and cancels of one payment: exactly one is sent to the acquirer.',
        params: IdParams,
        body: CaptureBody,
        response: { 200: { $ref: 'Payment#' }, ...errorResponses(401, 404, 413, 415, 429), ...CARD_OPERATION_ERRORS },
      },
    },
    async (request) => cardOperations.capture(request.auth, request.params.id, request.body ?? {}),
  );

  app.post(
    '/payments/:id/cancel',
    {
      schema: {
        operationId: 'cancelPayment',
        tags,
        summary: 'Cancel a card payment that waits for 3-D Secure or capture',
        description:
          'From requires_action or requires_capture: the authorisation is released and the payment is canceled (final; no ' +
          'money moved). The same cancel again answers the payment as it is. Another state: 409 payment_invalid_state ' +
          '(a pending card payment cannot be canceled: its authorisation is in flight).',
        params: IdParams,
        body: CancelBody,
        response: { 200: { $ref: 'Payment#' }, ...errorResponses(401, 404, 413, 415, 429), ...CARD_OPERATION_ERRORS },
      },
    },
    async (request) => cardOperations.cancel(request.auth, request.params.id, request.body ?? {}),
  );
}
