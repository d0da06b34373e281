// @purse/sdk: the client of the Purse API. Plain ESM JavaScript so `import { Purse } from '@purse/sdk'`
// works from Node 20 (and a bundler) without a build step; its types are in ../index.d.ts, generated
// from the OpenAPI document (types/openapi.d.ts). It uses only fetch, so it also runs in browsers.
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

const DEFAULT_TIMEOUT_MS = 30_000;
/** A token is renewed this long before it expires (or at half its life, if shorter). */
const RENEW_MARGIN_MS = 60_000;
const MAX_BACKOFF_MS = 8_000;
const MAX_RETRY_AFTER_MS = 60_000;

/** Every failure of the SDK: an API error answer, a network failure or a bad webhook signature. */
export class PurseError extends Error {
  /**
   * @param {{ message: string, status?: number | null, type?: string, code?: string, param?: string | null, requestId?: string | null, cause?: unknown }} fields
   */
  constructor(fields) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = 'PurseError';
    this.status = fields.status ?? null;
    this.type = fields.type ?? 'api_error';
    this.code = fields.code ?? 'unknown';
    this.param = fields.param ?? null;
    this.requestId = fields.requestId ?? null;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Exponential back-off with full jitter: 0.5 s, 1 s, 2 s … up to 8 s, each times a random 0.5–1. */
function backoffMs(attempt) {
  return Math.min(MAX_BACKOFF_MS, 500 * 2 ** attempt) * (0.5 + Math.random() / 2);
}

/** Retry-After in seconds or as an HTTP date; null when absent or unreadable. */
function retryAfterMs(response) {
  const value = response.headers.get('retry-after');
  if (value === null) return null;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : null;
}

async function readJson(response) {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return { raw: text };
  }
}

function errorFromAnswer(status, body, response) {
  const requestId = response.headers.get('request-id');
  if (body && typeof body.error === 'object' && body.error !== null) {
    const e = body.error;
    return new PurseError({
      message: e.message ?? `HTTP ${status}`,
      status,
      type: e.type,
      code: e.code,
      param: e.param ?? null,
      requestId: e.request_id ?? requestId,
    });
  }
  if (body && typeof body.error === 'string') {
    // The token endpoint speaks OAuth 2.0: {error, error_description}.
    return new PurseError({
      message: body.error_description ?? body.error,
      status,
      type: 'authentication_error',
      code: body.error,
      requestId,
    });
  }
  return new PurseError({
    message: `HTTP ${status}`,
    status,
    type: status >= 500 ? 'api_error' : 'invalid_request_error',
    code: 'http_error',
    requestId,
  });
}

function networkError(error) {
  const reason = error?.cause?.code ?? error?.cause?.message ?? error?.message ?? String(error);
  const timeout = error?.name === 'TimeoutError';
  return new PurseError({
    message: timeout ? 'The request timed out.' : `The request did not reach Purse or its answer was lost (${reason}).`,
    status: null,
    type: 'network_error',
    code: timeout ? 'timeout' : 'network_error',
    cause: error,
  });
}

