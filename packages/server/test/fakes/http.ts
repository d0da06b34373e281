// What both provider fakes need of HTTP: the request body, a JSON answer, and a server on
// 127.0.0.1 that answers 500 (in the provider's own error shape) when a handler throws.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A JSON answer; no body at all when `body` is undefined. */
export function send(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Listens on a free port of 127.0.0.1; `close` also clears the fake's pending timers (its callbacks). */
export async function serveFake(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  internalError: unknown,
  timers: Set<NodeJS.Timeout>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, internalError);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
