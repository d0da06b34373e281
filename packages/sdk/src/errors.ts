// PurseError, and how an answer or a failure becomes one.

export interface PurseErrorFields {
  message: string;
  status?: number | null;
  type?: string;
  code?: string;
  param?: string | null;
  requestId?: string | null;
  cause?: unknown;
}

/** Every failure of the SDK: an API error answer, a network failure or a webhook that does not verify. */
export class PurseError extends Error {
  /** HTTP status; null for a network error or a webhook. */
  readonly status: number | null;
  /** invalid_request_error, authentication_error, api_error, … network_error, webhook_error. */
  readonly type: string;
  /** The contract's error code, e.g. parameter_invalid, insufficient_funds, token_invalid, signature_invalid. */
  readonly code: string;
  /** The field at fault, dotted (payment_method.card.number), when the API names one. */
  readonly param: string | null;
  /** The request id (request-id header): quote it to the operator. */
  readonly requestId: string | null;

  constructor(fields: PurseErrorFields) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = 'PurseError';
    this.status = fields.status ?? null;
    this.type = fields.type ?? 'api_error';
    this.code = fields.code ?? 'unknown';
    this.param = fields.param ?? null;
    this.requestId = fields.requestId ?? null;
  }
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** An answer that is not 2xx: the API's envelope, the token endpoint's OAuth error, or anything else. */
export function errorFromAnswer(status: number, body: unknown, headers: Headers): PurseError {
  const requestId = headers.get('request-id');
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (typeof fields.error === 'object' && fields.error !== null) {
    const e = fields.error as Record<string, unknown>;
    return new PurseError({
      message: text(e.message) ?? `HTTP ${status}`,
      status,
      type: text(e.type),
      code: text(e.code),
      param: text(e.param) ?? null,
      requestId: text(e.request_id) ?? requestId,
    });
  }
  if (typeof fields.error === 'string') {
    // The token endpoint speaks OAuth 2.0: {error, error_description}.
    return new PurseError({
      message: text(fields.error_description) ?? fields.error,
      status,
      type: 'authentication_error',
      code: fields.error,
      requestId,
    });
  }
  return new PurseError({
    message: `HTTP ${status}`,
    status,
    type: status >= 500 ? 'api_error' : 'invalid_request_error',
    code: 'http_error',
    requestId,
  });
}

/**
 * fetch threw: nothing reached Purse, or its answer was lost, or the attempt timed out. The message
 * names where the client looked (its baseUrl): a Purse on another port is the usual cause.
 */
export function networkError(error: unknown, baseUrl: string): PurseError {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } } | null;
  const reason = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(error);
  const timeout = e?.name === 'TimeoutError';
  return new PurseError({
    message: timeout
      ? `The request to Purse at ${baseUrl} timed out.`
      : `The request did not reach Purse at ${baseUrl}, or its answer was lost (${reason}): is Purse running there? (baseUrl sets where the client looks.)`,
    status: null,
    type: 'network_error',
    code: timeout ? 'timeout' : 'network_error',
    cause: error,
  });
}
