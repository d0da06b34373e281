// Security (docs/money-safety.md rules 7–9; docs/api.md §2, §3):
// - cross-merchant probes: merchant B aims at merchant A's payments, top-ups, wallets, wallet
//   transactions, events, deliveries and webhook endpoints by id on every route, by reference, as
//   list cursors, as the wallet of a payment or top-up, and through the mutating routes (freeze,
//   redeliver, rotate, delete, sandbox outcomes). A leak is any 2xx carrying A's data, any answer
//   that differs from the one for an unknown id of the same kind and age (request_id aside), any
//   A identifier in an answer B gets, any of A's events delivered to B, any change to A's objects;
// - forged and altered tokens on every /v1 route of GET /openapi.json: always 401 with the right code;
// - the scan: server logs at LOG_LEVEL=debug, a pg_dump of the database, every event payload and
//   webhook delivery, every HTTP answer: no client secret, access token, webhook secret, service
//   key, full card number (or plain hash of one) or CVC, except a secret in the one answer that
//   creates it;
// - the bad-input catalogue (test/helpers/bad-input.ts) over HTTP: exact errors, no 5xx, nothing stored.

import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import type { Deps } from '../../src/deps.ts';
import { newId } from '../../src/shared/ids.ts';
import type { TestApp, TestMerchant } from '../helpers/app.ts';
import { chargeRows, edit, expect400, type Row, type RowContext } from '../helpers/bad-input.ts';
import { cardMethod, paymentBody } from '../helpers/factories.ts';
import { algNoneFor, jwt } from '../helpers/forged-tokens.ts';
import { startReceiver } from '../webhooks/receiver.ts';
import {
  Cleanup,
  createDatabase,
  createMerchant,
  eventually,
  type Merchant,
  newSecretKey,
  operatorDeps,
  parallel,
  type Server,
  sleep,
  startServer,
  TMP_DIR,
} from './edge-support.ts';
import { emptyFigures, type Figures, type Profile, type Scenario, type ScenarioResult } from './figures.ts';

const run = promisify(execFile);

