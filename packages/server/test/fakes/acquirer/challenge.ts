// The 3-D Secure page `next_action.redirect_to_url.url` points at, like Stripe's test-mode mock
// authentication page: "Complete" or "Fail" posts back here, the outcome is applied, and the
// browser is sent (303) to the intent's `return_url` with `payment_intent` and
// `payment_intent_client_secret` added to its query. A page whose challenge is over changes
// nothing and sends the browser back again; an abandoned page leaves the intent requires_action.
import type { ServerResponse } from 'node:http';
import { formatAmount } from './currencies.ts';
import { parseForm } from './form.ts';
import { finishChallenge } from './intents.ts';
import { type Intent, newId } from './objects.ts';
import type { AcquirerState } from './state.ts';

export const CHALLENGE_PATH = /^\/3d_secure\/([A-Za-z0-9_-]+)$/;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

type Reply = { status: number; title: string; html: string } | { location: string };

function write(res: ServerResponse, reply: Reply): void {
  if ('location' in reply) {
    res.writeHead(303, { location: reply.location, 'cache-control': 'no-store' }).end();
    return;
  }
  res
    .writeHead(reply.status, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
    })
    .end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(reply.title)}</title></head>` +
        `<body><main>${reply.html}</main></body></html>`,
    );
}

/** The return URL with the intent's id and client secret in its query. */
export function returnLocation(returnUrl: string, intentId: string, clientSecret: string): string {
  const url = new URL(returnUrl);
  url.searchParams.set('payment_intent', intentId);
  url.searchParams.set('payment_intent_client_secret', clientSecret);
  return url.toString();
}

function challengePage(state: AcquirerState, intent: Intent, token: string): Reply {
  const amount = formatAmount(intent.amount, intent.currency, state.options.currencyExponents);
  const what = `${amount} with ${intent.card.brand} •••• ${intent.card.last4}`;
  return {
    status: 200,
    title: '3D Secure test authentication',
    html:
      `<h1>3D Secure 2 test authentication</h1><p>Authenticate the payment of ${escapeHtml(what)}.</p>` +
      `<form method="post" action="/3d_secure/${token}"><button type="submit" name="outcome" value="complete">Complete</button> ` +
      '<button type="submit" name="outcome" value="fail">Fail</button></form>',
  };
}

function answerChallenge(state: AcquirerState, method: string, token: string, rawBody: string): Reply {
  const intentId = state.challenges.get(token);
  const intent = intentId === undefined ? undefined : state.intents.get(intentId);
  if (!intent) return { status: 404, title: 'Not found', html: '<h1>No such authentication</h1>' };
  const open = intent.status === 'requires_action' && intent.challengeToken === token;
  if (method === 'GET') {
    return open ? challengePage(state, intent, token) : { status: 410, title: 'Over', html: '<h1>This authentication is over</h1>' };
  }
  if (method !== 'POST') return { status: 405, title: 'Method not allowed', html: '<h1>Method not allowed</h1>' };
  if (open) {
    let outcome: unknown;
    try {
      outcome = parseForm(rawBody).outcome;
    } catch {}
    if (outcome !== 'complete' && outcome !== 'fail')
      return { status: 400, title: 'Bad request', html: '<h1>Choose Complete or Fail</h1>' };
    finishChallenge(state, intent, outcome, { requestId: newId('req'), idempotencyKey: null, dropWebhooks: false });
  }
  if (intent.returnUrl === null) return { status: 200, title: 'Done', html: '<h1>Authentication done</h1><p>You can close this page.</p>' };
  return { location: returnLocation(intent.returnUrl, intent.id, intent.clientSecret) };
}

export function handleChallenge(state: AcquirerState, method: string, token: string, rawBody: string, res: ServerResponse): void {
  write(res, answerChallenge(state, method, token, rawBody));
}
