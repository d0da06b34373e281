import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { unavailableCause } from '../db/errors.ts';
import { OAuthError } from '../oauth/errors.ts';
import { ApiError } from '../shared/errors.ts';
import { closeConnectionAfter, noteErrorCode, noteUnavailable } from './request-hooks.ts';
import { type AjvError, fromValidation } from './validation-errors.ts';

/** The media types a route reads: the token endpoint also takes forms (RFC 6749), /v1 only JSON. */
const acceptedTypes = (request: FastifyRequest) =>
  request.routeOptions.url === '/oauth/token' ? 'application/json or application/x-www-form-urlencoded' : 'application/json';

/** Why a type is sent by mistake, for the two a client sends without being asked. */
const DEFAULT_TYPES: Record<string, string> = {
  'application/x-www-form-urlencoded': ' (what curl -d sends unless told otherwise)',
  'text/plain': ' (what fetch sends for a string body unless told otherwise)',
};

/** A body the route cannot read: the message names the header to send. */
function unsupportedMediaType(request: FastifyRequest): ApiError {
  const header = request.headers['content-type'];
  const sent = typeof header === 'string' ? (header.split(';')[0] ?? '').trim().toLowerCase() : '';
  if (sent === '') {
    return new ApiError('unsupported_media_type', `The request has no Content-Type header: send Content-Type: ${acceptedTypes(request)}.`);
  }
  // Only a well-formed type is repeated back, and only its name (no parameters).
  const shown = sent.length <= 80 && /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(sent) ? sent : 'of this request';
  return new ApiError(
    'unsupported_media_type',
    `Content-Type ${shown}${DEFAULT_TYPES[sent] ?? ''} is not accepted here: send Content-Type: ${acceptedTypes(request)}.`,
  );
}

/** Framework errors (body limit, media type, timeouts) → the contract's codes. */
function fromFastify(error: FastifyError, request: FastifyRequest): ApiError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'The request body is too large.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType(request);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('unsupported_media_type', 'The Content-Length header does not match the body that was sent.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_json', 'The request body is not valid JSON.');
    default:
      break;
  }
  if (error.statusCode === 413) return new ApiError('payload_too_large', 'The request body is too large.');
  if (error.statusCode === 415) return unsupportedMediaType(request);
  return null;
}

export function toApiError(error: unknown, request: FastifyRequest): ApiError | null {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError & { validation?: AjvError[]; validationContext?: string };
  if (fastifyError.validation && fastifyError.validation.length > 0) {
    return fromValidation(fastifyError.validation, fastifyError.validationContext ?? 'body', request);
  }
  const cause = unavailableCause(error);
  if (cause) {
    // No writable primary right now (§23): retry with the same reference; never a 500.
    noteUnavailable(request, cause);
    return new ApiError('service_unavailable', 'The service is temporarily unavailable; retry shortly.', {
      headers: { 'retry-after': '2' },
    });
  }
  return fromFastify(fastifyError, request);
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