interface Resp {
  method: string;
  path: string;
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

interface Recorded {
  label: string;
  /** What the request carried (path and body): ids the caller sent itself are not a leak. */
  sent: string;
  /** Whose token: 'A', 'B', … or 'none'/'forged'. */
  as: string;
  text: string;
  /** Secrets this answer may carry: it is the one that creates them. */
  allowed: Set<string>;
}

interface CallOptions {
  /** The Authorization header; null: none. */
  authorization?: string | null;
  body?: unknown;
  /** A body sent as these exact bytes. */
  raw?: string;
  /** Content-Type; null: none. Defaults to JSON when there is a body. */
  contentType?: string | null;
  headers?: Record<string, string>;
  as?: string;
  allowed?: string[];
}

/** The scenario's HTTP client: every answer recorded for the scan, every 5xx counted. */
class Client {
  readonly recorded: Recorded[] = [];
  requests = 0;
  readonly fivexx: string[] = [];
  async call(base: string, method: string, path: string, options: CallOptions = {}): Promise<Resp> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.authorization) headers.authorization = options.authorization;
    let payload: Buffer | undefined;
    if (options.raw !== undefined) payload = Buffer.from(options.raw, 'utf8');
    else if (options.body !== undefined) payload = Buffer.from(JSON.stringify(options.body), 'utf8');
    if (payload !== undefined && options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json';
    // A byte array, so fetch adds no Content-Type of its own.
    const res = await fetch(base + path, { method, headers, ...(payload !== undefined ? { body: new Uint8Array(payload) } : {}) });
    const text = await res.text();
    this.requests += 1;
    if (res.status >= 500) this.fivexx.push(`${method} ${path.slice(0, 80)} → ${res.status} ${text.slice(0, 120)}`);
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    const headerText = [...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n');
    if (!/^\/(openapi\.json|docs)/.test(path)) {
      this.recorded.push({
        label: `${method} ${path.slice(0, 100)}`,
        sent: `${path} ${payload?.toString('utf8') ?? ''} ${options.authorization ?? ''}`,
        as: options.as ?? 'none',
        text: `${headerText}\n\n${text}`,
        allowed: new Set(options.allowed ?? []),
      });
    }
    return { method, path, status: res.status, headers: res.headers, text, json };
  }
}

/** Every way a secret could show up: whole, its random part, encoded. */
function secretForms(secret: string): string[] {
  const random = secret.replace(/^([a-z]+_)+/, '');
  const formEncoded = Array.from(Buffer.from(secret, 'utf8'))
    .map((b) => (/[A-Za-z0-9]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
  return [
    ...new Set([
      secret,
      random,
      encodeURIComponent(secret),
      formEncoded,
      Buffer.from(secret).toString('base64'),
      Buffer.from(secret).toString('base64url'),
    ]),
  ].filter((s) => s.length >= 16);
}

/** A card number and the plain (unkeyed) hashes a careless fingerprint would store. */
function cardForms(number: string): string[] {
  const h = (alg: string, enc: 'hex' | 'base64' | 'base64url') => createHash(alg).update(number).digest(enc);
  return [
    number,
    h('sha256', 'hex'),
    h('sha256', 'base64'),
    h('sha256', 'base64url'),
    h('sha1', 'hex'),
    h('md5', 'hex'),
    h('sha512', 'hex'),
  ];
}

/** An id of the same kind and creation time as `id` that does not exist: its last character changed. */
function unknownLike(id: string): string {
  const last = id.at(-1)!;
  return id.slice(0, -1) + (last === '0' ? '1' : '0');
}

/** An answer with the request_id and the id the caller sent replaced: what must be identical. */
function normalized(res: Resp, sentId: string): string {
  const text = res.text.split(sentId).join('<ID>');
  try {
    const body = JSON.parse(text) as { error?: Record<string, unknown> };
    if (body && typeof body === 'object' && body.error && typeof body.error === 'object') delete body.error.request_id;
    return `${res.status} ${res.headers.get('content-type')} ${res.headers.get('www-authenticate') ?? ''} ${res.headers.get('allow') ?? ''} ${JSON.stringify(body)}`;
  } catch {
    return `${res.status} ${res.headers.get('content-type')} ${text}`;
  }
}

const CARDS: [string, string][] = [
  ['4242424242424242', '7391'],
  ['5555555555554444', '8462'],
  ['4000000000000002', '5207'],
  ['4000000000009995', '6183'],
  ['4000000000000069', '9034'],
  ['4000000000000127', '3358'],
  ['4000000000000119', '4721'],
  ['378282246310005', '9962'],
  ['6011111111111117', '841'],
];

interface Objects {
  tag: string;
  ids: Record<'payment' | 'topup' | 'wallet' | 'event' | 'webhookEndpoint' | 'delivery' | 'walletTransaction', string[]>;
  references: string[];
  pendingPayment: string;
  pendingTopup: string;
  finalPayment: string;
  finalTopup: string;
  /** A transfer between the merchant's two wallets. */
  transfer: string;
  /** A succeeded card refund, a payout to the merchant's wallet, and a payout left pending. */
  refund: string;
  payout: string;
  pendingPayout: string;
  /** A checkout session, a payment link and an API key (the routes hosted checkout and keys added). */
  checkoutSession: string;
  paymentLink: string;
  apiKey: string;
  wallet: string;
  walletReference: string;
  endpoints: { id: string; secret: string; path: string }[];
  /** Strings only this merchant's data contains: holder name, email. */
  markers: string[];
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** What every step shares: the recording client, the figures and what was found wrong. */
interface Ctx {
  profile: Profile;
  http: Client;
  figures: Figures;
  details: Record<string, unknown>;
  problems: string[];
  /** Cross-merchant leaks: the probes' findings, then the webhook deliveries'. */
  leaks: string[];
  cleanup: Cleanup;
}

/** The database, the five merchants, the webhook receiver and the two servers. */
interface Stage {
  db: { url: string };
  secretKey: string;
  deps: Deps;
  A: Merchant;
  B: Merchant;
  C: Merchant;
  D: Merchant;
  E: Merchant;
  receiver: Receiver;
  s1: Server;
  s2: Server;
  logFiles: string[];
  stamp: number;
}

/** Every secret the run handed out or sent: what the scan looks for. */
interface Secrets {
  accessTokens: string[];
  clientSecrets: string[];
  basicHeaders: string[];
  webhookSecrets: string[];
  cardsUsed: Set<string>;
  cvcsUsed: Set<string>;
}

interface Tokens {
  tA: string;
  tB: string;
  tC: string;
  tD: string;
  tE: string;
  /** A's token from the server with 2-second tokens. */
  expiring: string;
  expiringIssuedAt: number;
  /** When C was disabled and D's secret rotated. */
  revokedAt: number;
  rotatedSecret: string;
}

interface ForgedToken {
  label: string;
  authorization: string | null;
  code: 'token_missing' | 'token_invalid' | 'token_expired';
  query?: string;
  base?: string;
}

const bearer = (t: string) => `Bearer ${t}`;
const TEST_CARD = { number: '4242424242424242', cvc: '7391' };

function get(ctx: Ctx, base: string, t: string, path: string, as: string): Promise<Resp> {
  return ctx.http.call(base, 'GET', path, { authorization: bearer(t), as });
}

/** Five merchants (A and B probe each other, C is disabled, D rotated, E sends bad input) and two servers. */
async function setUp(ctx: Ctx): Promise<Stage> {
  const db = await createDatabase('security', ctx.cleanup);
  const secretKey = newSecretKey();
  const deps = await operatorDeps(db.url, secretKey, ctx.cleanup);
  const [A, B, C, D, E] = (await Promise.all(
    ['Merchant A', 'Merchant B', 'Merchant C (disabled)', 'Merchant D (rotated)', 'Merchant E (bad input)'].map((n) =>
      createMerchant(deps, n),
    ),
  )) as [Merchant, Merchant, Merchant, Merchant, Merchant];
  const receiver = await startReceiver();
  ctx.cleanup.add(() => receiver.close());
  receiver.respond(200);
  mkdirSync(TMP_DIR, { recursive: true });
  const stamp = Date.now();
  const logFiles = [join(TMP_DIR, `faults-security-${stamp}-1.log`), join(TMP_DIR, `faults-security-${stamp}-2.log`)];
  const common = { DATABASE_URL: db.url, PURSE_SECRET_KEY: secretKey, LOG_LEVEL: 'debug' };
  const s1 = await startServer(
    ctx.cleanup,
    { ...common, PURSE_ALLOW_PRIVATE_WEBHOOK_URLS: 'true', PURSE_WEBHOOK_RETRY_SCHEDULE_S: '0.2,0.5,1' },
    { logFile: logFiles[0] },
  );
  // The second server: 2-second tokens, the strict settings of the catalogue (private callback
  // URLs refused, KES capped at 1000), no workers.
  const s2 = await startServer(
    ctx.cleanup,
    {
      ...common,
      PURSE_TOKEN_TTL_S: '2',
      PURSE_ALLOW_PRIVATE_WEBHOOK_URLS: 'false',
      PURSE_SANDBOX_LOOPBACK_WEBHOOKS: 'false',
      PURSE_MAX_AMOUNTS: 'KES=1000',
      PURSE_WORKER: 'false',
    },
    { logFile: logFiles[1] },
  );
  return { db, secretKey, deps, A, B, C, D, E, receiver, s1, s2, logFiles, stamp };
}

/** A token by JSON, form or HTTP Basic (encoded and raw); the answer must say Cache-Control: no-store. */
async function requestToken(
  ctx: Ctx,
  secrets: Secrets,
  base: string,
  m: Merchant,
  how: 'json' | 'form' | 'basic' | 'basic-raw',
  as: string,
): Promise<string> {
  const { http } = ctx;
  const grant = { grant_type: 'client_credentials', client_id: m.clientId, client_secret: m.clientSecret };
  let res: Resp;
  if (how === 'json') res = await http.call(base, 'POST', '/oauth/token', { body: grant, headers: { accept: 'application/json' }, as });
  else if (how === 'form')
    res = await http.call(base, 'POST', '/oauth/token', {
      raw: new URLSearchParams(grant).toString(),
      contentType: 'application/x-www-form-urlencoded',
      as,
    });
  else {
    const pair =
      how === 'basic' ? `${encodeURIComponent(m.clientId)}:${encodeURIComponent(m.clientSecret)}` : `${m.clientId}:${m.clientSecret}`;
    const header = `Basic ${Buffer.from(pair).toString('base64')}`;
    secrets.basicHeaders.push(header.slice(6));
    res = await http.call(base, 'POST', '/oauth/token', {
      authorization: header,
      raw: 'grant_type=client_credentials',
      contentType: 'application/x-www-form-urlencoded',
      as,
    });
  }
  if (res.status !== 200) throw new Error(`token (${how}) for ${m.merchantId}: ${res.status} ${res.text}`);
  const value = res.json.access_token as string;
  secrets.accessTokens.push(value);
  http.recorded.at(-1)!.allowed.add(value);
  if (res.headers.get('cache-control') !== 'no-store') ctx.problems.push(`token answer without Cache-Control: no-store (${how})`);
  return value;
}

/** Tokens for every merchant in every way, then C disabled and D's secret rotated (their tokens proven good first). */
async function issueTokensThenRevoke(ctx: Ctx, stage: Stage, secrets: Secrets): Promise<Tokens> {
  const { s1, s2, A, B, C, D, E } = stage;
  const token = (base: string, m: Merchant, how: 'json' | 'form' | 'basic' | 'basic-raw', as: string) =>
    requestToken(ctx, secrets, base, m, how, as);
  const tA = await token(s1.base, A, 'json', 'A');
  for (const how of ['form', 'basic', 'basic-raw'] as const) await token(s1.base, A, how, 'A');
  const tB = await token(s1.base, B, 'json', 'B');
  await token(s1.base, B, 'form', 'B');
  const tC = await token(s1.base, C, 'json', 'C');
  const tD = await token(s1.base, D, 'json', 'D');
  const tE = await token(s1.base, E, 'json', 'E');
  const expiring = await token(s2.base, A, 'json', 'A');
  const expiringIssuedAt = Date.now();
  for (const [label, t, base] of [
    ['C before disabling', tC, s1.base],
    ['D before rotating', tD, s1.base],
    ['the 2-second token while fresh', expiring, s2.base],
  ] as const) {
    const res = await ctx.http.call(base, 'GET', '/v1/merchant', { authorization: bearer(t), as: label[0]! });
    if (res.status !== 200) ctx.problems.push(`positive control failed: ${label} → ${res.status}`);
  }
  // Revocations: both must reach every server within 5 s.
  const disabled = await stage.deps.services.merchants.setStatus(C.merchantId, 'disabled');
  const rotated = await stage.deps.services.merchants.rotateSecret(D.merchantId);
  if (!disabled.ok || !rotated.ok) throw new Error('disable or rotate failed');
  secrets.clientSecrets.push(rotated.value.client_secret);
  const revokedAt = Date.now();
  return { tA, tB, tC, tD, tE, expiring, expiringIssuedAt, revokedAt, rotatedSecret: rotated.value.client_secret };
}

// ---- A's and B's objects ----------------------------------------------------------------------

type Poster = (path: string, body: unknown, expected?: number) => Promise<Resp>;

/** A POST as the merchant on server 1 that must succeed (a failed fixture ends the scenario). */
function poster(ctx: Ctx, stage: Stage, t: string, tag: string): Poster {
  return async (path, body, expected = 201) => {
    const res = await ctx.http.call(stage.s1.base, 'POST', path, { authorization: bearer(t), body, as: tag });
    if (res.status !== expected) throw new Error(`${tag} POST ${path}: ${res.status} ${res.text}`);
    return res;
  };
}

/** Two webhook endpoints (all events; payments only), the second's secret rotated. */
async function createEndpoints(ctx: Ctx, stage: Stage, secrets: Secrets, o: Objects, post: Poster): Promise<void> {
  for (const [path, events] of [
    [`/${o.tag}/all`, undefined],
    [`/${o.tag}/payments`, ['payment.succeeded', 'payment.failed']],
  ] as const) {
    const res = await post('/v1/webhook_endpoints', {
      url: stage.receiver.base + path,
      ...(events ? { events } : {}),
      description: `endpoint ${o.tag}`,
    });
    secrets.webhookSecrets.push(res.json.secret);
    ctx.http.recorded.at(-1)!.allowed.add(res.json.secret);
    o.endpoints.push({ id: res.json.id, secret: res.json.secret, path });
    o.ids.webhookEndpoint.push(res.json.id);
  }
  const rotatedSecret = await post(`/v1/webhook_endpoints/${o.endpoints[1]!.id}/rotate_secret`, {}, 200);
  secrets.webhookSecrets.push(rotatedSecret.json.secret);
  ctx.http.recorded.at(-1)!.allowed.add(rotatedSecret.json.secret);
  o.endpoints[1]!.secret = rotatedSecret.json.secret;
}

/** Two wallets (one with the merchant's markers in its holder), a card top-up that succeeds, a transfer between them, and a mobile top-up left pending. */
async function createWalletsAndTopups(secrets: Secrets, o: Objects, post: Poster, ref: (what: string) => string): Promise<void> {
  const holder = { name: o.markers[0], email: o.markers[1], phone_number: '+254700000111' };
  o.wallet = (await post('/v1/wallets', { currency: 'KES', reference: o.walletReference, holder })).json.id;
  const second = (await post('/v1/wallets', { currency: 'KES' })).json.id as string;
  o.ids.wallet.push(o.wallet, second);
  o.references.push(o.walletReference);

  const [fundCard, fundCvc] = CARDS[0]!;
  secrets.cardsUsed.add(fundCard);
  secrets.cvcsUsed.add(fundCvc);
  const topup = await post('/v1/topups', {
    reference: ref('fund'),
    amount: '500.00',
    currency: 'KES',
    wallet_id: o.wallet,
    source: { type: 'card', card: { number: fundCard, exp_month: 11, exp_year: 2034, cvc: fundCvc, holder_name: o.markers[0] } },
  });
  o.finalTopup = topup.json.id;
  const transfer = await post('/v1/transfers', {
    reference: ref('transfer'),
    amount: '1.00',
    currency: 'KES',
    source_wallet_id: o.wallet,
    destination_wallet_id: second,
  });
  o.transfer = transfer.json.id;
  o.references.push(ref('transfer'));
  const pendingTopup = await post('/v1/topups', {
    reference: ref('pending-topup'),
    amount: '5.00',
    currency: 'KES',
    wallet_id: second,
    source: { type: 'mobile_money', mobile_money: { phone_number: '+254712345005' } },
  });
  o.pendingTopup = pendingTopup.json.id;
  o.ids.topup.push(o.finalTopup, o.pendingTopup);
  o.references.push(ref('fund'), ref('pending-topup'));
}

/** A card payment per test card (the first with a callback URL), then A's GHS payment. */
async function createCardPayments(stage: Stage, secrets: Secrets, o: Objects, post: Poster, ref: (what: string) => string): Promise<void> {
  for (const [i, [number, cvc]] of CARDS.entries()) {
    secrets.cardsUsed.add(number);
    secrets.cvcsUsed.add(cvc);
    const res = await post('/v1/payments', {
      reference: ref(`card-${i}`),
      amount: `${11 + i}.00`,
      currency: 'KES',
      payment_method: { type: 'card', card: { number, exp_month: 1 + i, exp_year: 2031 + i, cvc, holder_name: o.markers[0] } },
      customer: { name: o.markers[0], email: o.markers[1] },
      ...(i === 0 ? { callback_url: `${stage.receiver.base}/${o.tag}/callback` } : {}),
      metadata: { order: ref(`order-${i}`) },
    });
    o.ids.payment.push(res.json.id);
    o.references.push(ref(`card-${i}`));
  }
  o.finalPayment = o.ids.payment[0]!;
  if (o.tag === 'A') {
    // A currency B never uses: B's balance must not show it.
    const res = await post('/v1/payments', {
      reference: ref('ghs'),
      amount: '7.00',
      currency: 'GHS',
      payment_method: cardMethod(TEST_CARD),
    });
    o.ids.payment.push(res.json.id);
    o.references.push(ref('ghs'));
  }
}

/** A wallet payment, a mobile-money payment left pending and one that settles with a callback. */
async function createOtherPayments(stage: Stage, o: Objects, post: Poster, ref: (what: string) => string): Promise<void> {
  const walletPayment = await post('/v1/payments', {
    reference: ref('wallet-pay'),
    amount: '20.00',
    currency: 'KES',
    payment_method: { type: 'wallet', wallet: { wallet_id: o.wallet } },
  });
  const pending = await post('/v1/payments', {
    reference: ref('pending'),
    amount: '3.00',
    currency: 'KES',
    payment_method: { type: 'mobile_money', mobile_money: { phone_number: '+254712345005' } },
  });
  const settles = await post('/v1/payments', {
    reference: ref('mobile'),
    amount: '4.00',
    currency: 'KES',
    callback_url: `${stage.receiver.base}/${o.tag}/callback`,
    payment_method: { type: 'mobile_money', mobile_money: { phone_number: '+254712345000' } },
  });
  o.pendingPayment = pending.json.id;
  o.ids.payment.push(walletPayment.json.id, pending.json.id, settles.json.id);
  o.references.push(ref('wallet-pay'), ref('pending'), ref('mobile'));
}

/** One merchant's objects of every kind, each carrying markers only this merchant's data holds. */
async function createObjects(ctx: Ctx, stage: Stage, secrets: Secrets, t: string, tag: string): Promise<Objects> {
  const nonce = randomBytes(4).toString('hex');
  const ref = (what: string) => `sec-${tag}-${nonce}-${what}`;
  const o: Objects = {
    tag,
    ids: { payment: [], topup: [], wallet: [], event: [], webhookEndpoint: [], delivery: [], walletTransaction: [] },
    references: [],
    pendingPayment: '',
    pendingTopup: '',
    finalPayment: '',
    finalTopup: '',
    transfer: '',
    refund: '',
    payout: '',
    pendingPayout: '',
    checkoutSession: '',
    paymentLink: '',
    apiKey: '',
    wallet: '',
    walletReference: ref('wallet'),
    endpoints: [],
    markers: [`Holder ${tag} ${nonce}`, `holder-${tag}-${nonce}@example.com`],
  };
  const post = poster(ctx, stage, t, tag);
  await createEndpoints(ctx, stage, secrets, o, post);
  await createWalletsAndTopups(secrets, o, post, ref);
  await createCardPayments(stage, secrets, o, post, ref);
  await createOtherPayments(stage, o, post, ref);
  await createOutflows(o, post, ref);
  await createHostedAndKeys(o, post, ref);
  return o;
}

async function createHostedAndKeys(o: Objects, post: Poster, ref: (what: string) => string): Promise<void> {
  const urls = { success_url: 'https://shop.example/paid', cancel_url: 'https://shop.example/cart' };
  o.checkoutSession = (
    await post('/v1/checkout_sessions', { reference: ref('checkout'), amount: '3.00', currency: 'KES', ...urls })
  ).json.id;
  o.paymentLink = (await post('/v1/payment_links', { currency: 'KES', description: `Link ${o.tag}`, amount: '4.00' })).json.id;
  o.apiKey = (await post('/v1/api_keys', { name: `Reader ${o.tag}`, scopes: ['payments:read'] })).json.id;
  o.references.push(ref('checkout'));
}

/** A refund of the first card payment, a payout to the wallet and one to a number that never settles. */
async function createOutflows(o: Objects, post: Poster, ref: (what: string) => string): Promise<void> {
  o.refund = (await post('/v1/refunds', { reference: ref('refund'), payment_id: o.finalPayment, amount: '1.00' })).json.id;
  const payout = (destination: unknown, what: string) =>
    post('/v1/payouts', { reference: ref(what), amount: '1.00', currency: 'KES', destination });
  o.payout = (await payout({ type: 'wallet', wallet: { wallet_id: o.wallet } }, 'payout')).json.id;
  o.pendingPayout = (await payout({ type: 'mobile_money', mobile_money: { phone_number: '+254712345005' } }, 'pending-payout')).json.id;
  o.references.push(ref('refund'), ref('payout'), ref('pending-payout'));
}

/** The ids of the merchant's events, their deliveries and the wallet's transactions. */
async function collectIds(ctx: Ctx, stage: Stage, o: Objects, t: string): Promise<void> {
  const base = stage.s1.base;
  for (let cursor: string | null = null; ; ) {
    const page = await get(ctx, base, t, `/v1/events?limit=100${cursor ? `&starting_after=${cursor}` : ''}`, o.tag);
    o.ids.event.push(...(page.json.data as { id: string }[]).map((e) => e.id));
    if (!page.json.has_more) break;
    cursor = page.json.data.at(-1).id;
  }
  for (const id of o.ids.event) {
    const deliveries = await get(ctx, base, t, `/v1/events/${id}/deliveries`, o.tag);
    o.ids.delivery.push(...(deliveries.json.data as { id: string }[]).map((d) => d.id));
  }
  const tx = await get(ctx, base, t, `/v1/wallets/${o.wallet}/transactions?limit=100`, o.tag);
  o.ids.walletTransaction.push(...(tx.json.data as { id: string }[]).map((x) => x.id));
}

/** Settled, events written, deliveries made; then the ids of events, deliveries and wallet transactions. */
async function settleAndCollect(ctx: Ctx, stage: Stage, tokens: Tokens, oA: Objects, oB: Objects): Promise<void> {
  const base = stage.s1.base;
  await eventually(
    'mobile-money payments settled',
    async () =>
      (await get(ctx, base, tokens.tA, `/v1/payments/${oA.ids.payment.at(-1)}`, 'A')).json?.status === 'succeeded' &&
      (await get(ctx, base, tokens.tB, `/v1/payments/${oB.ids.payment.at(-1)}`, 'B')).json?.status === 'succeeded',
    20_000,
    100,
  );
  await eventually('deliveries made', () => stage.receiver.received.filter((r) => r.ok).length >= 20, 20_000, 100);
  await collectIds(ctx, stage, oA, tokens.tA);
  await collectIds(ctx, stage, oB, tokens.tB);
  if (oA.ids.event.length < 10 || oA.ids.delivery.length < 5 || oA.ids.walletTransaction.length < 2)
    ctx.problems.push(
      `too few of A's objects to probe: ${JSON.stringify(Object.fromEntries(Object.entries(oA.ids).map(([k, v]) => [k, v.length])))}`,
    );
}

// ---- Cross-merchant probes: B aims at A's objects ------------------------------------------------

/** A's state before the probes, to compare with afterwards. */
interface Snapshot {
  wallet: { balance: string; status: string };
  endpoints: string;
  /** An event of A's already delivered: B's redeliver must not deliver it again. */
  redeliverTarget: string;
}

async function endpointRowsOf(deps: Deps, merchantId: string): Promise<string> {
  const rows = await sql`SELECT row_to_json(w)::text AS j FROM webhook_endpoints w WHERE merchant_id = ${merchantId} ORDER BY id`.execute(
    deps.db.db,
  );
  return JSON.stringify(rows.rows);
}

const receivedFor = (stage: Stage, eventId: string) => stage.receiver.received.filter((r) => r.headers['webhook-id'] === eventId).length;

async function snapshotA(ctx: Ctx, stage: Stage, tokens: Tokens, oA: Objects): Promise<Snapshot> {
  const wallet = (await get(ctx, stage.s1.base, tokens.tA, `/v1/wallets/${oA.wallet}`, 'A')).json as { balance: string; status: string };
  const endpoints = await endpointRowsOf(stage.deps, stage.A.merchantId);
  const redeliverTarget = oA.ids.event.find((id) => stage.receiver.received.some((r) => r.headers['webhook-id'] === id && r.ok))!;
  return { wallet, endpoints, redeliverTarget };
}

/**
 * B's request with A's id against the same request with an unknown id of the same kind and age:
 * never a 2xx, the same answer (request_id aside), and the expected refusal.
 */
async function compareWithUnknown(
  ctx: Ctx,
  stage: Stage,
  tB: string,
  label: string,
  method: string,
  path: (id: string) => string,
  foreignId: string,
  options: { body?: (id: string) => unknown; expect?: number } = {},
): Promise<void> {
  const unknownId = unknownLike(foreignId);
  const call = (id: string) =>
    ctx.http.call(stage.s1.base, method, path(id), {
      authorization: bearer(tB),
      as: 'B',
      ...(options.body ? { body: options.body(id) } : method === 'POST' ? { body: {} } : {}),
    });
  const foreign = await call(foreignId);
  const unknown = await call(unknownId);
  ctx.figures.probes += 1;
  if (foreign.status >= 200 && foreign.status < 300) ctx.leaks.push(`${label}: ${foreign.status} for A's object`);
  else if (normalized(foreign, foreignId) !== normalized(unknown, unknownId))
    ctx.leaks.push(
      `${label}: A's id answers differently from an unknown id (${foreign.status} ${foreign.text.slice(0, 100)} vs ${unknown.status} ${unknown.text.slice(0, 100)})`,
    );
  const expected = options.expect ?? 404;
  const code = expected === 404 ? 'resource_not_found' : 'resource_missing';
  if (foreign.status !== expected || foreign.json?.error?.code !== code)
    ctx.problems.push(`${label}: ${foreign.status} ${foreign.json?.error?.code}, expected ${expected} ${code}`);
}

/** Only the first `n` of a list in the short profile. */
const each = <T>(ctx: Ctx, list: T[], n: number) => (ctx.profile === 'full' ? list : list.slice(0, n));

/** A's ids on every route that takes an id, reads and writes; returns A's deliveries of the redelivered event before B's redeliver. */
async function probeIdRoutes(ctx: Ctx, stage: Stage, tokens: Tokens, oA: Objects, redeliverTarget: string): Promise<number> {
  const compare = (label: string, method: string, path: (id: string) => string, id: string) =>
    compareWithUnknown(ctx, stage, tokens.tB, label, method, path, id);
  for (const id of each(ctx, oA.ids.payment, 4)) await compare('GET payment', 'GET', (x) => `/v1/payments/${x}`, id);
  for (const id of oA.ids.topup) await compare('GET top-up', 'GET', (x) => `/v1/topups/${x}`, id);
  for (const id of oA.ids.wallet) {
    await compare('GET wallet', 'GET', (x) => `/v1/wallets/${x}`, id);
    await compare('GET wallet transactions', 'GET', (x) => `/v1/wallets/${x}/transactions`, id);
    await compare('freeze wallet', 'POST', (x) => `/v1/wallets/${x}/freeze`, id);
    await compare('unfreeze wallet', 'POST', (x) => `/v1/wallets/${x}/unfreeze`, id);
  }
  for (const id of each(ctx, oA.ids.event, 6)) {
    await compare('GET event', 'GET', (x) => `/v1/events/${x}`, id);
    await compare('GET event deliveries', 'GET', (x) => `/v1/events/${x}/deliveries`, id);
  }
  const receivedBeforeRedeliver = receivedFor(stage, redeliverTarget);
  await compare('redeliver event', 'POST', (x) => `/v1/events/${x}/redeliver`, redeliverTarget);
  for (const e of oA.endpoints) {
    await compare('GET webhook endpoint', 'GET', (x) => `/v1/webhook_endpoints/${x}`, e.id);
    await compare('rotate webhook secret', 'POST', (x) => `/v1/webhook_endpoints/${x}/rotate_secret`, e.id);
    await compare('DELETE webhook endpoint', 'DELETE', (x) => `/v1/webhook_endpoints/${x}`, e.id);
  }
  for (const outcome of ['succeed', 'fail']) {
    for (const id of [oA.pendingPayment, oA.finalPayment])
      await compare(`sandbox ${outcome} payment`, 'POST', (x) => `/v1/sandbox/payments/${x}/${outcome}`, id);
    for (const id of [oA.pendingTopup, oA.finalTopup])
      await compare(`sandbox ${outcome} top-up`, 'POST', (x) => `/v1/sandbox/topups/${x}/${outcome}`, id);
    await compare(`sandbox ${outcome} refund`, 'POST', (x) => `/v1/sandbox/refunds/${x}/${outcome}`, oA.refund);
    for (const id of [oA.pendingPayout, oA.payout])
      await compare(`sandbox ${outcome} payout`, 'POST', (x) => `/v1/sandbox/payouts/${x}/${outcome}`, id);
  }
  await compare('GET refund', 'GET', (x) => `/v1/refunds/${x}`, oA.refund);
  for (const id of [oA.payout, oA.pendingPayout]) await compare('GET payout', 'GET', (x) => `/v1/payouts/${x}`, id);
  // Ids of one kind on another kind's route.
  await compare('a wallet id on /v1/payments/{id}', 'GET', (x) => `/v1/payments/${x}`, oA.wallet);
  await compare('a payment id on /v1/topups/{id}', 'GET', (x) => `/v1/topups/${x}`, oA.finalPayment);
  await compare('a delivery id on /v1/events/{id}', 'GET', (x) => `/v1/events/${x}`, oA.ids.delivery[0]!);
  return receivedBeforeRedeliver;
}

/** A list B reads with A's value in it answers as it does with an unknown value (and is empty unless told otherwise). */
async function sameList(ctx: Ctx, stage: Stage, tB: string, label: string, foreignPath: string, unknownPath: string, mustBeEmpty = true) {
  const foreign = await ctx.http.call(stage.s1.base, 'GET', foreignPath, { authorization: bearer(tB), as: 'B' });
  const unknown = await ctx.http.call(stage.s1.base, 'GET', unknownPath, { authorization: bearer(tB), as: 'B' });
  ctx.figures.probes += 1;
  const strip = (r: Resp) => normalized(r, '\u0000');
  if (strip(foreign) !== strip(unknown))
    ctx.leaks.push(`${label}: differs from an unknown value (${foreign.text.slice(0, 120)} vs ${unknown.text.slice(0, 120)})`);
  if (mustBeEmpty && foreign.status === 200 && (foreign.json?.data?.length ?? 0) > 0)
    ctx.leaks.push(`${label}: ${foreign.json.data.length} objects listed`);
}

/** A's references and object ids as list filters, A's ids as list cursors. */
async function probeListFilters(ctx: Ctx, stage: Stage, tokens: Tokens, oA: Objects, oB: Objects): Promise<void> {
  const list = (label: string, foreignPath: string, unknownPath: string, mustBeEmpty = true) =>
    sameList(ctx, stage, tokens.tB, label, foreignPath, unknownPath, mustBeEmpty);
  for (const reference of each(
    ctx,
    oA.references.filter((r) => !r.endsWith('wallet')),
    5,
  )) {
    const encoded = encodeURIComponent(reference);
    const unknown = encodeURIComponent(`${reference}-x`);
    await list(`payments?reference=A's`, `/v1/payments?reference=${encoded}`, `/v1/payments?reference=${unknown}`);
    await list(`topups?reference=A's`, `/v1/topups?reference=${encoded}`, `/v1/topups?reference=${unknown}`);
  }
  for (const id of [...each(ctx, oA.ids.payment, 3), ...oA.ids.topup]) {
    await list(`events?object_id=A's`, `/v1/events?object_id=${id}`, `/v1/events?object_id=${unknownLike(id)}`);
  }
  const cursorLists: [string, string[]][] = [
    ['/v1/payments', oA.ids.payment],
    ['/v1/topups', oA.ids.topup],
    ['/v1/wallets', oA.ids.wallet],
    ['/v1/events', oA.ids.event],
    ['/v1/webhook_endpoints', oA.ids.webhookEndpoint],
    [`/v1/wallets/${oB.wallet}/transactions`, oA.ids.walletTransaction],
  ];
  for (const [path, ids] of cursorLists) {
    for (const id of each(ctx, ids, 2)) {
      for (const param of ['starting_after', 'ending_before']) {
        // A cursor is a position: B's own objects may follow it, identically for an unknown id.
        await list(`${path}?${param}=A's`, `${path}?limit=100&${param}=${id}`, `${path}?limit=100&${param}=${unknownLike(id)}`, false);
      }
    }
  }
}

/** A's wallet as the wallet of B's payment or top-up answers as an unknown wallet; A's references are B's to use. */
async function probeWritesWithAsObjects(ctx: Ctx, stage: Stage, tokens: Tokens, oA: Objects, oB: Objects): Promise<void> {
  let n = 0;
  await compareWithUnknown(ctx, stage, tokens.tB, "pay from A's wallet", 'POST', () => '/v1/payments', oA.wallet, {
    body: (id) => ({
      reference: `sec-B-steal-${n++}`,
      amount: '1.00',
      currency: 'KES',
      payment_method: { type: 'wallet', wallet: { wallet_id: id } },
    }),
    expect: 400,
  });
  await compareWithUnknown(ctx, stage, tokens.tB, "top up A's wallet", 'POST', () => '/v1/topups', oA.wallet, {
    body: (id) => ({ reference: `sec-B-fill-${n++}`, amount: '1.00', currency: 'KES', wallet_id: id, source: cardMethod(TEST_CARD) }),
    expect: 400,
  });
  // A's references are B's to use: 201, never a conflict naming A's object.
  for (const [path, body] of [
    [
      '/v1/payments',
      {
        reference: oA.references.find((r) => r.endsWith('card-0'))!,
        amount: '99.00',
        currency: 'KES',
        payment_method: cardMethod(TEST_CARD),
      },
    ],
    [
      '/v1/topups',
      {
        reference: oA.references.find((r) => r.endsWith('fund'))!,
        amount: '99.00',
        currency: 'KES',
        wallet_id: oB.wallet,
        source: cardMethod(TEST_CARD),
      },
    ],
    ['/v1/wallets', { currency: 'KES', reference: oA.walletReference }],
  ] as const) {
    const res = await ctx.http.call(stage.s1.base, 'POST', path, { authorization: bearer(tokens.tB), body, as: 'B' });
    ctx.figures.probes += 1;
    if (res.status !== 201) ctx.leaks.push(`B reusing A's reference on ${path}: ${res.status} ${res.text.slice(0, 160)}`);
    else oB.ids[path === '/v1/payments' ? 'payment' : path === '/v1/topups' ? 'topup' : 'wallet'].push(res.json.id);
  }
}

/** B's own lists and balance answer, and show only B's data. */
async function checkBsOwnLists(ctx: Ctx, stage: Stage, tB: string): Promise<void> {
  for (const path of [
    '/v1/payments?limit=100',
    '/v1/topups?limit=100',
    '/v1/wallets?limit=100',
    '/v1/events?limit=100',
    '/v1/webhook_endpoints?limit=100',
    '/v1/balance',
    '/v1/merchant',
  ]) {
    const res = await ctx.http.call(stage.s1.base, 'GET', path, { authorization: bearer(tB), as: 'B' });
    ctx.figures.probes += 1;
    if (res.status !== 200) ctx.problems.push(`B GET ${path}: ${res.status}`);
    if (path === '/v1/balance' && /GHS/.test(res.text)) ctx.leaks.push(`B's balance lists GHS, a currency only A used: ${res.text}`);
  }
}

/** No answer B got names A's objects, and B's probes changed nothing of A's. */
async function checkANotReachedByB(
  ctx: Ctx,
  stage: Stage,
  tokens: Tokens,
  oA: Objects,
  before: Snapshot,
  receivedBeforeRedeliver: number,
): Promise<void> {
  await sleep(1_500);
  if (receivedFor(stage, before.redeliverTarget) !== receivedBeforeRedeliver)
    ctx.leaks.push(`B's redeliver of A's event ${before.redeliverTarget} made new deliveries`);
  // Every answer B received: no identifier or marker of A's that B did not send itself.
  const aIdentifiers = [...Object.values(oA.ids).flat(), stage.A.merchantId, stage.A.clientId, ...oA.markers];
  for (const r of ctx.http.recorded.filter((x) => x.as === 'B')) {
    for (const id of aIdentifiers)
      if (r.text.includes(id) && !r.sent.includes(id)) ctx.leaks.push(`${r.label}: carries A's ${id.slice(0, 4)}… identifier`);
  }
  const walletAfter = (await get(ctx, stage.s1.base, tokens.tA, `/v1/wallets/${oA.wallet}`, 'A')).json as {
    balance: string;
    status: string;
  };
  if (walletAfter.balance !== before.wallet.balance || walletAfter.status !== before.wallet.status)
    ctx.leaks.push(`A's wallet changed: ${JSON.stringify(before.wallet)} → ${JSON.stringify(walletAfter)}`);
  if ((await endpointRowsOf(stage.deps, stage.A.merchantId)) !== before.endpoints)
    ctx.leaks.push("A's webhook endpoints changed (deleted or secret rotated)");
  for (const [path, expected] of [
    [`/v1/payments/${oA.pendingPayment}`, 'pending'],
    [`/v1/topups/${oA.pendingTopup}`, 'pending'],
  ] as const) {
    const status = (await get(ctx, stage.s1.base, tokens.tA, path, 'A')).json?.status;
    if (status !== expected) ctx.leaks.push(`A's ${path.split('/')[2]} is ${status} after B's sandbox probes`);
  }
}

// ---- Forged and altered tokens on every /v1 route -------------------------------------------------

interface RouteOf {
  method: string;
  path: string;
}

/** Every /v1 route and method the OpenAPI document lists. */
async function v1Routes(ctx: Ctx, stage: Stage): Promise<RouteOf[]> {
  const doc = (await ctx.http.call(stage.s1.base, 'GET', '/openapi.json')).json as { paths: Record<string, Record<string, unknown>> };
  const routes: RouteOf[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const method of Object.keys(item))
      if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) routes.push({ method: method.toUpperCase(), path });
  }
  if (routes.length < 25) ctx.problems.push(`only ${routes.length} /v1 routes in /openapi.json`);
  return routes;
}

/** A real id of A's for each `{param}`, by the route's kind. */
function idFiller(ctx: Ctx, oA: Objects, redeliverTarget: string): (path: string) => string {
  return (path) =>
    path.replace(/\{[^}]+\}/g, () => {
      if (path.startsWith('/v1/sandbox/payments')) return oA.pendingPayment;
      if (path.startsWith('/v1/sandbox/topups')) return oA.pendingTopup;
      if (path.startsWith('/v1/payments')) return oA.finalPayment;
      if (path.startsWith('/v1/topups')) return oA.finalTopup;
      if (path.startsWith('/v1/wallets')) return oA.wallet;
      if (path.startsWith('/v1/events')) return redeliverTarget;
      if (path.startsWith('/v1/webhook_endpoints')) return oA.endpoints[0]!.id;
      if (path.startsWith('/v1/transfers')) return oA.transfer;
      if (path.startsWith('/v1/sandbox/refunds') || path.startsWith('/v1/refunds')) return oA.refund;
      if (path.startsWith('/v1/sandbox/payouts')) return oA.pendingPayout;
      if (path.startsWith('/v1/payouts')) return oA.payout;
      if (path.startsWith('/v1/checkout_sessions')) return oA.checkoutSession;
      if (path.startsWith('/v1/payment_links')) return oA.paymentLink;
      if (path.startsWith('/v1/api_keys')) return oA.apiKey;
      ctx.problems.push(`no id to fill ${path} with`);
      return oA.finalPayment;
    });
}

/** A body that would create something for A if a forged token were taken for A's. */
function forgedBodies(stage: Stage, oA: Objects): (method: string, path: string) => unknown {
  let forgedN = 0;
  return (method, path) => {
    if (method !== 'POST') return undefined;
    const reference = `sec-forged-${forgedN++}`;
    if (path === '/v1/payments') return { reference, amount: '1.00', currency: 'KES', payment_method: cardMethod(TEST_CARD) };
    if (path === '/v1/topups') return { reference, amount: '1.00', currency: 'KES', wallet_id: oA.wallet, source: cardMethod(TEST_CARD) };
    if (path === '/v1/wallets') return { currency: 'KES' };
    if (path === '/v1/webhook_endpoints') return { url: `${stage.receiver.base}/forged` };
    if (path === '/v1/refunds') return { reference, payment_id: oA.finalPayment, amount: '1.00' };
    if (path === '/v1/payouts')
      return { reference, amount: '1.00', currency: 'KES', destination: { type: 'wallet', wallet: { wallet_id: oA.wallet } } };
    return {};
  };
}

async function countsOfA(stage: Stage): Promise<string> {
  const id = stage.A.merchantId;
  const result = await sql`SELECT (SELECT count(*) FROM charges WHERE merchant_id = ${id})::int AS charges,
                             (SELECT count(*) FROM wallets WHERE merchant_id = ${id})::int AS wallets,
                             (SELECT count(*) FROM webhook_endpoints WHERE merchant_id = ${id})::int AS endpoints,
                             (SELECT string_agg(status, ',' ORDER BY id) FROM wallets WHERE merchant_id = ${id}) AS wallet_states,
                             (SELECT string_agg(status, ',' ORDER BY id) FROM charges WHERE merchant_id = ${id}) AS charge_states`.execute(
    stage.deps.db.db,
  );
  return JSON.stringify(result.rows);
}

/** A's real token damaged in every way a client or an attacker might: never one of A's. */
function tamperedTokensOfA(tA: string, A: Merchant): ForgedToken[] {
  const change = (t: string, at: number) => t.slice(0, at) + (t[at] === 'A' ? 'B' : 'A') + t.slice(at + 1);
  const invalid = (label: string, authorization: string): ForgedToken => ({ label, authorization, code: 'token_invalid' });
  return [
    { label: 'no Authorization header', authorization: null, code: 'token_missing' },
    { label: 'empty Authorization header', authorization: '', code: 'token_missing' },
    invalid('"Bearer" without a token', 'Bearer'),
    invalid('random token of the right shape', bearer(`at_${randomBytes(32).toString('base64url')}`)),
    invalid('random string', bearer(randomBytes(24).toString('hex'))),
    invalid("A's token, first random character changed", bearer(change(tA, 3))),
    invalid("A's token, a middle character changed", bearer(change(tA, 24))),
    invalid("A's token, last character changed", bearer(change(tA, tA.length - 1))),
    invalid("A's token, case swapped", bearer(tA.replace(/[a-zA-Z]/g, (c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())))),
    invalid("A's token truncated by one", bearer(tA.slice(0, -1))),
    invalid("A's token truncated to half", bearer(tA.slice(0, Math.floor(tA.length / 2)))),
    invalid("A's token plus a character", bearer(`${tA}A`)),
    invalid("A's token without its prefix", bearer(tA.replace(/^at_/, ''))),
    invalid("A's token after another token", `Bearer at_${randomBytes(32).toString('base64url')}, Bearer ${tA}`),
    invalid("A's token under the Token scheme", `Token ${tA}`),
    invalid("A's client credentials as HTTP Basic", `Basic ${Buffer.from(`${A.clientId}:${A.clientSecret}`).toString('base64')}`),
    invalid("A's client secret as a Bearer token", bearer(A.clientSecret)),
    invalid("A's client id as a Bearer token", bearer(A.clientId)),
  ];
}

/** Made-up JWTs, a token in the query string, and tokens that were good until revoked or expired. */
function forgedAndRevokedTokens(stage: Stage, tokens: Tokens): ForgedToken[] {
  const { A } = stage;
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const emptyKeySignature = createHash('sha256').update('').digest('base64url');
  return [
    {
      label: 'JWT alg none for A',
      authorization: bearer(algNoneFor(A.merchantId, { client_id: A.clientId, exp })),
      code: 'token_invalid',
    },
    {
      label: 'JWT alg none, "at_" prefixed',
      authorization: bearer(`at_${jwt({ alg: 'none' }, { sub: A.merchantId, exp })}`),
      code: 'token_invalid',
    },
    {
      label: 'JWT HS256 signed with an empty key',
      authorization: bearer(jwt({ alg: 'HS256', typ: 'JWT' }, { sub: A.merchantId, exp }, emptyKeySignature)),
      code: 'token_invalid',
    },
    {
      label: "A's token in the query string only",
      authorization: null,
      query: `access_token=${encodeURIComponent(tokens.tA)}`,
      code: 'token_missing',
    },
    { label: 'the token of disabled merchant C (after 5 s)', authorization: bearer(tokens.tC), code: 'token_invalid' },
    { label: "D's token after D's secret was rotated (after 5 s)", authorization: bearer(tokens.tD), code: 'token_invalid' },
    {
      label: 'an expired token (TTL 2 s), on the server that issued it',
      authorization: bearer(tokens.expiring),
      code: 'token_expired',
      base: stage.s2.base,
    },
    { label: 'an expired token (TTL 2 s), on the other server', authorization: bearer(tokens.expiring), code: 'token_expired' },
  ];
}

/** One forged request: a 2xx is a forged token accepted; anything but the 401 with its code and challenge is wrong. */
async function tryForged(ctx: Ctx, stage: Stage, f: ForgedToken, route: RouteOf, path: string, body: unknown, wrong: string[]) {
  const res = await ctx.http.call(f.base ?? stage.s1.base, route.method, path, {
    authorization: f.authorization,
    ...(body !== undefined ? { body } : {}),
    as: 'forged',
  });
  if (res.status >= 200 && res.status < 300) {
    ctx.figures.forgedTokensAccepted += 1;
    wrong.push(`ACCEPTED ${f.label} on ${route.method} ${route.path}: ${res.status}`);
    return;
  }
  const challenge = res.headers.get('www-authenticate') ?? '';
  const challengeOk =
    f.code === 'token_missing'
      ? challenge === 'Bearer realm="payments"'
      : /^Bearer realm="payments", error="invalid_token"/.test(challenge);
  if (res.status !== 401 || res.json?.error?.code !== f.code || res.json?.error?.type !== 'authentication_error' || !challengeOk) {
    wrong.push(
      `${f.label} on ${route.method} ${route.path}: ${res.status} ${res.json?.error?.code ?? res.text.slice(0, 80)} (${challenge})`,
    );
  }
}

/** Every forged token on every /v1 route, once the revocations and the expiry have had their time; A's data unchanged. */
async function sweepForgedTokens(ctx: Ctx, stage: Stage, tokens: Tokens, oA: Objects, redeliverTarget: string) {
  const routes = await v1Routes(ctx, stage);
  const fill = idFiller(ctx, oA, redeliverTarget);
  const bodyFor = forgedBodies(stage, oA);
  // Positive control: A's real token is accepted on every GET route with these ids.
  for (const route of routes.filter((r) => r.method === 'GET')) {
    const res = await get(ctx, stage.s1.base, tokens.tA, fill(route.path), 'A');
    if (res.status !== 200) ctx.problems.push(`positive control: A's token on GET ${route.path} → ${res.status}`);
    if (route.path === '/v1/webhook_secret') {
      // The one GET that returns a secret by design: the merchant's own default signing secret, to
      // that merchant alone, never cached. Any other secret in it is still a leak.
      ctx.http.recorded.at(-1)!.allowed.add(stage.A.webhookSecret);
      if (res.headers.get('cache-control') !== 'no-store') ctx.problems.push('GET /v1/webhook_secret without Cache-Control: no-store');
    }
  }
  const aCountsBefore = await countsOfA(stage);
  // Revocation and expiry need time: 5 s for the disable and the rotation, 2 s for the short token.
  const wait = Math.max(tokens.revokedAt + 5_000, tokens.expiringIssuedAt + 3_000) - Date.now();
  if (wait > 0) await sleep(wait);
  const forged = [...tamperedTokensOfA(tokens.tA, stage.A), ...forgedAndRevokedTokens(stage, tokens)];
  const wrongAnswers: string[] = [];
  let forgedRequests = 0;
  const matrix = forged.flatMap((f) => routes.map((route) => ({ f, route })));
  await parallel(matrix, 8, async ({ f, route }) => {
    const path = fill(route.path) + (f.query ? `?${f.query}` : '');
    await tryForged(ctx, stage, f, route, path, bodyFor(route.method, route.path), wrongAnswers);
    forgedRequests += 1;
  });
  if (wrongAnswers.length > 0)
    ctx.problems.push(`${wrongAnswers.length} forged-token answers are not the expected 401: ${wrongAnswers.slice(0, 4).join('; ')}`);
  const aCountsAfter = await countsOfA(stage);
  if (aCountsAfter !== aCountsBefore) ctx.problems.push(`forged requests changed A's data: ${aCountsBefore} → ${aCountsAfter}`);
  return { routes: routes.length, forgedTokens: forged.length, forgedRequests, wrongForgedAnswers: wrongAnswers.length };
}

/** The revoked credentials at the token endpoint: disabled C and D's old secret refused, D's new one accepted. */
async function checkRevokedCredentials(ctx: Ctx, stage: Stage, tokens: Tokens, secrets: Secrets): Promise<void> {
  const { C, D } = stage;
  for (const [label, m, expected] of [
    ['disabled C', C, 401],
    ["D's old secret", D, 401],
    ["D's new secret", { ...D, clientSecret: tokens.rotatedSecret }, 200],
  ] as const) {
    const res = await ctx.http.call(stage.s1.base, 'POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: m.clientId, client_secret: m.clientSecret },
      as: 'token',
    });
    if (res.status === 200) {
      secrets.accessTokens.push(res.json.access_token);
      ctx.http.recorded.at(-1)!.allowed.add(res.json.access_token);
    }
    if (res.status !== expected) ctx.problems.push(`token endpoint for ${label}: ${res.status}, expected ${expected}`);
    if (expected === 401 && res.status === 200) ctx.figures.forgedTokensAccepted += 1;
  }
}

