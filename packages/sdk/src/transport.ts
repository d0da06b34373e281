// One HTTP exchange with Purse: the access token (fetched once, or asked of the caller's function;
// shared, renewed), retries with the same bytes, and the answer read as JSON (or text) or turned
// into a PurseError.
import { errorFromAnswer, networkError, PurseError } from './errors.js';
import type { PurseOptions } from './types.js';

const DEFAULT_TIMEOUT_MS = 30_000;
/** A token is renewed this long before it expires (or at half its life, if shorter). */
const RENEW_MARGIN_MS = 60_000;
const MAX_BACKOFF_MS = 8_000;
const MAX_RETRY_AFTER_MS = 60_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Exponential back-off with full jitter: 0.5 s, 1 s, 2 s … up to 8 s, each times a random 0.5–1. */
export function backoffMs(attempt: number): number {
  return Math.min(MAX_BACKOFF_MS, 500 * 2 ** attempt) * (0.5 + Math.random() / 2);
}

/** Retry-After in seconds or as an HTTP date, at most a minute; null when absent or unreadable. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | null {
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : null;
}

async function readJson(response: Response): Promise<unknown> {
  const body = await response.text();
  if (body === '') return null;
  try {
    return JSON.parse(body);
  } catch {
    return { raw: body };
  }
}

export interface Exchange {
  method: string;
  /** The path and query string, e.g. /v1/payments?limit=5. */
  target: string;
  /** The JSON text, serialised once: every retry sends the same bytes. */
  payload?: string;
  accept?: 'application/json' | 'text/csv';
  /** Sends the Bearer token (every call but the token request itself). */
  auth: boolean;
}

export class Transport {
  readonly #baseUrl: string;
  /** Where a token comes from: the client credentials exchanged at /oauth/token, or the caller's function. */
  readonly #source: { clientId: string; clientSecret: string } | (() => Promise<string>);
  readonly #maxRetries: number;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;
  #token: { value: string; renewAt: number } | null = null;
  #tokenInFlight: Promise<string> | null = null;

  constructor(options: PurseOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#source =
      options.accessToken !== undefined ? options.accessToken : { clientId: options.clientId, clientSecret: options.clientSecret };
    this.#maxRetries = options.maxRetries ?? 2;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** The access token, fetched on first use, shared by concurrent calls, renewed before it expires. */
  async #accessToken(): Promise<string> {
    if (this.#token && Date.now() < this.#token.renewAt) return this.#token.value;
    this.#tokenInFlight ??= this.#fetchToken().finally(() => {
      this.#tokenInFlight = null;
    });
    return this.#tokenInFlight;
  }

  async #fetchToken(): Promise<string> {
    if (typeof this.#source === 'function') return this.#askToken(this.#source);
    const { clientId, clientSecret } = this.#source;
    const payload = JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
    const answer = (await this.send({ method: 'POST', target: '/oauth/token', payload, auth: false })) as {
      access_token: string;
      expires_in?: number;
    };
    const lifeMs = (Number(answer.expires_in) || 3600) * 1000;
    this.#token = { value: answer.access_token, renewAt: Date.now() + Math.max(lifeMs - RENEW_MARGIN_MS, lifeMs / 2) };
    return answer.access_token;
  }

  /**
   * The caller's token: kept until Purse answers 401 (its life is the caller's to know), then asked
   * for once more. Whatever the function throws reaches the call unchanged.
   */
  async #askToken(accessToken: () => Promise<string>): Promise<string> {
    const value: unknown = await accessToken();
    if (typeof value !== 'string' || value === '') {
      throw new PurseError({
        message: 'accessToken() must resolve to the access token, a non-empty string.',
        type: 'authentication_error',
        code: 'access_token_invalid',
      });
    }
    this.#token = { value, renewAt: Number.POSITIVE_INFINITY };
    return value;
  }

  /**
   * One call with retries: network errors, 429 (after Retry-After) and 5xx are sent again with the
   * same bytes, up to maxRetries times; a 401 renews the token once, without spending a retry.
   */
  async send(exchange: Exchange): Promise<unknown> {
    const headers: Record<string, string> = { accept: exchange.accept ?? 'application/json' };
    if (exchange.payload !== undefined) headers['content-type'] = 'application/json';
    let renewed = false;
    for (let attempt = 0; ; attempt++) {
      if (exchange.auth) headers.authorization = `Bearer ${await this.#accessToken()}`;
      let response: Response;
      try {
        response = await this.#fetch(this.#baseUrl + exchange.target, {
          method: exchange.method,
          headers,
          ...(exchange.payload === undefined ? {} : { body: exchange.payload }),
          signal: AbortSignal.timeout(this.#timeoutMs),
        });
      } catch (error) {
        if (attempt >= this.#maxRetries) throw networkError(error, this.#baseUrl);
        await sleep(backoffMs(attempt));
        continue;
      }
      if (response.status === 401 && exchange.auth && !renewed) {
        // Expired or revoked early: one new token.
        await response.body?.cancel();
        this.#token = null;
        renewed = true;
        attempt--;
        continue;
      }
      if ((response.status === 429 || response.status >= 500) && attempt < this.#maxRetries) {
        const wait = retryAfterMs(response.headers) ?? backoffMs(attempt);
        await response.body?.cancel();
        await sleep(wait);
        continue;
      }
      if (exchange.accept === 'text/csv' && response.ok) return response.text();
      const body = await readJson(response);
      if (!response.ok) throw errorFromAnswer(response.status, body, response.headers);
      return body;
    }
  }
}
