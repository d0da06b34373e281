// The Purse client: one object per resource, each method one operation of the document, named by
// its path and method (call() only takes paths the document has for that method, and the body and
// answer are that operation's).
import { PurseError } from './errors.js';
import { pager, type QueryValue, queryString } from './pager.js';
import type {
  ApiKeys,
  AuditEvents,
  BalanceTransactions,
  CheckoutSessions,
  CollectionPath,
  Crud,
  Events,
  PaymentLinks,
  Payments,
  Retrievable,
  Sandbox,
  SandboxControls,
  Wallets,
  WebhookEndpoints,
  WebhookEndpointWithSecret,
  WebhookSecret,
} from './resources.js';
import { Transport } from './transport.js';
import type {
  Answer,
  Balance,
  Event,
  HttpMethod,
  ItemOf,
  Merchant,
  Page,
  PageIterator,
  PathOf,
  PurseOptions,
  RequestBody,
  WebhookHeaders,
} from './types.js';
import { verifyWebhook } from './webhooks.js';

interface CallInit {
  /** Values for the path's {placeholders}. */
  path?: Record<string, string>;
  query?: object;
  accept?: 'application/json' | 'text/csv';
}

/** `/v1/payments/{id}` with {id} filled in, encoded; a missing or empty value is refused before any request. */
function fillPath(template: string, values: Record<string, string> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values[name];
    if (typeof value !== 'string' || value === '') {
      throw new PurseError({
        message: `${name} is required (a non-empty string).`,
        type: 'invalid_request_error',
        code: 'parameter_missing',
        param: name,
      });
    }
    return encodeURIComponent(value);
  });
}

const FORMS = 'new Purse({ baseUrl, clientId, clientSecret }) or new Purse({ baseUrl, accessToken })';

/** Refuses options a JavaScript caller (no compiler to stop it) got wrong, before any request. */
function checkOptions(options: PurseOptions): void {
  if (!options || typeof options.baseUrl !== 'string') throw new TypeError(`${FORMS}: baseUrl is required`);
  const loose = options as { clientId?: unknown; clientSecret?: unknown; accessToken?: unknown };
  const credentials = loose.clientId !== undefined || loose.clientSecret !== undefined;
  const token = loose.accessToken !== undefined;
  if (credentials && token) {
    throw new TypeError(`${FORMS}: give clientId and clientSecret, or accessToken, not both`);
  }
  if (token) {
    if (typeof loose.accessToken !== 'function') {
      throw new TypeError(`${FORMS}: accessToken must be a function that returns a Promise of the token`);
    }
    return;
  }
  if (typeof loose.clientId !== 'string' || typeof loose.clientSecret !== 'string') {
    throw new TypeError(`${FORMS}: clientId and clientSecret are required (two strings), or else accessToken`);
  }
}

export class Purse {
  readonly #transport: Transport;
  readonly payments: Payments;
  readonly topups: Crud<'/v1/topups', '/v1/topups/{id}'>;
  readonly refunds: Crud<'/v1/refunds', '/v1/refunds/{id}'>;
  readonly payouts: Crud<'/v1/payouts', '/v1/payouts/{id}'>;
  readonly transfers: Crud<'/v1/transfers', '/v1/transfers/{id}'>;
  readonly wallets: Wallets;
  /** Hosted checkout: send the payer to a session's url; the card never reaches your server. */
  readonly checkoutSessions: CheckoutSessions;
  /** Reusable links (and QR codes): each visit opens a checkout session. */
  readonly paymentLinks: PaymentLinks;
  readonly merchant: Retrievable<Merchant>;
  readonly balance: Retrievable<Balance>;
  readonly balanceTransactions: BalanceTransactions;
  readonly events: Events;
  readonly webhookEndpoints: WebhookEndpoints;
  /** The merchant's default secret, which signs deliveries to a payment's or top-up's callback_url. */
  readonly webhookSecret: WebhookSecret;
  readonly sandbox: Sandbox;
  readonly apiKeys: ApiKeys;
  readonly auditEvents: AuditEvents;

