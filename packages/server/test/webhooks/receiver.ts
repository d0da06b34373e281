import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A webhook receiver on 127.0.0.1 whose answer tests can change (status, delay, redirect). */
export async function startReceiver() {
  const received: Received[] = [];
  let behaviour: { status: number; delayMs: number; location?: string } = { status: 200, delayMs: 0 };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body, at: Date.now() });
      const { status, delayMs, location } = behaviour;
      setTimeout(() => {
        if (location) res.setHeader('location', location);
        res.writeHead(status).end('ok');
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`;
  return {
    url,
    received,
    respond(status: number, delayMs = 0, location?: string) {
      behaviour = { status, delayMs, ...(location ? { location } : {}) };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
