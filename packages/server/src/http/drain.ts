import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../shared/errors.ts';

/**
 * Graceful shutdown of a listening server (main.ts). `server.close()` waits for every open
 * socket, and Node stops its header and request timeout checks once it closes, so a client that
 * connected but never sent a whole request (a load balancer's pre-opened connection, a slow or
 * silent client) held the process until the shutdown deadline, and a keep-alive socket stayed
 * open up to keepAliveTimeout after its last answer. This counts, per socket, the requests the
 * server has received and not yet answered. From `begin()` on: sockets without one are closed at
 * once, the others as soon as their last answer is sent (with `Connection: close`), connections accepted in the last moment
 * before the listener closes are dropped, and a request that arrives on an open connection gets
 * 503 service_unavailable in the contract's envelope with `Connection: close` (Fastify's own
 * closing answer, return503OnClosing, has another body and is turned off in app.ts).
 */
export function registerDrain(app: FastifyInstance): { begin(): void } {
  const inProgress = new Map<Socket, number>();
  let draining = false;

  const closeGently = (socket: Socket) => {
    socket.end();
    setTimeout(() => socket.destroy(), 1_000).unref();
  };

  app.server.on('connection', (socket: Socket) => {
    if (draining) {
      socket.destroy();
      return;
    }
    inProgress.set(socket, 0);
    socket.once('close', () => inProgress.delete(socket));
  });
  app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    const count = inProgress.get(socket);
    if (count === undefined) return;
    inProgress.set(socket, count + 1);
    response.once('close', () => {
      const left = inProgress.get(socket);
      if (left === undefined) return;
      inProgress.set(socket, left - 1);
      if (draining && left - 1 === 0) closeGently(socket);
    });
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!draining) return;
    const error = new ApiError('service_unavailable', 'The server is shutting down; retry the request.');
    void reply.status(503).headers({ 'retry-after': '1', connection: 'close' }).send(error.body(request.id));
    return reply;
  });

  // An answer sent while draining tells the client not to reuse the connection.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (draining) void reply.header('connection', 'close');
    return payload;
  });

  return {
    begin(): void {
      if (draining) return;
      draining = true;
      for (const [socket, count] of inProgress) if (count === 0) socket.destroy();
    },
  };
}