  constructor(options: PurseOptions) {
    checkOptions(options);
    this.#transport = new Transport(options);
    this.payments = {
      ...this.#crud('/v1/payments', '/v1/payments/{id}'),
      capture: (id, params) => this.#call('post', '/v1/payments/{id}/capture', { path: { id }, ...(params ? { body: params } : {}) }),
      cancel: (id, params) => this.#call('post', '/v1/payments/{id}/cancel', { path: { id }, ...(params ? { body: params } : {}) }),
    };
    this.topups = this.#crud('/v1/topups', '/v1/topups/{id}');
    this.refunds = this.#crud('/v1/refunds', '/v1/refunds/{id}');
    this.payouts = this.#crud('/v1/payouts', '/v1/payouts/{id}');
    this.transfers = this.#crud('/v1/transfers', '/v1/transfers/{id}');
    this.checkoutSessions = {
      ...this.#crud('/v1/checkout_sessions', '/v1/checkout_sessions/{id}'),
      expire: (id) => this.#call('post', '/v1/checkout_sessions/{id}/expire', { path: { id } }),
    };
    this.paymentLinks = {
      ...this.#crud('/v1/payment_links', '/v1/payment_links/{id}'),
      update: (id, params) => this.#call('patch', '/v1/payment_links/{id}', { path: { id }, body: params }),
    };
    this.wallets = {
      ...this.#crud('/v1/wallets', '/v1/wallets/{id}'),
      freeze: (id) => this.#call('post', '/v1/wallets/{id}/freeze', { path: { id } }),
      unfreeze: (id) => this.#call('post', '/v1/wallets/{id}/unfreeze', { path: { id } }),
      transactions: (id, params = {}) => this.#list('/v1/wallets/{id}/transactions', params, { id }),
    };
    this.merchant = { retrieve: () => this.#call('get', '/v1/merchant', {}) };
    this.balance = { retrieve: () => this.#call('get', '/v1/balance', {}) };
    this.balanceTransactions = {
      list: (params = {}) => this.#list('/v1/balance_transactions', params),
      csv: (params = {}) =>
        this.#call('get', '/v1/balance_transactions', { query: params, accept: 'text/csv' }) as Promise<unknown> as Promise<string>,
    };
    this.events = {
      retrieve: (id) => this.#call('get', '/v1/events/{id}', { path: { id } }),
      list: (params = {}) => this.#list('/v1/events', params),
      deliveries: (id) => this.#call('get', '/v1/events/{id}/deliveries', { path: { id } }),
      redeliver: (id) => this.#call('post', '/v1/events/{id}/redeliver', { path: { id } }),
    };
    this.webhookEndpoints = this.#webhookEndpoints();
    this.webhookSecret = {
      retrieve: () => this.#call('get', '/v1/webhook_secret', {}),
      rotate: () => this.#call('post', '/v1/webhook_secret/rotate', {}),
    };
    this.apiKeys = {
      create: (params) => this.#call('post', '/v1/api_keys', { body: params }),
      retrieve: (id) => this.#call('get', '/v1/api_keys/{id}', { path: { id } }),
      list: (params = {}) => this.#list('/v1/api_keys', params),
      roll: (id, params) => this.#call('post', '/v1/api_keys/{id}/roll', { path: { id }, ...(params ? { body: params } : {}) }),
      revoke: (id) => this.#call('delete', '/v1/api_keys/{id}', { path: { id } }),
    };
    this.auditEvents = { list: (params = {}) => this.#list('/v1/audit_events', params) };
    this.sandbox = {
      payments: this.#sandbox('/v1/sandbox/payments/{id}/succeed', '/v1/sandbox/payments/{id}/fail'),
      topups: this.#sandbox('/v1/sandbox/topups/{id}/succeed', '/v1/sandbox/topups/{id}/fail'),
      refunds: this.#sandbox('/v1/sandbox/refunds/{id}/succeed', '/v1/sandbox/refunds/{id}/fail'),
      payouts: this.#sandbox('/v1/sandbox/payouts/{id}/succeed', '/v1/sandbox/payouts/{id}/fail'),
    };
  }

  /** One operation: `path` must be a path of the document with `method`; the answer is that operation's. */
  #call<M extends HttpMethod, P extends PathOf<M>>(
    method: M,
    path: P,
    init: CallInit & { body?: RequestBody<P, M> },
  ): Promise<Answer<P, M>> {
    return Promise.resolve().then(async () => {
      const target = fillPath(path, init.path) + queryString(init.query as Record<string, QueryValue> | undefined);
      // Serialised once: every retry sends the same bytes, so the same `reference` replays. A POST
      // without parameters sends {} (every /v1 POST takes a JSON object).
      const payload = init.body !== undefined ? JSON.stringify(init.body) : method === 'post' ? '{}' : undefined;
      const exchange = { method: method.toUpperCase(), target, auth: true, ...(init.accept ? { accept: init.accept } : {}) };
      return (await this.#transport.send(payload === undefined ? exchange : { ...exchange, payload })) as Answer<P, M>;
    });
  }

  #list<P extends PathOf<'get'>>(path: P, params: object, pathValues?: Record<string, string>): PageIterator<ItemOf<P>> {
    const fetchPage = (query: object) =>
      this.#call('get', path, { path: pathValues, query }) as Promise<unknown> as Promise<Page<{ id: string }>>;
    return pager(fetchPage, params) as PageIterator<unknown> as PageIterator<ItemOf<P>>;
  }

  #crud<B extends CollectionPath, O extends PathOf<'get'>>(base: B, one: O): Crud<B, O> {
    return {
      create: (params) => this.#call('post', base, { body: params }),
      retrieve: (id) => this.#call('get', one, { path: { id } }),
      list: (params) => this.#list(base, params ?? {}),
    };
  }

  #sandbox<S extends PathOf<'post'>, F extends PathOf<'post'>>(succeed: S, fail: F): SandboxControls<S, F> {
    return {
      succeed: (id) => this.#call('post', succeed, { path: { id } }),
      fail: (id, params) => this.#call('post', fail, params === undefined ? { path: { id } } : { path: { id }, body: params }),
    };
  }