// ---- The bad-input catalogue over HTTP, on the strict server, as merchant E -----------------------

interface Tally {
  rows: number;
  mismatches: string[];
}

const WALLET_PARAM = 'payment_method.wallet.wallet_id';

/** The charge rows of the catalogue plus the wallet-specific rows of a payment. */
function paymentCatalogue(): Row[] {
  const withWallet = (walletId: unknown) => (ref: string, c: RowContext) =>
    edit(c.valid(ref), 'payment_method', { type: 'wallet', wallet: { wallet_id: walletId } });
  const missingWallet = { status: 400, code: 'resource_missing', param: WALLET_PARAM };
  return [
    ...chargeRows('payment_method'),
    { name: 'wallet id unknown', ...missingWallet, request: withWallet(newId('wallet')) },
    { name: "wallet id of another merchant's wallet", ...missingWallet, request: (ref, c) => withWallet(c.fx.foreignWallet)(ref, c) },
    { name: 'wallet id of another currency', ...expect400.invalid(WALLET_PARAM), request: (ref, c) => withWallet(c.fx.ugxWallet)(ref, c) },
    { name: 'wallet id a number', ...expect400.invalid(WALLET_PARAM), request: withWallet(7) },
  ];
}

/** The charge rows of the catalogue plus the wallet-specific rows of a top-up. */
function topupCatalogue(): Row[] {
  const missing = { status: 400, code: 'resource_missing', param: 'wallet_id' };
  return [
    ...chargeRows('source'),
    { name: 'wallet_id unknown', ...missing, request: (ref, c) => edit(c.valid(ref), 'wallet_id', newId('wallet')) },
    {
      name: "wallet_id of another merchant's wallet",
      ...missing,
      request: (ref, c) => edit(c.valid(ref), 'wallet_id', c.fx.foreignWallet),
    },
    {
      // A wallet is not a top-up source: refused on its type, before its other fields are read.
      name: 'a wallet source with its wallet object',
      ...expect400.invalid('source.type'),
      request: (ref, c) => edit(c.valid(ref), 'source', { type: 'wallet', wallet: { wallet_id: c.fx.kesWallet } }),
    },
    {
      name: 'a wallet source, type alone',
      ...expect400.invalid('source.type'),
      request: (ref, c) => edit(c.valid(ref), 'source', { type: 'wallet' }),
    },
  ];
}

