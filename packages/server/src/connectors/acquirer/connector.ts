import { isIdOf } from '../../shared/ids.ts';
import type {
  AuthorisationOutcome,
  CancelRequest,
  CaptureRequest,
  Connector,
  InitiateRequest,
  OutboundRequest,
  StatusOutcome,
} from '../connector.ts';
import { ProviderHttpError } from '../provider-error.ts';
import type { AcquirerConfig } from './config.ts';
import { encodeForm, failureOf, type Intent, outcomeOfIntent, outcomeOfRefund, type Refund, toAcquirer } from './transformers.ts';
import { acquirerCallbacks } from './webhooks.ts';

/** Stored in charges.provider and outflows.provider; names the webhook route /provider-callbacks/acquirer. */
export const ACQUIRER = 'acquirer';

/**
 * The idempotency key of one operation: derived from the Purse id that was stored before any
 * call (the payment's, the refund's) and the operation, so every retry after a lost answer sends
 * the same key with the same body, and the acquirer answers what it did the first time.
 */
export const acquirerKey = (purseId: string, operation: 'authorise' | 'refund') => `${purseId}:${operation}`;

interface Answer {
  status: number;
  json: Record<string, unknown>;
}

/**
 * A card acquirer speaking Stripe's PaymentIntents API: Purse sends raw card data (it is the
 * PCI DSS entity), form-encoded with bracketed keys, under a Bearer secret key, amounts in the
 * acquirer's integer units. A decline is an HTTP 402 card_error, mapped to a failure; an unknown
 * outcome (timeout, 5xx, 409 key in use, a lost connection) throws, which leaves the payment
 * pending for the worker, who asks with the GET (or finds the intent by its metadata when its id
 * never came back) and replays with the same key only what the acquirer never saw.
 */
/** What every call needs: where the acquirer is, its key, and what must never reach an error. */
interface Api {
  config: AcquirerConfig;
  secrets: readonly string[];
}

const refusal = (api: Api, operation: string, problem: string, status = 404) =>
  new ProviderHttpError({ provider: ACQUIRER, operation, status, secrets: api.secrets, problem });

/**
 * One call. A success, a 402 decline and a 400 state refusal are answers; anything else (5xx,
 * 409 key in use, 401, a body that is not JSON) leaves the outcome unknown and throws, with the
 * answer masked: the caller retries later with the same key.
 */
