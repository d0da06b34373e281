import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where `npm install` (the root postinstall) leaves the Vite build of packages/dashboard. */
export const DASHBOARD_DIST_DIR = fileURLToPath(new URL('../../../dashboard/dist/', import.meta.url));

/**
 * The page runs only its own files and talks only to this origin: no inline script or style, no
 * framing, no forms posted elsewhere. The token lives in the page's memory, so a script injected
 * from anywhere else is the one thing that could read it.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

const NOT_BUILT =
  'The dashboard is not built. Run `npm install` at the repository root (its postinstall builds it), ' +
  'or `npm run build -w @purse/dashboard`, then restart Purse.\n';

// Outside /v1 and out of the OpenAPI document: these are files, not the API.
const hidden = { schema: { hide: true } };

/**
 * GET /dashboard: the built single-page app. Hashed assets are cached for good; index.html is
 * revalidated so a new build is picked up. Any other path under /dashboard/ is a client route and
 * gets index.html, except under assets/, where a missing file is a 404 rather than a page.
 */
export async function registerDashboardRoutes(app: FastifyInstance, options: { distDir?: string } = {}): Promise<void> {
  const root = options.distDir ?? DASHBOARD_DIST_DIR;
  await app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply) => {
      void reply.headers(SECURITY_HEADERS);
    });
    if (!existsSync(join(root, 'index.html'))) {
      const unavailable = async (_request: FastifyRequest, reply: FastifyReply) =>
        reply.code(503).type('text/plain; charset=utf-8').send(NOT_BUILT);
      scope.get('/dashboard', hidden, unavailable);
      scope.get('/dashboard/*', hidden, unavailable);
      return;
    }
    await scope.register(fastifyStatic, {
      root,
      prefix: '/dashboard/',
      // One route per file found at start (the build is immutable while running); the catch-all below is ours.
      wildcard: false,
      index: false,
      cacheControl: false,
      setHeaders: (reply, path) => {
        reply.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
    const page = async (_request: FastifyRequest, reply: FastifyReply) => reply.sendFile('index.html');
    scope.get('/dashboard', hidden, page);
    scope.get('/dashboard/', hidden, page);
    scope.get('/dashboard/*', hidden, async (request, reply) => {
      if (request.url.startsWith('/dashboard/assets/')) return reply.callNotFound();
      return reply.sendFile('index.html');
    });
  });
}