  #webhookEndpoints(): WebhookEndpoints {
    const withSecret = (answer: Promise<unknown>) => answer as Promise<WebhookEndpointWithSecret>;
    return {
      create: (params) => withSecret(this.#call('post', '/v1/webhook_endpoints', { body: params })),
      retrieve: (id) => this.#call('get', '/v1/webhook_endpoints/{id}', { path: { id } }),
      list: (params = {}) => this.#list('/v1/webhook_endpoints', params),
      update: (id, params) => this.#call('patch', '/v1/webhook_endpoints/{id}', { path: { id }, body: params }),
      del: (id) => this.#call('delete', '/v1/webhook_endpoints/{id}', { path: { id } }),
      rotateSecret: (id) => withSecret(this.#call('post', '/v1/webhook_endpoints/{id}/rotate_secret', { path: { id } })),
      sendTestEvent: (id) => this.#call('post', '/v1/webhook_endpoints/{id}/test', { path: { id } }),
    };
  }

  static readonly webhooks = {
    /**
     * Checks a delivery (Standard Webhooks) against the exact bytes received and returns the event.
     * `rawBody` is the raw request body, a Buffer or string: anything else (parsed JSON) throws
     * PurseError body_not_raw; a missing, wrong or stale signature throws PurseError signature_invalid.
     */
    verify(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string): Event {
      return verifyWebhook(rawBody, headers, secret);
    },
  };
}
