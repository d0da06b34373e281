/**
 * The API's error envelope. Services, stores and shared helpers throw ApiError; only
 * http/error-handler.ts turns it into a response, so the class lives below every layer.
 */

export const ERROR_TYPES = {
  invalid_json: ['invalid_request_error', 400],
  parameter_missing: ['invalid_request_error', 400],
  parameter_invalid: ['invalid_request_error', 400],
  parameter_unknown: ['invalid_request_error', 400],
  currency_not_supported: ['invalid_request_error', 400],
  resource_missing: ['invalid_request_error', 400],
  limit_exceeded: ['invalid_request_error', 400],
  // Refunds (docs/api.md §14): the payment did not succeed, or the amount is above what is left.
  payment_not_refundable: ['invalid_request_error', 400],
  amount_too_large: ['invalid_request_error', 400],
  // A live merchant the operator has not allowed to send card numbers (docs/api.md, cards).
  raw_card_data_not_allowed: ['invalid_request_error', 400],
  token_missing: ['authentication_error', 401],
  token_invalid: ['authentication_error', 401],
  token_expired: ['authentication_error', 401],
  // Provider callbacks (outside /v1): a missing or wrong provider signature.
  signature_invalid: ['authentication_error', 401],
  // A valid token whose API key lacks the route's scope (RFC 6750 §3.1; Stripe's type for it).
  insufficient_scope: ['invalid_request_error', 403],
  // The dashboard's sign-in, sessions and users (docs/users.md).
  sign_in_failed: ['authentication_error', 401],
  second_factor_invalid: ['authentication_error', 401],
  session_invalid: ['authentication_error', 401],
  csrf_token_invalid: ['invalid_request_error', 403],
  // A session still waiting for its second factor or TOTP enrolment, on a route that needs a full one.
  session_incomplete: ['invalid_request_error', 403],
  insufficient_role: ['invalid_request_error', 403],
  invitation_invalid: ['invalid_request_error', 400],
  user_exists: ['invalid_request_error', 409],
  last_owner: ['invalid_request_error', 409],
  totp_already_enabled: ['invalid_request_error', 409],
  resource_not_found: ['invalid_request_error', 404],
  route_not_found: ['invalid_request_error', 404],
  method_not_allowed: ['invalid_request_error', 405],
  reference_conflict: ['invalid_request_error', 409],
  invalid_state: ['invalid_request_error', 409],
  // Capture or cancel of a payment in a state that does not allow it.
  payment_invalid_state: ['invalid_request_error', 409],
  // Expire of a checkout session that is complete or whose payment is still under way.
  checkout_session_invalid_state: ['invalid_request_error', 409],
  payload_too_large: ['invalid_request_error', 413],
  unsupported_media_type: ['invalid_request_error', 415],
  rate_limited: ['rate_limit_error', 429],
  internal_error: ['api_error', 500],
  service_unavailable: ['api_error', 503],
} as const satisfies Record<string, readonly [string, number]>;

export type ErrorCode = keyof typeof ERROR_TYPES;

export interface ApiErrorOptions {
  param?: string;
  /** Extra fields added to the error object, e.g. `existing_id`. */
  extra?: Record<string, string>;
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: string;
  readonly param: string | undefined;
  readonly extra: Record<string, string> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message);
    const [type, status] = ERROR_TYPES[code];
    this.code = code;
    this.type = type;
    this.status = status;
    this.param = options.param;
    this.extra = options.extra;
    this.headers = options.headers;
  }

  body(requestId: string): { error: Record<string, string> } {
    const error: Record<string, string> = { type: this.type, code: this.code, message: this.message };
    if (this.param !== undefined) error.param = this.param;
    Object.assign(error, this.extra);
    error.request_id = requestId;
    return { error };
  }
}

export const notFound = (): ApiError => new ApiError('resource_not_found', 'No such object.');
