import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { BrowserStep, CardAuthentication } from '../charges/card-authentication.ts';
import type { SandboxConnector } from '../connectors/sandbox/connector.ts';

/**
 * Pages for the payer's browser during 3-D Secure (outside /v1: no token, a browser follows
 * them). Nothing here trusts the browser: the payment's URLs carry a MAC, the outcome is read from
 * the acquirer. No script, no third-party origin, no referrer, nothing cached.
 */

const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(reply: FastifyReply, status: number, title: string, body: string): FastifyReply {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
  return reply.code(status).headers(SECURITY_HEADERS).type('text/html; charset=utf-8').send(html);
}

function step(reply: FastifyReply, next: BrowserStep): FastifyReply {
  if ('redirect' in next) return reply.code(303).headers(SECURITY_HEADERS).header('location', next.redirect).send();
  if (next.page === 'unknown') return page(reply, 404, 'Payment not found', '<p>This link is not valid.</p>');
  return page(reply, 200, 'Authentication finished', `<p>The payment is ${escapeHtml(next.status ?? '')}. You can close this window.</p>`);
}

const Params = Type.Object({ id: Type.String({ maxLength: 64 }), token: Type.String({ maxLength: 64 }) });
const SandboxParams = Type.Object({ reference: Type.String({ maxLength: 64 }) });
const SandboxAnswer = Type.Object(
  { result: Type.Union([Type.Literal('complete'), Type.Literal('fail')]) },
  { additionalProperties: false },
);

type PageDeps = { cardAuthentication: CardAuthentication; sandbox: SandboxConnector };

/** The payer's browser during 3-D Secure, in a scope of its own (the sandbox's challenge page posts a form). */
export async function registerCardAuthenticationRoutes(parent: FastifyInstance, deps: PageDeps): Promise<void> {
  await parent.register(async (app) => {
    await app.register(formbody, { bodyLimit: 4 * 1024 });
    registerPages(app, deps);
  });
}

function registerPages(app: FastifyInstance, deps: PageDeps): void {
  const hide = { hide: true };
  app.get<{ Params: { id: string; token: string } }>('/3ds/:id/:token', { schema: { ...hide, params: Params } }, async (request, reply) =>
    step(reply, await deps.cardAuthentication.start(request.params.id, request.params.token)),
  );
  app.get<{ Params: { id: string; token: string } }>(
    '/3ds/:id/:token/return',
    { schema: { ...hide, params: Params } },
    async (request, reply) => step(reply, await deps.cardAuthentication.returned(request.params.id, request.params.token)),
  );

  // The sandbox's challenge page: what an acquirer's 3-D Secure page is, with two buttons.
  app.get<{ Params: { reference: string } }>(
    '/sandbox/3ds/:reference',
    { schema: { ...hide, params: SandboxParams } },
    async (request, reply) => {
      const { reference } = request.params;
      if (!(await deps.sandbox.challengeOpen(reference))) return page(reply, 404, 'No challenge', '<p>This challenge is not open.</p>');
      const action = `/sandbox/3ds/${encodeURIComponent(reference)}`;
      const button = (result: string, label: string) =>
        `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="result" value="${result}"><button type="submit">${label}</button></form>`;
      return page(
        reply,
        200,
        'Sandbox 3-D Secure',
        `<p>A test challenge: no bank is asked. Choose what the payer does.</p>${button('complete', 'Complete')}${button('fail', 'Fail')}`,
      );
    },
  );
  app.post<{ Params: { reference: string }; Body: { result: 'complete' | 'fail' } }>(
    '/sandbox/3ds/:reference',
    { schema: { ...hide, params: SandboxParams, body: SandboxAnswer } },
    async (request, reply) => {
      const next = await deps.sandbox.answerChallenge(request.params.reference, request.body.result === 'complete');
      if (next === null) return page(reply, 404, 'No challenge', '<p>This challenge is not open.</p>');
      if (next === '') return page(reply, 200, 'Challenge answered', '<p>You can close this window.</p>');
      return step(reply, { redirect: next });
    },
  );
}
