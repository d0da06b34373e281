// One entry per endpoint: its method and path, the parameters it takes, and `prepare`, which
// validates them (throwing ParamError, so nothing is saved under an idempotency key) and returns
// the action that runs once the endpoint has begun.
import { readCard } from './cards.ts';
import { checkAmount } from './currencies.ts';
import { type Answer, invalidRequest, noSuchObject } from './errors.ts';
import type { Endpoint } from './faults.ts';
import type { FormObject } from './form.ts';
import { cancelIntent, captureIntent, createIntent } from './intents.ts';
import { chargeJson, type Intent, refundJson } from './objects.ts';
import { booleanAt, enumAt, expandAt, integerAt, metadataAt, type Spec, stringAt } from './params.ts';
import { createRefund } from './refunds.ts';
import type { AcquirerState, Cause } from './state.ts';

export interface Call {
  account: string;
  params: FormObject;
  /** The id in the path, for /v1/…/{id}. */
  id: string;
  cause: Cause;
}

export interface Handler {
  endpoint: Endpoint;
  method: 'GET' | 'POST';
  path: RegExp;
  spec: { [key: string]: Spec };
  prepare(call: Call): () => Answer;
}

const CARD_SPEC: Spec = { type: 'string', card: { number: 'string', exp_month: 'string', exp_year: 'string', cvc: 'string' } };

function returnUrlOf(params: FormObject): string | null {
  const value = stringAt(params, ['return_url'], false);
  if (value === undefined) return null;
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {}
  if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw invalidRequest(`Not a valid URL: ${value}`, { code: 'url_invalid', param: 'return_url' });
  }
  return value;
}

function prepareCreate(state: AcquirerState, { account, params, cause }: Call): () => Answer {
  const amount = integerAt(params, ['amount'], true) as number;
  const currency = stringAt(params, ['currency'], true) as string;
  checkAmount(amount, currency, state.options.currencyExponents);
  if (booleanAt(params, ['confirm']) !== true) {
    throw invalidRequest('This fake models creating and confirming at once only: send confirm=true with payment_method_data.', {
      param: 'confirm',
    });
  }
  const captureMethod = enumAt(params, ['capture_method'], ['automatic', 'automatic_async', 'manual'] as const) ?? 'automatic_async';
  const types = params.payment_method_types;
  if (types !== undefined && (!Array.isArray(types) || types.join() !== 'card')) {
    throw invalidRequest('This fake takes cards only: payment_method_types[]=card.', { param: 'payment_method_types' });
  }
  if (stringAt(params, ['payment_method_data', 'type'], true) !== 'card') {
    throw invalidRequest('Invalid payment_method_data[type]: this fake takes card only.', { param: 'payment_method_data[type]' });
  }
  const card = readCard(
    {
      number: stringAt(params, ['payment_method_data', 'card', 'number'], true) as string,
      expMonth: stringAt(params, ['payment_method_data', 'card', 'exp_month'], true) as string,
      expYear: stringAt(params, ['payment_method_data', 'card', 'exp_year'], true) as string,
      cvc: stringAt(params, ['payment_method_data', 'card', 'cvc'], false),
    },
    new Date(state.nowMs()),
  );
  const input = {
    account,
    amount,
    currency,
    captureMethod,
    returnUrl: returnUrlOf(params),
    description: stringAt(params, ['description'], false) ?? null,
    metadata: metadataAt(params),
    card,
    expand: expandAt(params, ['latest_charge']),
  };
  return () => createIntent(state, input, cause);
}

/** The intent of the path, when it belongs to the caller's account. */
function ownIntent(state: AcquirerState, call: Call): Intent | undefined {
  const intent = state.intents.get(call.id);
  return intent?.account === call.account ? intent : undefined;
}

