// A faithful fake of the MTN MoMo Open API (Collection requesttopay, Disbursement transfer), over
// real HTTP on 127.0.0.1: it checks what MTN checks (Basic and subscription key on the token
// endpoints; Bearer, X-Reference-Id, X-Target-Environment, subscription key and the body's shape
// on the API), answers as MTN does (202, 409 RESOURCE_ALREADY_EXIST, 404, 401, 400), settles by
// the payer's number suffix after a delay, calls back with PUT, and can be told to misbehave.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, send, serveFake } from './http.ts';

type Product = 'collection' | 'disbursement';

export interface FakeMtnCredentials {
  subscriptionKey: string;
  apiUser: string;
  apiKey: string;
}

/** The last three digits of the party's number decide (as the sandbox's test numbers). */
export const MTN_SUFFIXES = {
  success: '000',
  notEnoughFunds: '001',
  payerNotFound: '002',
  neverSettles: '005',
} as const;

interface Transaction {
  product: Product;
  referenceId: string;
  body: Record<string, unknown>;
  createdAt: number;
  financialTransactionId: string;
  callbackUrl: string | null;
}

export interface FakeMtn {
  url: string;
  targetEnvironment: string;
  collection: FakeMtnCredentials;
  disbursement: FakeMtnCredentials;
  /** Milliseconds from acceptance to a final state. */
  settleDelayMs: number;
  /** What the token endpoint says about a token's life (seconds). */
  tokenExpiresInS: number;
  /** Create requests (POST requesttopay / transfer) received per X-Reference-Id, whatever the answer. */
  createRequests(referenceId: string): number;
  /** Every create request received, per product. */
  creates: { product: Product; referenceId: string; externalId: unknown }[];
  tokensIssued: number;
  /** Revokes every issued token (as an expiry would): the next API call with one is 401. */
  expireTokens(): void;
  /** The transaction of a Purse id (by externalId). */
  byExternalId(externalId: string): Transaction | undefined;
  faults: {
    /** The next n create requests are acted on, then the connection is destroyed without an answer. */
    loseAnswers: number;
    /** The next n API requests (not tokens) answer 500 without acting. */
    errors500: number;
    /** 'once' (MTN), 'never' or 'twice'. */
    callbacks: 'once' | 'never' | 'twice';
    /** The callback claims the opposite of what the status call says (SUCCESSFUL ↔ FAILED). */
    contradictingCallbacks: boolean;
    /** A create is acted on at once, its answer held this long (a Purse that dies meanwhile never hears it). */
    holdAnswersMs: number;
  };
  /** The X-Callback-Url given with the transaction of a Purse id: a forger who learnt it. */
  callbackUrlOf(externalId: string): string | null;
  /** Callbacks sent: the URL and the status Purse answered (or the error). */
  callbacksSent: { url: string; status: number | string }[];
  close(): Promise<void>;
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

function credentials(prefix: string): FakeMtnCredentials {
  return {
    subscriptionKey: `${prefix}-sub-${randomBytes(8).toString('hex')}`,
    apiUser: crypto.randomUUID(),
    apiKey: randomBytes(16).toString('hex'),
  };
}

/** The body MTN requires, by product: amount a string of a decimal, a known party, strings elsewhere. */
function bodyError(product: Product, body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return 'body';
  const b = body as Record<string, unknown>;
  if (typeof b.amount !== 'string' || !/^\d+(\.\d+)?$/.test(b.amount)) return 'amount';
  if (typeof b.currency !== 'string' || !/^[A-Z]{3}$/.test(b.currency)) return 'currency';
  if (typeof b.externalId !== 'string') return 'externalId';
  const party = (product === 'collection' ? b.payer : b.payee) as Record<string, unknown> | undefined;
  if (typeof party !== 'object' || party === null) return product === 'collection' ? 'payer' : 'payee';
  if (party.partyIdType !== 'MSISDN' || typeof party.partyId !== 'string' || !/^\d{6,15}$/.test(party.partyId)) return 'partyId';
  if (typeof b.payerMessage !== 'string' || typeof b.payeeNote !== 'string') return 'payerMessage/payeeNote';
  return null;
}

function partyOf(t: Transaction): string {
  const party = (t.product === 'collection' ? t.body.payer : t.body.payee) as { partyId: string };
  return party.partyId;
}

export async function startFakeMtn(options: { settleDelayMs?: number; tokenExpiresInS?: number } = {}): Promise<FakeMtn> {
  const tokens = new Map<string, { product: Product; expiresAt: number }>();
  const transactions = new Map<string, Transaction>();
  const createCounts = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();

  const fake = {
    url: '',
    targetEnvironment: 'sandbox',
    collection: credentials('col'),
    disbursement: credentials('dis'),
    settleDelayMs: options.settleDelayMs ?? 50,
    tokenExpiresInS: options.tokenExpiresInS ?? 3600,
    createRequests: (referenceId: string) => createCounts.get(referenceId) ?? 0,
    creates: [] as FakeMtn['creates'],
    tokensIssued: 0,
    expireTokens: () => tokens.clear(),
    byExternalId: (externalId: string) => [...transactions.values()].find((t) => t.body.externalId === externalId),
    faults: {
      loseAnswers: 0,
      errors500: 0,
      callbacks: 'once' as FakeMtn['faults']['callbacks'],
      contradictingCallbacks: false,
      holdAnswersMs: 0,
    },
    callbackUrlOf: (externalId: string) => [...transactions.values()].find((t) => t.body.externalId === externalId)?.callbackUrl ?? null,
    callbacksSent: [] as FakeMtn['callbacksSent'],
    close: async () => {},
  } satisfies FakeMtn;

  /** The state MTN reports now: final once the delay has passed, by the party's suffix. */
  function statusBody(t: Transaction): Record<string, unknown> {
    const base = {
      amount: t.body.amount,
      currency: t.body.currency,
      financialTransactionId: t.financialTransactionId,
      externalId: t.body.externalId,
      ...(t.product === 'collection' ? { payer: t.body.payer } : { payee: t.body.payee }),
      payerMessage: t.body.payerMessage,
      payeeNote: t.body.payeeNote,
    };
    const suffix = partyOf(t).slice(-3);
    if (Date.now() < t.createdAt + fake.settleDelayMs || suffix === MTN_SUFFIXES.neverSettles) return { ...base, status: 'PENDING' };
    if (suffix === MTN_SUFFIXES.notEnoughFunds) return { ...base, status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' };
    if (suffix === MTN_SUFFIXES.payerNotFound) {
      return { ...base, status: 'FAILED', reason: t.product === 'collection' ? 'PAYER_NOT_FOUND' : 'PAYEE_NOT_FOUND' };
    }
    return { ...base, status: 'SUCCESSFUL' };
  }

  async function callBack(t: Transaction): Promise<void> {
    if (!t.callbackUrl) return;
    const truth = statusBody(t);
    const body = JSON.stringify(
      fake.faults.contradictingCallbacks
        ? truth.status === 'SUCCESSFUL'
          ? { ...truth, status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' }
          : { ...truth, status: 'SUCCESSFUL', reason: undefined }
        : truth,
    );
    try {
      const res = await fetch(t.callbackUrl, { method: 'PUT', headers: { 'content-type': 'application/json' }, body });
      await res.body?.cancel();
      fake.callbacksSent.push({ url: t.callbackUrl, status: res.status });
    } catch (error) {
      fake.callbacksSent.push({ url: t.callbackUrl, status: String(error) });
    }
  }

  function scheduleCallbacks(t: Transaction): void {
    if (fake.faults.callbacks === 'never' || partyOf(t).endsWith(MTN_SUFFIXES.neverSettles)) return;
    const times = fake.faults.callbacks === 'twice' ? 2 : 1;
    const timer = setTimeout(async () => {
      timers.delete(timer);
      for (let i = 0; i < times; i++) await callBack(t);
    }, fake.settleDelayMs + 5);
    timers.add(timer);
  }

  function bearerProduct(req: IncomingMessage): Product | null {
    const match = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    const token = match ? tokens.get(match[1] as string) : undefined;
    if (!token || token.expiresAt <= Date.now()) return null;
    return token.product;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const raw = await readBody(req);
    const tokenMatch = /^\/(collection|disbursement)\/token\/$/.exec(url.pathname);
    if (tokenMatch && req.method === 'POST') {
      const product = tokenMatch[1] as Product;
      const creds = fake[product];
      const basic = `Basic ${Buffer.from(`${creds.apiUser}:${creds.apiKey}`).toString('base64')}`;
      if (req.headers['ocp-apim-subscription-key'] !== creds.subscriptionKey) {
        return send(res, 401, { statusCode: 401, message: 'Access denied due to invalid subscription key.' });
      }
      if (req.headers.authorization !== basic) return send(res, 401, { error: 'login_failed' });
      const token = randomBytes(24).toString('base64url');
      tokens.set(token, { product, expiresAt: Date.now() + fake.tokenExpiresInS * 1000 });
      fake.tokensIssued++;
      return send(res, 200, { access_token: token, token_type: 'access_token', expires_in: fake.tokenExpiresInS });
    }
    const api = /^\/(collection|disbursement)\/v1_0\/(requesttopay|transfer)(?:\/([^/]+))?$/.exec(url.pathname);
    if (!api) return send(res, 404, { code: 'RESOURCE_NOT_FOUND' });
    const product = api[1] as Product;
    if ((product === 'collection') !== (api[2] === 'requesttopay')) return send(res, 404, { code: 'RESOURCE_NOT_FOUND' });
    if (req.headers['ocp-apim-subscription-key'] !== fake[product].subscriptionKey) return send(res, 401, { statusCode: 401 });
    if (bearerProduct(req) !== product)
      return send(res, 401, { code: 'INVALID_CREDENTIALS', message: 'Access token is invalid or expired' });
    if (req.headers['x-target-environment'] !== fake.targetEnvironment) return send(res, 400, { code: 'NOT_ALLOWED_TARGET_ENVIRONMENT' });
    if (fake.faults.errors500 > 0) {
      fake.faults.errors500--;
      return send(res, 500, { code: 'INTERNAL_PROCESSING_ERROR' });
    }
    if (req.method === 'GET' && api[3]) {
      const t = transactions.get(`${product}:${api[3]}`);
      return t
        ? send(res, 200, statusBody(t))
        : send(res, 404, { code: 'RESOURCE_NOT_FOUND', message: 'Requested resource was not found.' });
    }
    if (req.method !== 'POST' || api[3]) return send(res, 404, { code: 'RESOURCE_NOT_FOUND' });
    const referenceId = req.headers['x-reference-id'];
    if (typeof referenceId !== 'string' || !UUID_V4.test(referenceId)) return send(res, 400, { code: 'INVALID_REFERENCE_ID' });
    createCounts.set(referenceId, (createCounts.get(referenceId) ?? 0) + 1);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return send(res, 400, { code: 'BAD_REQUEST' });
    }
    fake.creates.push({ product, referenceId, externalId: (body as { externalId?: unknown } | null)?.externalId });
    const wrong = bodyError(product, body);
    if (wrong) return send(res, 400, { code: 'BAD_REQUEST', message: `invalid ${wrong}` });
    if (transactions.has(`${product}:${referenceId}`)) {
      return send(res, 409, { code: 'RESOURCE_ALREADY_EXIST', message: 'Duplicated reference id. Creation of resource failed.' });
    }
    const callbackUrl = typeof req.headers['x-callback-url'] === 'string' ? req.headers['x-callback-url'] : null;
    const t: Transaction = {
      product,
      referenceId,
      body: body as Record<string, unknown>,
      createdAt: Date.now(),
      financialTransactionId: String(Math.floor(1e8 + Math.random() * 9e8)),
      callbackUrl,
    };
    transactions.set(`${product}:${referenceId}`, t);
    scheduleCallbacks(t);
    if (fake.faults.holdAnswersMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.faults.holdAnswersMs));
    if (fake.faults.loseAnswers > 0) {
      fake.faults.loseAnswers--;
      req.socket.destroy();
      return;
    }
    return send(res, 202);
  }

  const served = await serveFake(handle, { code: 'INTERNAL_PROCESSING_ERROR' }, timers);
  fake.url = served.url;
  fake.close = served.close;
  return fake;
}

/** The PURSE_MTN_* environment that points Purse at this fake. */
export function fakeMtnEnv(fake: FakeMtn, publicUrl: string): Record<string, string> {
  return {
    PURSE_MTN_BASE_URL: fake.url,
    PURSE_MTN_TARGET_ENVIRONMENT: fake.targetEnvironment,
    PURSE_MTN_COLLECTION_SUBSCRIPTION_KEY: fake.collection.subscriptionKey,
    PURSE_MTN_COLLECTION_API_USER: fake.collection.apiUser,
    PURSE_MTN_COLLECTION_API_KEY: fake.collection.apiKey,
    PURSE_MTN_DISBURSEMENT_SUBSCRIPTION_KEY: fake.disbursement.subscriptionKey,
    PURSE_MTN_DISBURSEMENT_API_USER: fake.disbursement.apiUser,
    PURSE_MTN_DISBURSEMENT_API_KEY: fake.disbursement.apiKey,
    PURSE_PUBLIC_URL: publicUrl,
  };
}