function queryString(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value === undefined || value === null) continue;
    search.set(key, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * A list: `await` it for the first page ({data, has_more}), or `for await` over it for every item
 * of every page, each page fetched when the previous one is used up.
 */
function pager(fetchPage, params) {
  return {
    // biome-ignore lint/suspicious/noThenProperty: a list is awaitable for its first page, like Stripe's
    then(onFulfilled, onRejected) {
      return fetchPage(params).then(onFulfilled, onRejected);
    },
    async *[Symbol.asyncIterator]() {
      let page = await fetchPage(params);
      for (;;) {
        for (const item of page.data) yield item;
        const last = page.data.at(-1);
        if (!page.has_more || last === undefined) return;
        page = await fetchPage({ ...params, ending_before: undefined, starting_after: last.id });
      }
    },
  };
}

const enc = encodeURIComponent;

export class Purse {
  #baseUrl;
  #clientId;
  #clientSecret;
  #maxRetries;
  #timeoutMs;
  #fetch;
  /** @type {{ value: string, renewAt: number } | null} */
  #token = null;
  /** @type {Promise<string> | null} */
  #tokenInFlight = null;

  /**
   * @param {{ baseUrl: string, clientId: string, clientSecret: string, maxRetries?: number, timeoutMs?: number, fetch?: typeof fetch }} options
   */
  constructor(options) {
    if (!options || typeof options.baseUrl !== 'string')
      throw new TypeError('new Purse({ baseUrl, clientId, clientSecret }): baseUrl is required');
    if (typeof options.clientId !== 'string' || typeof options.clientSecret !== 'string') {
      throw new TypeError('new Purse({ baseUrl, clientId, clientSecret }): clientId and clientSecret are required');
    }
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#clientId = options.clientId;
    this.#clientSecret = options.clientSecret;
    this.#maxRetries = options.maxRetries ?? 2;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);

    const get = (path, query) => this.#request('GET', path, { query });
    const post = (path, body) => this.#request('POST', path, { body: body ?? {} });
    const crud = (base) => ({
      create: (params) => post(base, params),
      retrieve: (id) => get(`${base}/${enc(id)}`),
      list: (params = {}) => pager((p) => get(base, p), params),
    });
    const sandbox = (kind) => ({
      succeed: (id) => post(`/v1/sandbox/${kind}/${enc(id)}/succeed`),
      fail: (id, params) => post(`/v1/sandbox/${kind}/${enc(id)}/fail`, params),
    });

    this.payments = {
      ...crud('/v1/payments'),
      capture: (id, params) => post(`/v1/payments/${enc(id)}/capture`, params),
      cancel: (id, params) => post(`/v1/payments/${enc(id)}/cancel`, params),
    };
    this.topups = crud('/v1/topups');
    this.refunds = crud('/v1/refunds');
    this.payouts = crud('/v1/payouts');
    this.transfers = crud('/v1/transfers');
    this.wallets = {
      ...crud('/v1/wallets'),
      freeze: (id) => post(`/v1/wallets/${enc(id)}/freeze`),
      unfreeze: (id) => post(`/v1/wallets/${enc(id)}/unfreeze`),
      transactions: (id, params = {}) => pager((p) => get(`/v1/wallets/${enc(id)}/transactions`, p), params),
    };
    this.merchant = { retrieve: () => get('/v1/merchant') };
    this.balance = { retrieve: () => get('/v1/balance') };
    this.balanceTransactions = {
      list: (params = {}) => pager((p) => get('/v1/balance_transactions', p), params),
      /** The statement as CSV text (Accept: text/csv): every line matching the filters, newest first. */
      csv: (params = {}) => this.#request('GET', '/v1/balance_transactions', { query: params, accept: 'text/csv' }),
    };
    this.events = {
      retrieve: (id) => get(`/v1/events/${enc(id)}`),
      list: (params = {}) => pager((p) => get('/v1/events', p), params),
      deliveries: (id) => get(`/v1/events/${enc(id)}/deliveries`),
      redeliver: (id) => post(`/v1/events/${enc(id)}/redeliver`),
    };
    this.webhookEndpoints = {
      create: (params) => post('/v1/webhook_endpoints', params),
      retrieve: (id) => get(`/v1/webhook_endpoints/${enc(id)}`),
      list: (params = {}) => pager((p) => get('/v1/webhook_endpoints', p), params),
      update: (id, params) => this.#request('PATCH', `/v1/webhook_endpoints/${enc(id)}`, { body: params }),
      del: (id) => this.#request('DELETE', `/v1/webhook_endpoints/${enc(id)}`),
      rotateSecret: (id) => post(`/v1/webhook_endpoints/${enc(id)}/rotate_secret`),
      sendTestEvent: (id) => post(`/v1/webhook_endpoints/${enc(id)}/test`),
    };
    this.webhookSecret = {
      retrieve: () => get('/v1/webhook_secret'),
      rotate: () => post('/v1/webhook_secret/rotate'),
    };
    this.sandbox = {
      payments: sandbox('payments'),
      topups: sandbox('topups'),
      refunds: sandbox('refunds'),
      payouts: sandbox('payouts'),
    };
  }

  /** The access token, fetched on first use, shared by concurrent calls, renewed before it expires. */
  async #accessToken() {
    if (this.#token && Date.now() < this.#token.renewAt) return this.#token.value;
    this.#tokenInFlight ??= this.#fetchToken().finally(() => {
      this.#tokenInFlight = null;
    });
    return this.#tokenInFlight;
  }

  async #fetchToken() {
    const body = JSON.stringify({ grant_type: 'client_credentials', client_id: this.#clientId, client_secret: this.#clientSecret });
    const answer = await this.#send('/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body,
    });
    const lifeMs = (Number(answer.expires_in) || 3600) * 1000;
    this.#token = { value: answer.access_token, renewAt: Date.now() + Math.max(lifeMs - RENEW_MARGIN_MS, lifeMs / 2) };
    return answer.access_token;
  }

  /**
   * One call with retries: network errors, 429 (after Retry-After) and 5xx are sent again with the
   * same bytes, up to maxRetries times; a 401 renews the token once.
   */
  async #send(path, init, options = {}) {
    const url = this.#baseUrl + path;
    for (let attempt = 0; ; attempt++) {
      const headers = { ...init.headers };
      if (options.auth) headers.authorization = `Bearer ${await this.#accessToken()}`;
      let response;
      try {
        response = await this.#fetch(url, { ...init, headers, signal: AbortSignal.timeout(this.#timeoutMs) });
      } catch (error) {
        if (attempt < this.#maxRetries) {
          await sleep(backoffMs(attempt));
          continue;
        }
        throw networkError(error);
      }
      if (response.status === 401 && options.auth && !options.renewed) {
        // Expired or revoked early: one new token, without spending a retry.
        await response.body?.cancel();
        this.#token = null;
        options.renewed = true;
        attempt--;
        continue;
      }
      if ((response.status === 429 || response.status >= 500) && attempt < this.#maxRetries) {
        const wait = retryAfterMs(response) ?? backoffMs(attempt);
        await response.body?.cancel();
        await sleep(wait);
        continue;
      }
      if (options.accept === 'text/csv' && response.ok) return response.text();
      const body = await readJson(response);
      if (!response.ok) throw errorFromAnswer(response.status, body, response);
      return body;
    }
  }

  #request(method, path, { body, query, accept } = {}) {
    const headers = { accept: accept ?? 'application/json' };
    // Serialised once: every retry sends the same bytes, so the same `reference` replays.
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (payload !== undefined) headers['content-type'] = 'application/json';
    return this.#send(path + queryString(query), { method, headers, body: payload }, { auth: true, accept });
  }

  static webhooks = {
    /**
     * Verifies a delivery (Standard Webhooks) against the exact bytes received and returns the event;
     * throws PurseError (type "webhook_error") on a bad or old signature.
     */
    verify(rawBody, headers, secret) {
      const text = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
      const record = {};
      const entries = typeof headers?.entries === 'function' ? headers.entries() : Object.entries(headers ?? {});
      for (const [name, value] of entries) record[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
      try {
        return new Webhook(secret).verify(text, record);
      } catch (error) {
        const bad = error instanceof WebhookVerificationError;
        throw new PurseError({
          message: bad ? `The webhook signature does not verify: ${error.message}` : `The webhook could not be read: ${error.message}`,
          status: null,
          type: 'webhook_error',
          code: bad ? 'signature_invalid' : 'webhook_invalid',
          cause: error,
        });
      }
    },
  };
}

export default Purse;