/** Every create row: the exact status, code and param. */
async function runCreateRows(ctx: Ctx, stage: Stage, eAuth: string, oB: Objects, tally: Tally): Promise<void> {
  const newWallet = async (currency: string) =>
    (await ctx.http.call(stage.s2.base, 'POST', '/v1/wallets', { authorization: eAuth, body: { currency }, as: 'E' })).json.id as string;
  const fx: Record<string, string> = { kesWallet: await newWallet('KES'), ugxWallet: await newWallet('UGX'), foreignWallet: oB.wallet };
  const ctxFor = (url: string, valid: (ref: string) => Record<string, unknown>): RowContext => ({
    app: null as unknown as TestApp,
    merchant: null as unknown as TestMerchant,
    url,
    valid,
    fx,
    listsByReference: true,
  });
  const topupOf = (ref: string) => ({ reference: ref, amount: '100.00', currency: 'KES', wallet_id: fx.kesWallet, source: cardMethod() });
  const sets: [string, Row[], RowContext][] = [
    ['/v1/payments', paymentCatalogue(), ctxFor('/v1/payments', (ref) => paymentBody({ reference: ref }))],
    ['/v1/topups', topupCatalogue(), ctxFor('/v1/topups', topupOf)],
  ];
  let rowN = 0;
  for (const [url, rows, rowCtx] of sets) {
    for (const row of rows) {
      const request = row.request(`sec-bad-${rowN++}`, rowCtx);
      const isRaw =
        typeof request === 'object' && request !== null && 'raw' in request && typeof (request as { raw: unknown }).raw === 'string';
      const res = isRaw
        ? await ctx.http.call(stage.s2.base, 'POST', url, {
            authorization: eAuth,
            raw: (request as { raw: string }).raw,
            contentType: (request as { contentType?: string }).contentType ?? null,
            as: 'E',
          })
        : await ctx.http.call(stage.s2.base, 'POST', url, { authorization: eAuth, body: request, as: 'E' });
      tally.rows += 1;
      const error = res.json?.error as { code?: string; param?: string } | undefined;
      if (res.status !== row.status || error?.code !== row.code || (error?.param ?? null) !== row.param) {
        tally.mismatches.push(
          `${url} "${row.name}": ${res.status} ${error?.code ?? ''} ${error?.param ?? ''} (expected ${row.status} ${row.code} ${row.param ?? ''})`,
        );
      }
    }
  }
}

