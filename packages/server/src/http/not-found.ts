import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { API_VERSION } from '../shared/api-version.ts';
import { ApiError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { nearest } from './validation-errors.ts';

/**
 * For the router's own refusals (an id longer than maxParamLength, a broken %-encoding), which
 * get raw Node objects: the same 404 envelope and headers as any unknown object.
 */
export function rawNotFound(_path: string, _req: IncomingMessage, res: ServerResponse): void {
  const requestId = newId('request');
  const body = JSON.stringify(new ApiError('resource_not_found', 'No such object.').body(requestId));
  res.writeHead(404, { 'content-type': 'application/json; charset=utf-8', 'request-id': requestId, 'api-version': API_VERSION });
  res.end(body);
}

/**
 * Fastify answers 404 for a known path with another method; the contract wants 405 + Allow.
 * Routes are collected as they are added and matched by pattern on a miss.
 */
export function registerNotFound(app: FastifyInstance): void {
  const routes: { pattern: RegExp; methods: Set<string> }[] = [];
  const byUrl = new Map<string, Set<string>>();

  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let set = byUrl.get(route.url);
    if (!set) {
      set = new Set();
      byUrl.set(route.url, set);
      const source = route.url
        .split('/')
        .map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/');
      routes.push({ pattern: new RegExp(`^${source}$`), methods: set });
    }
    for (const method of methods) set.add(method);
  });

  app.setNotFoundHandler(async (request) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = routes.find((r) => r.pattern.test(path))?.methods;
    if (allowed && allowed.size > 0 && !allowed.has(request.method)) {
      throw new ApiError('method_not_allowed', `${request.method} is not allowed on ${path}.`, {
        headers: { allow: [...allowed].sort().join(', ') },
      });
    }
    const guess = nearRoute(path, request.method, byUrl);
    throw new ApiError('route_not_found', `No route ${request.method} ${path}.${guess ? ` Did you mean ${request.method} ${guess}?` : ''}`);
  });
}

/**
 * A route one misspelt segment away that takes the method (`/v1/payment` → /v1/payments,
 * `/v1/topup` → /v1/topups), with the request's own values in the route's parameters.
 */
function nearRoute(path: string, method: string, byUrl: Map<string, Set<string>>): string | null {
  const sent = path.split('/');
  for (const [url, methods] of byUrl) {
    const parts = url.split('/');
    if (!methods.has(method) || parts.length !== sent.length) continue;
    const differing = parts.flatMap((part, i) => (!part.startsWith(':') && part !== sent[i] ? [i] : []));
    const i = differing[0];
    if (differing.length !== 1 || i === undefined || nearest(sent[i] ?? '', [parts[i] ?? '']) === null) continue;
    return parts.map((part, j) => (part.startsWith(':') ? sent[j] : part)).join('/');
  }
  return null;
}