async function call(
  api: Api,
  operation: string,
  path: string,
  signal: AbortSignal,
  post?: { form: Record<string, unknown>; key: string; secrets?: readonly string[] },
) {
  const headers: Record<string, string> = { authorization: `Bearer ${api.config.secretKey}` };
  if (post) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers['idempotency-key'] = post.key;
  }
  const res = await fetch(`${api.config.baseUrl}${path}`, {
    method: post ? 'POST' : 'GET',
    headers,
    body: post ? encodeForm(post.form) : undefined,
    signal,
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {}
  const fail = (problem?: string) =>
    // An acquirer echoing the request back must not put the card number or CVC in an error.
    new ProviderHttpError({
      provider: ACQUIRER,
      operation,
      status: res.status,
      body: text,
      secrets: [...api.secrets, ...(post?.secrets ?? [])],
      problem,
    });
  if (json === null || typeof json !== 'object') throw fail(`answered ${res.status} without JSON`);
  const answer: Answer = { status: res.status, json: json as Record<string, unknown> };
  if (res.status >= 200 && res.status < 300) return answer;
  const error = (answer.json.error ?? {}) as { type?: string; code?: string };
  if (res.status === 402 && error.type === 'card_error') return answer;
  if (res.status === 400 && error.code === 'payment_intent_unexpected_state') return answer;
  throw fail();
}

const getIntent = async (api: Api, id: string, signal: AbortSignal) =>
  (await call(api, 'retrieve payment intent', `/v1/payment_intents/${encodeURIComponent(id)}?expand[]=latest_charge`, signal))
    .json as unknown as Intent;

/** The intent of a Purse payment whose create answer was lost: found by its metadata (search lags a little). */
async function findIntent(api: Api, paymentId: string, signal: AbortSignal): Promise<Intent | null> {
  const query = encodeURIComponent(`metadata['purse_payment_id']:'${paymentId}'`);
  const found = await call(api, 'search payment intents', `/v1/payment_intents/search?query=${query}`, signal);
  const data = (found.json.data ?? []) as Intent[];
  return data[0] ? getIntent(api, data[0].id, signal) : null;
}

/** The answer of a create, capture or cancel → the payment's state at the acquirer. */
async function stateOf(api: Api, answer: Answer, signal: AbortSignal): Promise<AuthorisationOutcome> {
  if (answer.status === 402) {
    const error = answer.json.error as { code?: string; decline_code?: string; payment_intent?: { id?: string } };
    return { status: 'failed', providerReference: error.payment_intent?.id ?? null, failureCode: failureOf(error) };
  }
  if (answer.status === 400) {
    // A capture or cancel the state no longer allows: the state as it is.
    const intent = (answer.json.error as { payment_intent?: { id?: string } }).payment_intent;
    if (!intent?.id) throw refusal(api, 'state refusal', 'refused without naming the intent', 400);
    return outcomeOfIntent(await getIntent(api, intent.id, signal));
  }
  const intent = answer.json as unknown as Intent;
  // Capture deadlines and 3-D Secure are on the charge: read expanded when the answer lacks it.
  return typeof intent.latest_charge === 'object' && intent.latest_charge !== null
    ? outcomeOfIntent(intent)
    : outcomeOfIntent(await getIntent(api, intent.id, signal));
}

function authoriseForm(request: InitiateRequest): Record<string, unknown> {
  if (request.method.type !== 'card') throw new Error('the card acquirer takes cards only');
  const card = request.method;
  return {
    amount: toAcquirer(request.amountMinor, request.currency).toString(),
    currency: request.currency.toLowerCase(),
    confirm: 'true',
    capture_method: request.captureMethod ?? 'automatic',
    ...(request.returnUrl ? { return_url: request.returnUrl } : {}),
    payment_method_data: { type: 'card', card: { number: card.number, exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvc } },
    metadata: { purse_payment_id: request.idempotencyKey },
    // The charge (capture deadline, 3-D Secure) in the answer itself: no second round trip.
    'expand[]': 'latest_charge',
  };
}

/** The intent a capture or cancel is for: its id, or found by the payment's metadata. */
async function intentIdOf(
  api: Api,
  request: { providerReference: string | null; paymentKey: string },
  signal: AbortSignal,
  operation: string,
) {
  const id = request.providerReference ?? (await findIntent(api, request.paymentKey, signal))?.id;
  if (!id) throw refusal(api, operation, 'has no intent');
  return id;
}

async function capture(api: Api, request: CaptureRequest, signal: AbortSignal) {
  const id = await intentIdOf(api, request, signal, 'capture');
  const form = { amount_to_capture: toAcquirer(request.amountMinor, request.currency).toString(), 'expand[]': 'latest_charge' };
  const path = `/v1/payment_intents/${encodeURIComponent(id)}/capture`;
  return stateOf(api, await call(api, 'capture payment intent', path, signal, { form, key: request.idempotencyKey }), signal);
}

async function cancel(api: Api, request: CancelRequest, signal: AbortSignal) {
  const id = await intentIdOf(api, request, signal, 'cancel');
  // The acquirer takes its own reasons: Purse's expired is never sent (the acquirer expires holds itself).
  const reason = request.reason === 'expired' ? 'abandoned' : request.reason;
  const path = `/v1/payment_intents/${encodeURIComponent(id)}/cancel`;
  return stateOf(
    api,
    await call(api, 'cancel payment intent', path, signal, {
      form: { cancellation_reason: reason, 'expand[]': 'latest_charge' },
      key: request.idempotencyKey,
    }),
    signal,
  );
}

async function refund(api: Api, request: OutboundRequest, signal: AbortSignal) {
  if (request.kind !== 'refund' || request.destination.type !== 'card') throw new Error('the card acquirer only refunds card payments');
  const intent = request.destination.paymentProviderReference;
  if (!intent) throw refusal(api, 'refund', 'has no intent to refund');
  const form = {
    payment_intent: intent,
    amount: toAcquirer(request.amountMinor, request.currency).toString(),
    metadata: { purse_refund_id: request.idempotencyKey, purse_payment_id: request.destination.paymentKey },
  };
  const answer = await call(api, 'create refund', '/v1/refunds', signal, { form, key: acquirerKey(request.idempotencyKey, 'refund') });
  return outcomeOfRefund(answer.json as unknown as Refund);
}

async function status(
  api: Api,
  request: { idempotencyKey: string; providerReference: string | null },
  signal: AbortSignal,
): Promise<StatusOutcome> {
  if (isIdOf('refund', request.idempotencyKey)) {
    // A refund whose id never came back is not found here: the outflow worker sends it again, with its key.
    if (!request.providerReference) return { status: 'not_found' };
    const answer = await call(api, 'retrieve refund', `/v1/refunds/${encodeURIComponent(request.providerReference)}`, signal);
    return outcomeOfRefund(answer.json as unknown as Refund);
  }
  const intent = request.providerReference
    ? await getIntent(api, request.providerReference, signal)
    : await findIntent(api, request.idempotencyKey, signal);
  return intent ? outcomeOfIntent(intent) : { status: 'not_found' };
}

/**
 * A card acquirer speaking Stripe's PaymentIntents API: Purse sends raw card data (it is the
 * PCI DSS entity), form-encoded with bracketed keys, under a Bearer secret key, amounts in the
 * acquirer's integer units. A decline is an HTTP 402 card_error, mapped to a failure; an unknown
 * outcome (timeout, 5xx, 409 key in use, a lost connection) throws, which leaves the payment
 * pending for the worker, who asks with the GET (or finds the intent by its metadata when its id
 * never came back) and replays with the same key only what the acquirer never saw.
 */
export function createAcquirerConnector(deps: { config: AcquirerConfig; nowS?: () => number }): Connector {
  const api: Api = { config: deps.config, secrets: [deps.config.secretKey, ...deps.config.webhookSecrets] };
  return {
    name: ACQUIRER,
    serves: [{ means: 'card', network: null, livemode: true }],
    callbacks: acquirerCallbacks(deps.config.webhookSecrets, deps.nowS ?? (() => Math.floor(Date.now() / 1000))),
    async initiate(request, signal) {
      const answer = await call(api, 'create payment intent', '/v1/payment_intents', signal, {
        form: authoriseForm(request),
        key: acquirerKey(request.idempotencyKey, 'authorise'),
        secrets: request.method.type === 'card' ? [request.method.number, request.method.cvc] : [],
      });
      return stateOf(api, answer, signal);
    },
    capture: (request, signal) => capture(api, request, signal),
    cancel: (request, signal) => cancel(api, request, signal),
    sendOut: (request, signal) => refund(api, request, signal),
    getStatus: (request, signal) => status(api, request, signal),
  };
}
