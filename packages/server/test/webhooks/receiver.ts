import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Received {
  /** The request path, e.g. /hooks or /callback: tells targets on one receiver apart. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** The status this receiver answered (undefined while it waits). */
  status?: number;
  /** True when a 2xx was written to a client still connected: a successful receipt. */
  ok: boolean;
}

export interface Behaviour {
  status: number;
  delayMs: number;
  location?: string;
  /** The size of the answer's body (default: the 2 bytes "ok"). */
  bodyBytes?: number;
  /** The answer's body as text (instead of bodyBytes). */
  text?: string;
}

/**
 * A webhook receiver on 127.0.0.1 whose answer tests can change (status, delay, redirect), for
 * every request (`respond`) or per request (`respondWith`). `port` re-opens a known port, so a
 * test can show a receiver that was down and came back.
 */
export async function startReceiver(options: { port?: number } = {}) {
  const received: Received[] = [];
  let behaviour: Behaviour = { status: 200, delayMs: 0 };
  let chooser: ((request: Received) => Behaviour | undefined) | null = null;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const entry: Received = { path: new URL(req.url ?? '/', 'http://x').pathname, headers: req.headers, body, at: Date.now(), ok: false };
      received.push(entry);
      const { status, delayMs, location, bodyBytes, text } = chooser?.(entry) ?? behaviour;
      setTimeout(() => {
        if (res.destroyed || req.socket.destroyed) return; // the sender gave up (timeout)
        entry.status = status;
        entry.ok = status >= 200 && status < 300;
        if (location) res.setHeader('location', location);
        res.writeHead(status).end(text ?? (bodyBytes === undefined ? 'ok' : Buffer.alloc(bodyBytes, 0x61)));
      }, delayMs);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const port = (server.address() as { port: number }).port;
  const base = `http://127.0.0.1:${port}`;
  return {
    port,
    base,
    url: `${base}/hooks`,
    received,
    respond(status: number, delayMs = 0, location?: string) {
      behaviour = { status, delayMs, ...(location ? { location } : {}) };
    },
    /** Per-request answer; undefined falls back to `respond`'s. */
    respondWith(fn: ((request: Received) => Behaviour | undefined) | null) {
      chooser = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