const MALFORMED_IDS = [
  '..%2F',
  '..%2F..%2Fadmin',
  'x'.repeat(500),
  '%00',
  '%22',
  '%27',
  "'",
  '%27%20OR%201%3D1--',
  '%22%3B%20DROP%20TABLE%20charges%3B--',
  '%C3%A9',
  '%E2%80%AE',
  '%F0%9F%92%B8',
  'null',
  '0',
  '-1',
  '%7B%7D',
  '%5B%5D',
  'pay_',
  '_',
  `pay_${'z'.repeat(26)}`,
];

/** Reads with malformed ids (404 resource_not_found) and bad list parameters (400). */
async function runReadRows(ctx: Ctx, stage: Stage, eAuth: string, tally: Tally): Promise<void> {
  const badQueries = [
    'limit=0',
    'limit=101',
    'limit=abc',
    'limit=-1',
    'limit=1&limit=2',
    `starting_after=${newId('payment')}&ending_before=${newId('payment')}`,
    'starting_after=%00',
    'foo=1',
    '__proto__=1',
  ];
  for (const base of ['/v1/payments', '/v1/topups', '/v1/wallets', '/v1/events', '/v1/webhook_endpoints']) {
    for (const id of MALFORMED_IDS) {
      const res = await ctx.http.call(stage.s2.base, 'GET', `${base}/${id}`, { authorization: eAuth, as: 'E' });
      tally.rows += 1;
      if (res.status !== 404 || res.json?.error?.code !== 'resource_not_found')
        tally.mismatches.push(`GET ${base}/${id.slice(0, 30)}: ${res.status} ${res.text.slice(0, 80)}`);
    }
    for (const query of badQueries) {
      const res = await ctx.http.call(stage.s2.base, 'GET', `${base}?${query}`, { authorization: eAuth, as: 'E' });
      tally.rows += 1;
      if (res.status !== 400) tally.mismatches.push(`GET ${base}?${query}: ${res.status} ${res.text.slice(0, 80)}`);
    }
  }
}

