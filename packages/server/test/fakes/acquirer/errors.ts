// Stripe's error shape: `{error: {type, code, decline_code, message, param, …}}` with the HTTP
// status that goes with it (docs.stripe.com/api/errors): 400 invalid request, 401 bad key,
// 402 a card error, 404 no such object, 409 an idempotency key in use, 500 Stripe's own fault.

export type ErrorType = 'api_error' | 'card_error' | 'idempotency_error' | 'invalid_request_error';

export interface StripeError {
  type: ErrorType;
  message: string;
  code?: string;
  decline_code?: string;
  param?: string;
  doc_url?: string;
  charge?: string;
  payment_intent?: unknown;
  payment_method?: unknown;
}

/** What a handler answers: a status and a JSON body. */
export interface Answer {
  status: number;
  body: unknown;
}

const docUrl = (code: string) => `https://stripe.com/docs/error-codes/${code.replace(/_/g, '-')}`;

export function errorAnswer(status: number, error: StripeError): Answer {
  const body: StripeError = { ...error };
  if (error.code && !error.doc_url) body.doc_url = docUrl(error.code);
  return { status, body: { error: body } };
}

/** A parameter the endpoint refuses before it starts: no idempotent result is saved for it. */
export class ParamError extends Error {
  constructor(
    readonly answer: Answer,
    message: string,
  ) {
    super(message);
  }
}

export function invalidRequest(message: string, fields: { code?: string; param?: string; status?: number } = {}): ParamError {
  const { status = 400, ...rest } = fields;
  return new ParamError(errorAnswer(status, { type: 'invalid_request_error', message, ...rest }), message);
}

export const missingParam = (param: string) => invalidRequest(`Missing required param: ${param}.`, { code: 'parameter_missing', param });

export const unknownParam = (param: string) => invalidRequest(`Received unknown parameter: ${param}`, { code: 'parameter_unknown', param });

export function noSuchObject(kind: string, id: string, param = 'id'): Answer {
  return errorAnswer(404, { type: 'invalid_request_error', code: 'resource_missing', param, message: `No such ${kind}: '${id}'` });
}

export function unexpectedState(message: string, paymentIntent: unknown): Answer {
  return errorAnswer(400, {
    type: 'invalid_request_error',
    code: 'payment_intent_unexpected_state',
    message,
    payment_intent: paymentIntent,
  });
}

export const internalError = (): Answer =>
  errorAnswer(500, { type: 'api_error', message: 'An unknown error occurred while processing your request. (fake acquirer)' });
