import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/errors.ts';
import { OAuthError } from '../oauth/errors.ts';
import { ApiError } from '../shared/errors.ts';
import { present } from '../shared/invariant.ts';
import { closeConnectionAfter, noteErrorCode } from './request-hooks.ts';

/** JSON pointer from Ajv (`/payment_method/card/number`) → the contract's dotted path. */
function pointerToParam(pointer: string, child?: string): string {
  const parts = pointer
    .split('/')
    .filter((p) => p !== '')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  return parts.join('.');
}

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
  /** Set when a key (not a value) broke the rule: `propertyNames`, e.g. a metadata key too long. */
  propertyName?: string;
}

/** The objects that name a means of payment beside its `type`. */
const MEANS_OBJECTS = new Set(['wallet', 'card', 'mobile_money']);

/** Fastify's schema errors → the contract's codes, with the dotted `param`. */
function fromValidation(errors: AjvError[], context: string): ApiError {
  const first = present(errors[0], 'first validation error');
  const where = context === 'body' ? '' : context === 'querystring' ? '' : `${context} `;
  if (first.keyword === 'required') {
    const param = pointerToParam(first.instancePath, String(first.params.missingProperty));
    return new ApiError('parameter_missing', `${where}${param} is required.`, { param });
  }
  if (first.keyword === 'additionalProperties') {
    const extra = String(first.params.additionalProperty);
    // A means object this operation does not take (a wallet as a top-up's source): the type is
    // what is wrong, not an unknown field (the contract's parameter_invalid on `<means>.type`).
    if (/^\/(source|payment_method)$/.test(first.instancePath) && MEANS_OBJECTS.has(extra)) {
      const param = pointerToParam(first.instancePath, 'type');
      return new ApiError('parameter_invalid', `${where}${param} ${extra} is not accepted here.`, { param });
    }
    const param = pointerToParam(first.instancePath, extra);
    return new ApiError('parameter_unknown', `${where}${param} is not a known parameter.`, { param });
  }
  if (first.propertyName !== undefined) {
    const param = pointerToParam(first.instancePath, first.propertyName);
    return new ApiError('parameter_invalid', `${where}${param}: the key ${describe(first)}.`, { param });
  }
  const param = pointerToParam(first.instancePath);
  if (param === '') return new ApiError('invalid_json', `The request ${context} must be a JSON object.`);
  if (first.keyword === 'const') {
    // A union of literals (e.g. payment_method.type): Ajv reports one `const` error per branch.
    const allowed = errors
      .filter((e) => e.keyword === 'const' && e.instancePath === first.instancePath)
      .map((e) => String(e.params.allowedValue));
    return new ApiError('parameter_invalid', `${where}${param} must be one of: ${allowed.join(', ')}.`, { param });
  }
  return new ApiError('parameter_invalid', `${where}${param} ${describe(first)}.`, { param });
}

function describe(error: AjvError): string {
  switch (error.keyword) {
    case 'type':
      return `must be of type ${String(error.params.type)}`;
    case 'pattern':
      return 'has an invalid format';
    case 'enum':
      return `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** Framework errors (body limit, media type, timeouts) → the contract's codes. */
function fromFastify(error: FastifyError): ApiError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'The request body is too large.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('unsupported_media_type', 'Send the body as application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_json', 'The request body is not valid JSON.');
    default:
      break;
  }
  if (error.statusCode === 413) return new ApiError('payload_too_large', 'The request body is too large.');
  if (error.statusCode === 415) return new ApiError('unsupported_media_type', 'Send the body as application/json.');
  return null;
}

export function toApiError(error: unknown, request: FastifyRequest): ApiError | null {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError & { validation?: AjvError[]; validationContext?: string };
  if (fastifyError.validation && fastifyError.validation.length > 0) {
    return fromValidation(fastifyError.validation, fastifyError.validationContext ?? 'body');
  }
  if (isDatabaseUnavailable(error)) {
    return new ApiError('service_unavailable', 'The service is temporarily unavailable; retry shortly.', {
      headers: { 'retry-after': '2' },
    });
  }
  void request;
  return fromFastify(fastifyError);
}

/**
 * A body over the limit: Fastify answers with `Connection: close` and Node closes the socket while
 * the client is still uploading, so the unread bytes turn the close into a reset that often
 * destroys the 413 before the client reads it (half of 10 MiB uploads, measured). Instead the rest
 * of the body is read and dropped, never kept, while our side closes after the answer (FIN), for
 * at most 5 s (nginx's "lingering close").
 */
function closeAfterUpload(reply: FastifyReply): void {
  const socket = reply.raw.socket;
  if (!socket) return;
  // The answer says so, and no request that follows on this connection is executed (request-hooks.ts).
  closeConnectionAfter(socket);
  void reply.header('connection', 'close');
  // With `Connection: close` Node destroys the socket right after the answer (destroySoon); the
  // lingering close below replaces that for this socket only.
  (socket as { destroySoon?: () => void }).destroySoon = () => {
    if (socket.destroyed) return;
    socket.end();
    setTimeout(() => socket.destroy(), 5_000).unref();
  };
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof OAuthError) {
      noteErrorCode(request, error.code);
      return error.send(reply);
    }
    let apiError = toApiError(error, request);
    if (apiError?.status === 413) closeAfterUpload(reply);
    if (request.routeOptions.url === '/oauth/token' && apiError && apiError.status < 500) {
      // The token endpoint speaks RFC 6749 §5.2 even for framework-level refusals.
      const status = apiError.status === 413 ? 413 : 400;
      return new OAuthError(status, 'invalid_request', apiError.message).send(reply);
    }
    if (!apiError) {
      request.log.error({ err: error }, 'unhandled error');
      apiError = new ApiError('internal_error', 'An internal error occurred; it has been logged.');
    } else if (apiError.status >= 500) {
      request.log.warn({ err: error, code: apiError.code }, 'request failed');
    }
    noteErrorCode(request, apiError.code);
    if (apiError.headers) void reply.headers(apiError.headers);
    return reply.status(apiError.status).send(apiError.body(request.id));
  });
}