/** Bad requests at the token endpoint, and GET on it (405). */
async function runTokenEndpointRows(ctx: Ctx, stage: Stage, tally: Tally): Promise<void> {
  const { E } = stage;
  const grant = (fields: Record<string, unknown>) => ({ body: { grant_type: 'client_credentials', ...fields } });
  for (const [label, options, expected] of [
    ['empty body', { raw: '', contentType: 'application/json' }, 400],
    ['malformed JSON', { raw: '{"grant_type":', contentType: 'application/json' }, 400],
    ['text/plain', { raw: 'grant_type=client_credentials', contentType: 'text/plain' }, 400],
    ['missing fields', grant({}), 400],
    ['non-string client_id', grant({ client_id: 5, client_secret: 'x' }), 400],
    [
      'password grant',
      { body: { grant_type: 'password', client_id: E.clientId, client_secret: E.clientSecret, username: 'u', password: 'p' } },
      400,
    ],
    ['unknown client', grant({ client_id: 'cli_unknown', client_secret: 'sk_test_x' }), 401],
    ['NUL in client_id', grant({ client_id: 'cli\u0000x', client_secret: 'x' }), 400],
    ['a body of 5 KiB', grant({ client_id: E.clientId, client_secret: 'x'.repeat(5000) }), 413],
  ] as const) {
    const res = await ctx.http.call(stage.s2.base, 'POST', '/oauth/token', { ...(options as CallOptions), as: 'token' });
    tally.rows += 1;
    if (res.status !== expected) tally.mismatches.push(`token endpoint, ${label}: ${res.status} ${res.text.slice(0, 80)}`);
  }
  const res = await ctx.http.call(stage.s2.base, 'GET', '/oauth/token', { as: 'token' });
  tally.rows += 1;
  if (res.status !== 405) tally.mismatches.push(`GET /oauth/token: ${res.status}`);
}

