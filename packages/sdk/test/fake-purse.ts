// A stand-in for Purse over real HTTP (node:http on 127.0.0.1): it records every request and
// answers what the test's route says, including a dropped connection or no answer at all. The
// token endpoint answers by itself, numbering its tokens, unless the route takes it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  method: string;
  /** Path and query, as sent. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** When the request had been read (Date.now()). */
  at: number;
}

/** An answer; 'drop' destroys the connection after reading the request; 'hang' never answers. */
export type Reply = { status: number; headers?: Record<string, string>; json?: unknown; text?: string } | 'drop' | 'hang' | undefined;

export interface FakePurse {
  base: string;
  seen: Seen[];
  /** Requests other than the token endpoint's. */
  calls(): Seen[];
  tokens(): Seen[];
  close(): Promise<void>;
}

export interface FakeOptions {
  /** expires_in of the tokens it hands out (seconds). Default 3600. */
  tokenLifeS?: number;
}

export async function startFakePurse(route: (request: Seen) => Reply | Promise<Reply>, options: FakeOptions = {}): Promise<FakePurse> {
  const seen: Seen[] = [];
  let issued = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const request: Seen = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      seen.push(request);
      let reply = await route(request);
      if (reply === undefined && request.path === '/oauth/token') {
        issued += 1;
        reply = { status: 200, json: { access_token: `tok_${issued}`, token_type: 'Bearer', expires_in: options.tokenLifeS ?? 3600 } };
      }
      if (reply === 'hang') return;
      if (reply === 'drop' || reply === undefined) return req.socket.destroy();
      const body = reply.json === undefined ? (reply.text ?? '') : JSON.stringify(reply.json);
      const type = reply.json === undefined ? 'text/plain' : 'application/json';
      res.writeHead(reply.status, { 'content-type': type, ...reply.headers }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    calls: () => seen.filter((s) => s.path !== '/oauth/token'),
    tokens: () => seen.filter((s) => s.path === '/oauth/token'),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The API's error envelope. */
export const apiError = (status: number, code: string, extra: Record<string, unknown> = {}): Reply => ({
  status,
  json: { error: { type: status >= 500 ? 'api_error' : 'invalid_request_error', code, message: `${code} happened`, ...extra } },
});

/** A list page of `{id}` objects. */
export const page = (ids: string[], hasMore: boolean): Reply => ({
  status: 200,
  json: { object: 'list', data: ids.map((id) => ({ id })), has_more: hasMore },
});