/** Search is eventually consistent on Stripe: an intent shows up `searchLagMs` after its creation. */
function prepareSearch(state: AcquirerState, call: Call, searchLagMs: number): () => Answer {
  const query = stringAt(call.params, ['query'], true) as string;
  const match = /^metadata\['([^']+)'\]:'([^']*)'$/.exec(query.trim());
  if (!match) throw invalidRequest("This fake searches by one metadata value only: query=metadata['key']:'value'.", { param: 'query' });
  const limit = integerAt(call.params, ['limit'], false) ?? 10;
  if (limit < 1 || limit > 100) throw invalidRequest('Invalid limit: must be between 1 and 100.', { param: 'limit' });
  const [, key, value] = match as unknown as [string, string, string];
  return () => {
    const found = [...state.intents.values()]
      .filter((i) => i.account === call.account && i.metadata[key] === value && i.createdMs + searchLagMs <= state.nowMs())
      .sort((a, b) => b.createdMs - a.createdMs);
    const data = found.slice(0, limit).map((i) => state.intentJson(i));
    const body = { object: 'search_result', url: '/v1/payment_intents/search', has_more: found.length > limit, next_page: null, data };
    return { status: 200, body };
  };
}

const missing = (kind: string, id: string) => noSuchObject(kind, id, 'id');

/** The endpoints, each with the state and the options it needs handed in. */
const ENDPOINT_TABLE: readonly (Omit<Handler, 'prepare'> & {
  prepare(state: AcquirerState, call: Call, options: { searchLagMs: number }): () => Answer;
})[] = [
  {
    endpoint: 'create_intent',
    method: 'POST',
    path: /^\/v1\/payment_intents$/,
    spec: {
      amount: 'string',
      currency: 'string',
      confirm: 'string',
      capture_method: 'string',
      return_url: 'string',
      description: 'string',
      metadata: 'map',
      expand: 'strings',
      payment_method_types: 'strings',
      payment_method_data: CARD_SPEC,
    },
    prepare: (state, call) => prepareCreate(state, call),
  },
  {
    endpoint: 'search_intents',
    method: 'GET',
    path: /^\/v1\/payment_intents\/search$/,
    spec: { query: 'string', limit: 'string', page: 'string' },
    prepare: (state, call, options) => prepareSearch(state, call, options.searchLagMs),
  },
  {
    endpoint: 'retrieve_intent',
    method: 'GET',
    path: /^\/v1\/payment_intents\/([^/]+)$/,
    spec: { expand: 'strings' },
    prepare: (state, call) => {
      const expand = expandAt(call.params, ['latest_charge']);
      return () => {
        const intent = ownIntent(state, call);
        return intent ? { status: 200, body: state.intentJson(intent, expand) } : missing('payment_intent', call.id);
      };
    },
  },
  {
    endpoint: 'capture_intent',
    method: 'POST',
    path: /^\/v1\/payment_intents\/([^/]+)\/capture$/,
    spec: { amount_to_capture: 'string', metadata: 'map', expand: 'strings' },
    prepare: (state, call) => {
      const input = {
        amountToCapture: integerAt(call.params, ['amount_to_capture'], false),
        metadata: metadataAt(call.params),
        expand: expandAt(call.params, ['latest_charge']),
      };
      return () => {
        const intent = ownIntent(state, call);
        return intent ? captureIntent(state, intent, input, call.cause) : missing('payment_intent', call.id);
      };
    },
  },
  {
    endpoint: 'cancel_intent',
    method: 'POST',
    path: /^\/v1\/payment_intents\/([^/]+)\/cancel$/,
    spec: { cancellation_reason: 'string', expand: 'strings' },
    prepare: (state, call) => {
      const reasons = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'] as const;
      const input = {
        reason: enumAt(call.params, ['cancellation_reason'], reasons) ?? null,
        expand: expandAt(call.params, ['latest_charge']),
      };
      return () => {
        const intent = ownIntent(state, call);
        return intent ? cancelIntent(state, intent, input, call.cause) : missing('payment_intent', call.id);
      };
    },
  },
  {
    endpoint: 'retrieve_charge',
    method: 'GET',
    path: /^\/v1\/charges\/([^/]+)$/,
    spec: {},
    prepare: (state, call) => () => {
      const charge = state.charges.get(call.id);
      const intent = charge ? state.intents.get(charge.intentId) : undefined;
      if (!charge || intent?.account !== call.account) return missing('charge', call.id);
      return { status: 200, body: chargeJson(charge, intent) };
    },
  },
  {
    endpoint: 'create_refund',
    method: 'POST',
    path: /^\/v1\/refunds$/,
    spec: { payment_intent: 'string', charge: 'string', amount: 'string', reason: 'string', metadata: 'map' },
    prepare: (state, call) => {
      const intentId = stringAt(call.params, ['payment_intent'], false);
      const chargeId = stringAt(call.params, ['charge'], false);
      if (intentId === undefined && chargeId === undefined) {
        throw invalidRequest('One of `charge` or `payment_intent` is required.', { code: 'parameter_missing', param: 'payment_intent' });
      }
      const input = {
        account: call.account,
        intentId,
        chargeId,
        amount: integerAt(call.params, ['amount'], false),
        reason: enumAt(call.params, ['reason'], ['duplicate', 'fraudulent', 'requested_by_customer'] as const) ?? null,
        metadata: metadataAt(call.params),
      };
      return () => createRefund(state, input, call.cause);
    },
  },
  {
    endpoint: 'retrieve_refund',
    method: 'GET',
    path: /^\/v1\/refunds\/([^/]+)$/,
    spec: {},
    prepare: (state, call) => () => {
      const refund = state.refunds.get(call.id);
      return refund?.account === call.account ? { status: 200, body: refundJson(refund) } : missing('refund', call.id);
    },
  },
  {
    endpoint: 'retrieve_event',
    method: 'GET',
    path: /^\/v1\/events\/([^/]+)$/,
    spec: {},
    prepare: (state, call) => () => {
      const event = state.webhooks.events.find((e) => e.id === call.id);
      return event ? { status: 200, body: event } : missing('event', call.id);
    },
  },
  {
    endpoint: 'list_events',
    method: 'GET',
    path: /^\/v1\/events$/,
    spec: { limit: 'string', type: 'string' },
    prepare: (state, call) => {
      const limit = integerAt(call.params, ['limit'], false) ?? 10;
      const type = stringAt(call.params, ['type'], false);
      return () => {
        const all = state.webhooks.events.filter((e) => type === undefined || e.type === type).reverse();
        const data = all.slice(0, limit);
        return { status: 200, body: { object: 'list', url: '/v1/events', has_more: all.length > data.length, data } };
      };
    },
  },
];

export function createHandlers(state: AcquirerState, searchLagMs: number): Handler[] {
  return ENDPOINT_TABLE.map((entry) => ({ ...entry, prepare: (call: Call) => entry.prepare(state, call, { searchLagMs }) }));
}