/** The whole catalogue as E; every row answered exactly and nothing stored for E. */
async function runCatalogue(ctx: Ctx, stage: Stage, tokens: Tokens, oB: Objects): Promise<Tally> {
  const eAuth = bearer(tokens.tE);
  const tally: Tally = { rows: 0, mismatches: [] };
  await runCreateRows(ctx, stage, eAuth, oB, tally);
  await runReadRows(ctx, stage, eAuth, tally);
  await runTokenEndpointRows(ctx, stage, tally);
  if (tally.mismatches.length > 0)
    ctx.problems.push(
      `${tally.mismatches.length} of ${tally.rows} catalogue rows answered otherwise: ${tally.mismatches.slice(0, 5).join('; ')}`,
    );
  const eId = stage.E.merchantId;
  const eStored = (
    await sql<{
      charges: number;
      events: number;
    }>`SELECT (SELECT count(*) FROM charges WHERE merchant_id = ${eId})::int AS charges, (SELECT count(*) FROM events WHERE merchant_id = ${eId})::int AS events`.execute(
      stage.deps.db.db,
    )
  ).rows[0]!;
  if (eStored.charges !== 0 || eStored.events !== 0)
    ctx.problems.push(`refused requests stored something for E: ${JSON.stringify(eStored)}`);
  return tally;
}

// ---- Webhooks: each merchant's receiver paths get only its own events, signed with its own secrets --

async function eventIdsOf(ctx: Ctx, stage: Stage, t: string, as: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let cursor: string | null = null; ; ) {
    const page = await get(ctx, stage.s1.base, t, `/v1/events?limit=100${cursor ? `&starting_after=${cursor}` : ''}`, as);
    for (const e of page.json.data as { id: string }[]) ids.add(e.id);
    if (!page.json.has_more) return ids;
    cursor = page.json.data.at(-1).id;
  }
}

