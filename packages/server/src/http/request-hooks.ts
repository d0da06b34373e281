import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Metrics } from '../ops/metrics.ts';
import { API_VERSION } from '../shared/api-version.ts';

/** The error code a request was refused with, for its log line (set by the error handler). */
const refusedWith = new WeakMap<FastifyRequest, string>();

export function noteErrorCode(request: FastifyRequest, code: string): void {
  refusedWith.set(request, code);
}

/** Why the database could not serve a request answered 503 (db/errors.ts), for the metrics. */
const unavailableBecause = new WeakMap<FastifyRequest, string>();

export function noteUnavailable(request: FastifyRequest, cause: string): void {
  unavailableBecause.set(request, cause);
}

/** Connections whose last answer said `Connection: close`: nothing more on them is executed. */
const closing = new WeakSet<Socket>();
/** The latest response of each connection, so a pipelined request waits for the one before it. */
const latest = new WeakMap<Socket, ServerResponse>();

export function closeConnectionAfter(socket: Socket): void {
  closing.add(socket);
}

/**
 * A request is executed only if it can be answered. HTTP/1.1 lets a client send requests back to
 * back on one connection, and Node parses (and Fastify starts) the next one before the previous
 * one is answered. If that previous answer ends the connection (a 413 closes it), the next
 * request must not run: its answer could never be sent. So a request that follows another on its
 * connection waits for that answer first, and is dropped, unexecuted, when the connection is closing.
 */
async function answerable(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const socket = request.raw.socket;
  const previous = latest.get(socket);
  latest.set(socket, reply.raw);
  if (previous === undefined) return !socket.destroyed;
  if (!previous.writableFinished && !previous.destroyed) {
    await new Promise<void>((resolve) => {
      previous.once('finish', resolve);
      previous.once('close', resolve);
    });
  }
  // Closing: a 413 (closeConnectionAfter), or any answer that said `Connection: close` (Fastify
  // says it after a body it could not parse), after which Node ends the socket.
  const closes = closing.has(socket) || (previous as { _last?: boolean })._last === true || socket.writableEnded;
  return !closes && !socket.destroyed;
}

/**
 * Request-Id and Api-Version on every response; one lean log line and metrics per request.
 * Every /v1 and /oauth answer is `Cache-Control: no-store`: tokens (/oauth/token), webhook secrets
 * (endpoint creation, rotate_secret) and merchant data must never sit in a shared or browser cache,
 * and one rule for the whole API cannot miss a route that starts carrying a secret.
 */
export function registerRequestHooks(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!(await answerable(request, reply))) {
      // Never answered (the connection is ending after the previous answer), so never executed.
      reply.hijack();
      return;
    }
    void reply.header('request-id', request.id).header('api-version', API_VERSION);
    if (request.url.startsWith('/v1/') || request.url.startsWith('/oauth/')) void reply.header('cache-control', 'no-store');
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    metrics.observeRequest(request.method, route, reply.statusCode, seconds);
    const cause = unavailableBecause.get(request);
    if (cause !== undefined) metrics.observeUnavailable(cause);
    const code = refusedWith.get(request);
    request.log.info(
      {
        method: request.method,
        route,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        ...(code === undefined ? {} : { code }),
      },
      code === undefined ? 'request completed' : `request refused: ${code}`,
    );
  });
}