async function checkDeliveries(ctx: Ctx, stage: Stage, tokens: Tokens, oA: Objects, oB: Objects): Promise<void> {
  // Events listed now: B created more objects during the probes.
  const eventsOf: Record<string, Set<string>> = {
    A: await eventIdsOf(ctx, stage, tokens.tA, 'A'),
    B: await eventIdsOf(ctx, stage, tokens.tB, 'B'),
  };
  const deliveryLeaks: string[] = [];
  for (const r of stage.receiver.received) {
    const owner = r.path.split('/')[1] as 'A' | 'B';
    const eventId = r.headers['webhook-id'] as string;
    ctx.figures.probes += 1;
    if (!eventsOf[owner]?.has(eventId)) deliveryLeaks.push(`delivery of ${eventId} to ${r.path}: not an event of ${owner}`);
    if (owner !== 'A' && owner !== 'B') continue;
    const secrets = r.path.endsWith('/callback')
      ? [owner === 'A' ? stage.A.webhookSecret : stage.B.webhookSecret]
      : (owner === 'A' ? oA : oB).endpoints.filter((e) => e.path === r.path).map((e) => e.secret);
    const headers = Object.fromEntries(Object.entries(r.headers).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
    const verified = secrets.some((secret) => {
      try {
        new Webhook(secret).verify(r.body, headers);
        return true;
      } catch {
        return false;
      }
    });
    if (!verified) ctx.problems.push(`delivery to ${r.path} does not verify with ${owner}'s secret`);
  }
  ctx.figures.leaks += deliveryLeaks.length;
  ctx.leaks.push(...deliveryLeaks);
}

// ---- The scan ---------------------------------------------------------------------------------------

interface Needle {
  label: string;
  values: string[];
}

interface Source {
  name: string;
  text: string;
  allowed: Set<string>;
}

function needlesOf(stage: Stage, secrets: Secrets): Needle[] {
  return [
    ...secrets.clientSecrets.map((s, i) => ({ label: `client secret #${i + 1}`, values: secretForms(s) })),
    ...secrets.accessTokens.map((t, i) => ({ label: `access token #${i + 1}`, values: secretForms(t) })),
    ...secrets.webhookSecrets.map((s, i) => ({ label: `webhook endpoint secret #${i + 1}`, values: secretForms(s) })),
    ...[stage.A, stage.B, stage.C, stage.D, stage.E].map((m, i) => ({
      label: `merchant default webhook secret #${i + 1}`,
      values: secretForms(m.webhookSecret),
    })),
    { label: 'PURSE_SECRET_KEY', values: [stage.secretKey] },
    { label: 'HTTP Basic credentials', values: secrets.basicHeaders },
    ...[...secrets.cardsUsed, '4242424242424241'].map((c) => ({
      label: `card number ${c.slice(0, 4)}…${c.slice(-4)}`,
      values: cardForms(c),
    })),
  ];
}

/** pg_dump of the database; without pg_dump, every row of every table as JSON. */
async function dumpDatabase(ctx: Ctx, stage: Stage): Promise<string> {
  try {
    return (await run('pg_dump', ['--no-owner', '--no-privileges', '-d', stage.db.url], { maxBuffer: 512 * 1024 * 1024 })).stdout;
  } catch (error) {
    ctx.details.dumpFallback = error instanceof Error ? error.message.split('\n')[0] : String(error);
    const db = stage.deps.db.db;
    const tables = (
      await sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`.execute(db)
    ).rows;
    const parts: string[] = [];
    for (const { table_name } of tables) {
      const rows = await sql<{ j: string }>`SELECT row_to_json(t)::text AS j FROM ${sql.table(table_name)} t`.execute(db);
      parts.push(...rows.rows.map((r) => `${table_name} ${r.j}`));
    }
    return parts.join('\n');
  }
}

/** Each needle's first form found in each source, unless the source is the answer that creates that secret; any CVC. */
function findSecrets(sources: Source[], needles: Needle[], cvcs: string[]): string[] {
  const hits: string[] = [];
  for (const source of sources) {
    for (const needle of needles) {
      for (const value of needle.values) {
        if (source.allowed.has(value) || [...source.allowed].some((a) => a.includes(value) && value.length < a.length)) continue;
        if (source.text.includes(value)) {
          hits.push(`${needle.label} in ${source.name}`);
          break;
        }
      }
    }
    const cvcKey = /"cvc"\s*:\s*"(?!\[redacted\]")/.exec(source.text);
    if (cvcKey) hits.push(`a "cvc" key with a value in ${source.name}`);
    for (const cvc of cvcs) if (source.text.includes(`"${cvc}"`)) hits.push(`CVC "${cvc}" in ${source.name}`);
  }
  return hits;
}

/** Logs, the database, webhook deliveries and every answer searched for every secret; the captures proven non-empty first. */
async function scanForSecrets(ctx: Ctx, stage: Stage, secrets: Secrets) {
  const { http } = ctx;
  for (const path of ['/metrics', '/healthz', '/readyz']) await http.call(stage.s1.base, 'GET', path, { as: 'none' });
  await sleep(500); // the last log lines
  const needles = needlesOf(stage, secrets);
  const cvcs = [...secrets.cvcsUsed, '123'];
  const dump = await dumpDatabase(ctx, stage);
  const dumpFile = join(TMP_DIR, `faults-security-${stage.stamp}-dump.sql`);
  writeFileSync(dumpFile, dump);
  const logs = stage.logFiles.map((f) => readFileSync(f, 'utf8'));
  const deliveries = stage.receiver.received.map((r) => `${JSON.stringify(r.headers)}\n${r.body}`).join('\n');
  const sources: Source[] = [
    { name: 'server 1 log', text: logs[0]!, allowed: new Set() },
    { name: 'server 2 log', text: logs[1]!, allowed: new Set() },
    { name: 'database dump', text: dump, allowed: new Set() },
    { name: 'webhook deliveries', text: deliveries, allowed: new Set() },
    ...http.recorded.map((r) => ({ name: `answer to ${r.label}`, text: r.text, allowed: r.allowed })),
  ];
  // Positive controls: the captures hold what they should.
  if (!dump.includes(stage.A.merchantId) || !/CREATE TABLE|charges /.test(dump)) ctx.problems.push('the database dump looks empty');
  if ((logs[0]!.match(/"request completed"/g) ?? []).length < 100) ctx.problems.push('the server log holds too few request lines');
  if (!http.recorded.some((r) => r.allowed.size > 0 && [...r.allowed].some((s) => r.text.includes(s))))
    ctx.problems.push('the scan never saw a secret in the answer that creates it (scan broken)');
  const hits = findSecrets(sources, needles, cvcs);
  ctx.figures.leaks += hits.length;
  return {
    hits,
    scanned: {
      needles: needles.reduce((s, x) => s + x.values.length, 0),
      cvcs: cvcs.length,
      logBytes: logs.reduce((s, l) => s + l.length, 0),
      dumpBytes: dump.length,
      answers: http.recorded.length,
      deliveries: stage.receiver.received.length,
    },
    dumpFile,
  };
}

// ---- The scenario -----------------------------------------------------------------------------------

/** B against A's objects by every route, filter, cursor and write; A's objects unchanged after. */
async function probeCrossMerchant(ctx: Ctx, stage: Stage, tokens: Tokens, oA: Objects, oB: Objects, before: Snapshot): Promise<void> {
  const receivedBeforeRedeliver = await probeIdRoutes(ctx, stage, tokens, oA, before.redeliverTarget);
  await probeListFilters(ctx, stage, tokens, oA, oB);
  await probeWritesWithAsObjects(ctx, stage, tokens, oA, oB);
  await checkBsOwnLists(ctx, stage, tokens.tB);
  await checkANotReachedByB(ctx, stage, tokens, oA, before, receivedBeforeRedeliver);
  ctx.figures.leaks += ctx.leaks.length;
}

async function runSecurity(ctx: Ctx): Promise<void> {
  const stage = await setUp(ctx);
  const secrets: Secrets = {
    accessTokens: [],
    clientSecrets: [stage.A, stage.B, stage.C, stage.D, stage.E].map((m) => m.clientSecret),
    basicHeaders: [],
    webhookSecrets: [],
    cardsUsed: new Set(),
    cvcsUsed: new Set(),
  };
  const tokens = await issueTokensThenRevoke(ctx, stage, secrets);
  const oA = await createObjects(ctx, stage, secrets, tokens.tA, 'A');
  const oB = await createObjects(ctx, stage, secrets, tokens.tB, 'B');
  await settleAndCollect(ctx, stage, tokens, oA, oB);
  const before = await snapshotA(ctx, stage, tokens, oA);
  await probeCrossMerchant(ctx, stage, tokens, oA, oB, before);
  const sweep = await sweepForgedTokens(ctx, stage, tokens, oA, before.redeliverTarget);
  await checkRevokedCredentials(ctx, stage, tokens, secrets);
  const catalogue = await runCatalogue(ctx, stage, tokens, oB);
  await checkDeliveries(ctx, stage, tokens, oA, oB);
  const scan = await scanForSecrets(ctx, stage, secrets);

  const { http, figures } = ctx;
  figures.requests = http.requests;
  figures.unexpected5xx = http.fivexx.length;
  if (http.fivexx.length > 0) ctx.problems.push(`5xx answers: ${http.fivexx.slice(0, 3).join('; ')}`);
  Object.assign(ctx.details, {
    crossMerchantLeaks: ctx.leaks.slice(0, 20),
    scanHits: scan.hits.slice(0, 20),
    aObjects: Object.fromEntries(Object.entries(oA.ids).map(([k, v]) => [k, v.length])),
    ...sweep,
    catalogueRows: catalogue.rows,
    catalogueMismatches: catalogue.mismatches.slice(0, 10),
    scanned: scan.scanned,
    logFiles: stage.logFiles,
    dumpFile: scan.dumpFile,
  });
}

export const security: Scenario = {
  name: 'security',
  async run(profile: Profile): Promise<ScenarioResult> {
    const ctx: Ctx = {
      profile,
      http: new Client(),
      figures: emptyFigures(),
      details: {},
      problems: [],
      leaks: [],
      cleanup: new Cleanup(),
    };
    try {
      await runSecurity(ctx);
    } finally {
      await ctx.cleanup.run();
    }
    return { name: 'security', figures: ctx.figures, details: ctx.details, problems: ctx.problems };
  },
};
