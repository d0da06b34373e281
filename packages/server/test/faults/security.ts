// Security (reliability.md rules 7–9, "Concurrency, faults, security"; api-v1.md §2, §3):
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
import { newId } from '../../src/shared/ids.ts';
import type { TestApp, TestMerchant } from '../helpers/app.ts';
import { chargeRows, edit, expect400, type Row, type RowContext } from '../helpers/bad-input.ts';
import { cardMethod, paymentBody } from '../helpers/factories.ts';
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
  wallet: string;
  walletReference: string;
  endpoints: { id: string; secret: string; path: string }[];
  /** Strings only this merchant's data contains: holder name, email. */
  markers: string[];
}

export const security: Scenario = {
  name: 'security',
  async run(profile: Profile): Promise<ScenarioResult> {
    const figures: Figures = emptyFigures();
    const details: Record<string, unknown> = {};
    const problems: string[] = [];
    const cleanup = new Cleanup();
    const http = new Client();
    try {
      const db = await createDatabase('security', cleanup);
      const secretKey = newSecretKey();
      const deps = await operatorDeps(db.url, secretKey, cleanup);
      const [A, B, C, D, E] = (await Promise.all(
        ['Merchant A', 'Merchant B', 'Merchant C (disabled)', 'Merchant D (rotated)', 'Merchant E (bad input)'].map((n) =>
          createMerchant(deps, n),
        ),
      )) as [Merchant, Merchant, Merchant, Merchant, Merchant];
      const receiver = await startReceiver();
      cleanup.add(() => receiver.close());
      receiver.respond(200);
      mkdirSync(TMP_DIR, { recursive: true });
      const stamp = Date.now();
      const logFiles = [join(TMP_DIR, `faults-security-${stamp}-1.log`), join(TMP_DIR, `faults-security-${stamp}-2.log`)];
      const common = { DATABASE_URL: db.url, PURSE_SECRET_KEY: secretKey, LOG_LEVEL: 'debug' };
      const s1 = await startServer(
        cleanup,
        { ...common, PURSE_ALLOW_PRIVATE_WEBHOOK_URLS: 'true', PURSE_WEBHOOK_RETRY_SCHEDULE_S: '0.2,0.5,1' },
        { logFile: logFiles[0] },
      );
      // The second server: 2-second tokens, the strict settings of the catalogue (private callback
      // URLs refused, KES capped at 1000), no workers.
      const s2 = await startServer(
        cleanup,
        {
          ...common,
          PURSE_TOKEN_TTL_S: '2',
          PURSE_ALLOW_PRIVATE_WEBHOOK_URLS: 'false',
          PURSE_MAX_AMOUNTS: 'KES=1000',
          PURSE_WORKER: 'false',
        },
        { logFile: logFiles[1] },
      );

      // ---- Tokens: JSON, form, HTTP Basic (encoded and raw) -------------------------------------
      const accessTokens: string[] = [];
      const clientSecrets = [A, B, C, D, E].map((m) => m.clientSecret);
      const basicHeaders: string[] = [];
      const token = async (base: string, m: Merchant, how: 'json' | 'form' | 'basic' | 'basic-raw', as: string): Promise<string> => {
        const grant = { grant_type: 'client_credentials', client_id: m.clientId, client_secret: m.clientSecret };
        let res: Resp;
        if (how === 'json')
          res = await http.call(base, 'POST', '/oauth/token', { body: grant, headers: { accept: 'application/json' }, as });
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
          basicHeaders.push(header.slice(6));
          res = await http.call(base, 'POST', '/oauth/token', {
            authorization: header,
            raw: 'grant_type=client_credentials',
            contentType: 'application/x-www-form-urlencoded',
            as,
          });
        }
        if (res.status !== 200) throw new Error(`token (${how}) for ${m.merchantId}: ${res.status} ${res.text}`);
        const value = res.json.access_token as string;
        accessTokens.push(value);
        http.recorded.at(-1)!.allowed.add(value);
        if (res.headers.get('cache-control') !== 'no-store') problems.push(`token answer without Cache-Control: no-store (${how})`);
        return value;
      };
      const tA = await token(s1.base, A, 'json', 'A');
      for (const how of ['form', 'basic', 'basic-raw'] as const) await token(s1.base, A, how, 'A');
      const tB = await token(s1.base, B, 'json', 'B');
      await token(s1.base, B, 'form', 'B');
      const tC = await token(s1.base, C, 'json', 'C');
      const tD = await token(s1.base, D, 'json', 'D');
      const tE = await token(s1.base, E, 'json', 'E');
      const expiring = await token(s2.base, A, 'json', 'A');
      const expiringIssuedAt = Date.now();
      const bearer = (t: string) => `Bearer ${t}`;
      for (const [label, t, base] of [
        ['C before disabling', tC, s1.base],
        ['D before rotating', tD, s1.base],
        ['the 2-second token while fresh', expiring, s2.base],
      ] as const) {
        const res = await http.call(base, 'GET', '/v1/merchant', { authorization: bearer(t), as: label[0]! });
        if (res.status !== 200) problems.push(`positive control failed: ${label} → ${res.status}`);
      }
      // Revocations: both must reach every server within 5 s.
      const disabled = await deps.services.merchants.setStatus(C.merchantId, 'disabled');
      const rotated = await deps.services.merchants.rotateSecret(D.merchantId);
      if (!disabled.ok || !rotated.ok) throw new Error('disable or rotate failed');
      clientSecrets.push(rotated.value.client_secret);
      const revokedAt = Date.now();

      // ---- A's and B's objects -----------------------------------------------------------------
      const cardsUsed = new Set<string>();
      const cvcsUsed = new Set<string>();
      const webhookSecrets: string[] = [];
      const make = async (_m: Merchant, t: string, tag: string): Promise<Objects> => {
        const auth = bearer(t);
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
          wallet: '',
          walletReference: ref('wallet'),
          endpoints: [],
          markers: [`Holder ${tag} ${nonce}`, `holder-${tag}-${nonce}@example.com`],
        };
        const post = async (path: string, body: unknown, expected = 201): Promise<Resp> => {
          const res = await http.call(s1.base, 'POST', path, { authorization: auth, body, as: tag });
          if (res.status !== expected) throw new Error(`${tag} POST ${path}: ${res.status} ${res.text}`);
          return res;
        };
        for (const [path, events] of [
          [`/${tag}/all`, undefined],
          [`/${tag}/payments`, ['payment.succeeded', 'payment.failed']],
        ] as const) {
          const res = await post('/v1/webhook_endpoints', {
            url: receiver.base + path,
            ...(events ? { events } : {}),
            description: `endpoint ${tag}`,
          });
          webhookSecrets.push(res.json.secret);
          http.recorded.at(-1)!.allowed.add(res.json.secret);
          o.endpoints.push({ id: res.json.id, secret: res.json.secret, path });
          o.ids.webhookEndpoint.push(res.json.id);
        }
        const rotatedSecret = await post(`/v1/webhook_endpoints/${o.endpoints[1]!.id}/rotate_secret`, {}, 200);
        webhookSecrets.push(rotatedSecret.json.secret);
        http.recorded.at(-1)!.allowed.add(rotatedSecret.json.secret);
        o.endpoints[1]!.secret = rotatedSecret.json.secret;

        const holder = { name: o.markers[0], email: o.markers[1], phone_number: '+254700000111' };
        o.wallet = (await post('/v1/wallets', { currency: 'KES', reference: o.walletReference, holder })).json.id;
        const second = (await post('/v1/wallets', { currency: 'KES' })).json.id as string;
        o.ids.wallet.push(o.wallet, second);
        o.references.push(o.walletReference);

        const [fundCard, fundCvc] = CARDS[0]!;
        cardsUsed.add(fundCard);
        cvcsUsed.add(fundCvc);
        const topup = await post('/v1/topups', {
          reference: ref('fund'),
          amount: '500.00',
          currency: 'KES',
          wallet_id: o.wallet,
          source: { type: 'card', card: { number: fundCard, exp_month: 11, exp_year: 2034, cvc: fundCvc, holder_name: o.markers[0] } },
        });
        o.finalTopup = topup.json.id;
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

        for (const [i, [number, cvc]] of CARDS.entries()) {
          cardsUsed.add(number);
          cvcsUsed.add(cvc);
          const res = await post('/v1/payments', {
            reference: ref(`card-${i}`),
            amount: `${11 + i}.00`,
            currency: 'KES',
            payment_method: { type: 'card', card: { number, exp_month: 1 + i, exp_year: 2031 + i, cvc, holder_name: o.markers[0] } },
            customer: { name: o.markers[0], email: o.markers[1] },
            ...(i === 0 ? { callback_url: `${receiver.base}/${tag}/callback` } : {}),
            metadata: { order: ref(`order-${i}`) },
          });
          o.ids.payment.push(res.json.id);
          o.references.push(ref(`card-${i}`));
        }
        o.finalPayment = o.ids.payment[0]!;
        if (tag === 'A') {
          // A currency B never uses: B's balance must not show it.
          const res = await post('/v1/payments', {
            reference: ref('ghs'),
            amount: '7.00',
            currency: 'GHS',
            payment_method: cardMethod({ number: '4242424242424242', cvc: '7391' }),
          });
          o.ids.payment.push(res.json.id);
          o.references.push(ref('ghs'));
        }
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
          callback_url: `${receiver.base}/${tag}/callback`,
          payment_method: { type: 'mobile_money', mobile_money: { phone_number: '+254712345000' } },
        });
        o.pendingPayment = pending.json.id;
        o.ids.payment.push(walletPayment.json.id, pending.json.id, settles.json.id);
        o.references.push(ref('wallet-pay'), ref('pending'), ref('mobile'));
        return o;
      };
      const oA = await make(A, tA, 'A');
      const oB = await make(B, tB, 'B');

      // Settled, events written, deliveries made; then the ids of events, deliveries and wallet transactions.
      const get = async (t: string, path: string, as: string, base = s1.base) =>
        http.call(base, 'GET', path, { authorization: bearer(t), as });
      await eventually(
        'mobile-money payments settled',
        async () =>
          (await get(tA, `/v1/payments/${oA.ids.payment.at(-1)}`, 'A')).json?.status === 'succeeded' &&
          (await get(tB, `/v1/payments/${oB.ids.payment.at(-1)}`, 'B')).json?.status === 'succeeded',
        20_000,
        100,
      );
      const collect = async (o: Objects, t: string) => {
        for (let cursor: string | null = null; ; ) {
          const page = await get(t, `/v1/events?limit=100${cursor ? `&starting_after=${cursor}` : ''}`, o.tag);
          o.ids.event.push(...(page.json.data as { id: string }[]).map((e) => e.id));
          if (!page.json.has_more) break;
          cursor = page.json.data.at(-1).id;
        }
        for (const id of o.ids.event) {
          const deliveries = await get(t, `/v1/events/${id}/deliveries`, o.tag);
          o.ids.delivery.push(...(deliveries.json.data as { id: string }[]).map((d) => d.id));
        }
        const tx = await get(t, `/v1/wallets/${o.wallet}/transactions?limit=100`, o.tag);
        o.ids.walletTransaction.push(...(tx.json.data as { id: string }[]).map((x) => x.id));
      };
      await eventually('deliveries made', () => receiver.received.filter((r) => r.ok).length >= 20, 20_000, 100);
      await collect(oA, tA);
      await collect(oB, tB);
      if (oA.ids.event.length < 10 || oA.ids.delivery.length < 5 || oA.ids.walletTransaction.length < 2)
        problems.push(
          `too few of A's objects to probe: ${JSON.stringify(Object.fromEntries(Object.entries(oA.ids).map(([k, v]) => [k, v.length])))}`,
        );

      // A's state before the probes.
      const aWalletBefore = (await get(tA, `/v1/wallets/${oA.wallet}`, 'A')).json as { balance: string; status: string };
      const endpointRows = async () =>
        JSON.stringify(
          (
            await sql`SELECT row_to_json(w)::text AS j FROM webhook_endpoints w WHERE merchant_id = ${A.merchantId} ORDER BY id`.execute(
              deps.db.db,
            )
          ).rows,
        );
      const aEndpointsBefore = await endpointRows();
      const redeliverTarget = oA.ids.event.find((id) => receiver.received.some((r) => r.headers['webhook-id'] === id && r.ok))!;
      const receivedFor = (eventId: string) => receiver.received.filter((r) => r.headers['webhook-id'] === eventId).length;

      // ---- Cross-merchant probes: B aims at A's objects ----------------------------------------
      const leaks: string[] = [];
      const compare = async (
        label: string,
        method: string,
        path: (id: string) => string,
        foreignId: string,
        options: { body?: (id: string) => unknown; expect?: number } = {},
      ) => {
        const unknownId = unknownLike(foreignId);
        const call = (id: string) =>
          http.call(s1.base, method, path(id), {
            authorization: bearer(tB),
            as: 'B',
            ...(options.body ? { body: options.body(id) } : method === 'POST' ? { body: {} } : {}),
          });
        const foreign = await call(foreignId);
        const unknown = await call(unknownId);
        figures.probes += 1;
        if (foreign.status >= 200 && foreign.status < 300) leaks.push(`${label}: ${foreign.status} for A's object`);
        else if (normalized(foreign, foreignId) !== normalized(unknown, unknownId))
          leaks.push(
            `${label}: A's id answers differently from an unknown id (${foreign.status} ${foreign.text.slice(0, 100)} vs ${unknown.status} ${unknown.text.slice(0, 100)})`,
          );
        const expected = options.expect ?? 404;
        const code = expected === 404 ? 'resource_not_found' : 'resource_missing';
        if (foreign.status !== expected || foreign.json?.error?.code !== code)
          problems.push(`${label}: ${foreign.status} ${foreign.json?.error?.code}, expected ${expected} ${code}`);
      };
      const each = <T>(list: T[], n: number) => (profile === 'full' ? list : list.slice(0, n));
      for (const id of each(oA.ids.payment, 4)) await compare('GET payment', 'GET', (x) => `/v1/payments/${x}`, id);
      for (const id of oA.ids.topup) await compare('GET top-up', 'GET', (x) => `/v1/topups/${x}`, id);
      for (const id of oA.ids.wallet) {
        await compare('GET wallet', 'GET', (x) => `/v1/wallets/${x}`, id);
        await compare('GET wallet transactions', 'GET', (x) => `/v1/wallets/${x}/transactions`, id);
        await compare('freeze wallet', 'POST', (x) => `/v1/wallets/${x}/freeze`, id);
        await compare('unfreeze wallet', 'POST', (x) => `/v1/wallets/${x}/unfreeze`, id);
      }
      for (const id of each(oA.ids.event, 6)) {
        await compare('GET event', 'GET', (x) => `/v1/events/${x}`, id);
        await compare('GET event deliveries', 'GET', (x) => `/v1/events/${x}/deliveries`, id);
      }
      const receivedBeforeRedeliver = receivedFor(redeliverTarget);
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
      }
      // Ids of one kind on another kind's route.
      await compare('a wallet id on /v1/payments/{id}', 'GET', (x) => `/v1/payments/${x}`, oA.wallet);
      await compare('a payment id on /v1/topups/{id}', 'GET', (x) => `/v1/topups/${x}`, oA.finalPayment);
      await compare('a delivery id on /v1/events/{id}', 'GET', (x) => `/v1/events/${x}`, oA.ids.delivery[0]!);
      // By reference and object_id filters.
      const sameList = async (label: string, foreignPath: string, unknownPath: string, mustBeEmpty = true) => {
        const foreign = await http.call(s1.base, 'GET', foreignPath, { authorization: bearer(tB), as: 'B' });
        const unknown = await http.call(s1.base, 'GET', unknownPath, { authorization: bearer(tB), as: 'B' });
        figures.probes += 1;
        const strip = (r: Resp) => normalized(r, '\u0000');
        if (strip(foreign) !== strip(unknown))
          leaks.push(`${label}: differs from an unknown value (${foreign.text.slice(0, 120)} vs ${unknown.text.slice(0, 120)})`);
        if (mustBeEmpty && foreign.status === 200 && (foreign.json?.data?.length ?? 0) > 0)
          leaks.push(`${label}: ${foreign.json.data.length} objects listed`);
      };
      for (const reference of each(
        oA.references.filter((r) => !r.endsWith('wallet')),
        5,
      )) {
        await sameList(
          `payments?reference=A's`,
          `/v1/payments?reference=${encodeURIComponent(reference)}`,
          `/v1/payments?reference=${encodeURIComponent(`${reference}-x`)}`,
        );
        await sameList(
          `topups?reference=A's`,
          `/v1/topups?reference=${encodeURIComponent(reference)}`,
          `/v1/topups?reference=${encodeURIComponent(`${reference}-x`)}`,
        );
      }
      for (const id of [...each(oA.ids.payment, 3), ...oA.ids.topup]) {
        await sameList(`events?object_id=A's`, `/v1/events?object_id=${id}`, `/v1/events?object_id=${unknownLike(id)}`);
      }
      // A's ids as list cursors.
      const cursorLists: [string, string[]][] = [
        ['/v1/payments', oA.ids.payment],
        ['/v1/topups', oA.ids.topup],
        ['/v1/wallets', oA.ids.wallet],
        ['/v1/events', oA.ids.event],
        ['/v1/webhook_endpoints', oA.ids.webhookEndpoint],
        [`/v1/wallets/${oB.wallet}/transactions`, oA.ids.walletTransaction],
      ];
      for (const [list, ids] of cursorLists) {
        for (const id of each(ids, 2)) {
          for (const param of ['starting_after', 'ending_before']) {
            // A cursor is a position: B's own objects may follow it, identically for an unknown id.
            await sameList(
              `${list}?${param}=A's`,
              `${list}?limit=100&${param}=${id}`,
              `${list}?limit=100&${param}=${unknownLike(id)}`,
              false,
            );
          }
        }
      }
      // A's wallet as the wallet of B's payment or top-up: identical to an unknown wallet.
      let n = 0;
      await compare("pay from A's wallet", 'POST', () => '/v1/payments', oA.wallet, {
        body: (id) => ({
          reference: `sec-B-steal-${n++}`,
          amount: '1.00',
          currency: 'KES',
          payment_method: { type: 'wallet', wallet: { wallet_id: id } },
        }),
        expect: 400,
      });
      await compare("top up A's wallet", 'POST', () => '/v1/topups', oA.wallet, {
        body: (id) => ({
          reference: `sec-B-fill-${n++}`,
          amount: '1.00',
          currency: 'KES',
          wallet_id: id,
          source: cardMethod({ number: '4242424242424242', cvc: '7391' }),
        }),
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
            payment_method: cardMethod({ number: '4242424242424242', cvc: '7391' }),
          },
        ],
        [
          '/v1/topups',
          {
            reference: oA.references.find((r) => r.endsWith('fund'))!,
            amount: '99.00',
            currency: 'KES',
            wallet_id: oB.wallet,
            source: cardMethod({ number: '4242424242424242', cvc: '7391' }),
          },
        ],
        ['/v1/wallets', { currency: 'KES', reference: oA.walletReference }],
      ] as const) {
        const res = await http.call(s1.base, 'POST', path, { authorization: bearer(tB), body, as: 'B' });
        figures.probes += 1;
        if (res.status !== 201) leaks.push(`B reusing A's reference on ${path}: ${res.status} ${res.text.slice(0, 160)}`);
        else oB.ids[path === '/v1/payments' ? 'payment' : path === '/v1/topups' ? 'topup' : 'wallet'].push(res.json.id);
      }
      // B's own lists and balance: only B's data.
      for (const path of [
        '/v1/payments?limit=100',
        '/v1/topups?limit=100',
        '/v1/wallets?limit=100',
        '/v1/events?limit=100',
        '/v1/webhook_endpoints?limit=100',
        '/v1/balance',
        '/v1/merchant',
      ]) {
        const res = await http.call(s1.base, 'GET', path, { authorization: bearer(tB), as: 'B' });
        figures.probes += 1;
        if (res.status !== 200) problems.push(`B GET ${path}: ${res.status}`);
        if (path === '/v1/balance' && /GHS/.test(res.text)) leaks.push(`B's balance lists GHS, a currency only A used: ${res.text}`);
      }
      await sleep(1_500);
      if (receivedFor(redeliverTarget) !== receivedBeforeRedeliver)
        leaks.push(`B's redeliver of A's event ${redeliverTarget} made new deliveries`);

      // Every answer B received: no identifier or marker of A's that B did not send itself.
      const aIdentifiers = [...Object.values(oA.ids).flat(), A.merchantId, A.clientId, ...oA.markers];
      for (const r of http.recorded.filter((x) => x.as === 'B')) {
        for (const id of aIdentifiers)
          if (r.text.includes(id) && !r.sent.includes(id)) leaks.push(`${r.label}: carries A's ${id.slice(0, 4)}… identifier`);
      }
      // A's objects did not change.
      const aWalletAfter = (await get(tA, `/v1/wallets/${oA.wallet}`, 'A')).json as { balance: string; status: string };
      if (aWalletAfter.balance !== aWalletBefore.balance || aWalletAfter.status !== aWalletBefore.status)
        leaks.push(`A's wallet changed: ${JSON.stringify(aWalletBefore)} → ${JSON.stringify(aWalletAfter)}`);
      if ((await endpointRows()) !== aEndpointsBefore) leaks.push("A's webhook endpoints changed (deleted or secret rotated)");
      for (const [path, expected] of [
        [`/v1/payments/${oA.pendingPayment}`, 'pending'],
        [`/v1/topups/${oA.pendingTopup}`, 'pending'],
      ] as const) {
        const status = (await get(tA, path, 'A')).json?.status;
        if (status !== expected) leaks.push(`A's ${path.split('/')[2]} is ${status} after B's sandbox probes`);
      }
      figures.leaks += leaks.length;

      // ---- Forged and altered tokens on every /v1 route ----------------------------------------
      const doc = (await http.call(s1.base, 'GET', '/openapi.json')).json as { paths: Record<string, Record<string, unknown>> };
      const routes: { method: string; path: string }[] = [];
      for (const [path, item] of Object.entries(doc.paths)) {
        if (!path.startsWith('/v1/')) continue;
        for (const method of Object.keys(item))
          if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) routes.push({ method: method.toUpperCase(), path });
      }
      if (routes.length < 25) problems.push(`only ${routes.length} /v1 routes in /openapi.json`);
      const fill = (path: string): string =>
        path.replace(/\{[^}]+\}/g, () => {
          if (path.startsWith('/v1/sandbox/payments')) return oA.pendingPayment;
          if (path.startsWith('/v1/sandbox/topups')) return oA.pendingTopup;
          if (path.startsWith('/v1/payments')) return oA.finalPayment;
          if (path.startsWith('/v1/topups')) return oA.finalTopup;
          if (path.startsWith('/v1/wallets')) return oA.wallet;
          if (path.startsWith('/v1/events')) return redeliverTarget;
          if (path.startsWith('/v1/webhook_endpoints')) return oA.endpoints[0]!.id;
          problems.push(`no id to fill ${path} with`);
          return oA.finalPayment;
        });
      let forgedN = 0;
      const bodyFor = (method: string, path: string): unknown => {
        if (method !== 'POST') return undefined;
        const reference = `sec-forged-${forgedN++}`;
        if (path === '/v1/payments')
          return { reference, amount: '1.00', currency: 'KES', payment_method: cardMethod({ number: '4242424242424242', cvc: '7391' }) };
        if (path === '/v1/topups')
          return {
            reference,
            amount: '1.00',
            currency: 'KES',
            wallet_id: oA.wallet,
            source: cardMethod({ number: '4242424242424242', cvc: '7391' }),
          };
        if (path === '/v1/wallets') return { currency: 'KES' };
        if (path === '/v1/webhook_endpoints') return { url: `${receiver.base}/forged` };
        return {};
      };
      // Positive control: A's real token is accepted on every GET route with these ids.
      for (const route of routes.filter((r) => r.method === 'GET')) {
        const res = await http.call(s1.base, 'GET', fill(route.path), { authorization: bearer(tA), as: 'A' });
        if (res.status !== 200) problems.push(`positive control: A's token on GET ${route.path} → ${res.status}`);
      }
      const countsOfA = async () =>
        JSON.stringify(
          (
            await sql`SELECT (SELECT count(*) FROM charges WHERE merchant_id = ${A.merchantId})::int AS charges,
                             (SELECT count(*) FROM wallets WHERE merchant_id = ${A.merchantId})::int AS wallets,
                             (SELECT count(*) FROM webhook_endpoints WHERE merchant_id = ${A.merchantId})::int AS endpoints,
                             (SELECT string_agg(status, ',' ORDER BY id) FROM wallets WHERE merchant_id = ${A.merchantId}) AS wallet_states,
                             (SELECT string_agg(status, ',' ORDER BY id) FROM charges WHERE merchant_id = ${A.merchantId}) AS charge_states`.execute(
              deps.db.db,
            )
          ).rows,
        );
      const aCountsBefore = await countsOfA();
      // Revocation and expiry need time: 5 s for the disable and the rotation, 2 s for the short token.
      const wait = Math.max(revokedAt + 5_000, expiringIssuedAt + 3_000) - Date.now();
      if (wait > 0) await sleep(wait);
      const jwt = (header: object, payload: object, signature = '') =>
        `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`;
      const change = (t: string, at: number) => t.slice(0, at) + (t[at] === 'A' ? 'B' : 'A') + t.slice(at + 1);
      const exp = Math.floor(Date.now() / 1000) + 3600;
      const forged: {
        label: string;
        authorization: string | null;
        code: 'token_missing' | 'token_invalid' | 'token_expired';
        query?: string;
        base?: string;
      }[] = [
        { label: 'no Authorization header', authorization: null, code: 'token_missing' },
        { label: 'empty Authorization header', authorization: '', code: 'token_missing' },
        { label: '"Bearer" without a token', authorization: 'Bearer', code: 'token_invalid' },
        {
          label: 'random token of the right shape',
          authorization: bearer(`at_${randomBytes(32).toString('base64url')}`),
          code: 'token_invalid',
        },
        { label: 'random string', authorization: bearer(randomBytes(24).toString('hex')), code: 'token_invalid' },
        { label: "A's token, first random character changed", authorization: bearer(change(tA, 3)), code: 'token_invalid' },
        { label: "A's token, a middle character changed", authorization: bearer(change(tA, 24)), code: 'token_invalid' },
        { label: "A's token, last character changed", authorization: bearer(change(tA, tA.length - 1)), code: 'token_invalid' },
        {
          label: "A's token, case swapped",
          authorization: bearer(tA.replace(/[a-zA-Z]/g, (c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()))),
          code: 'token_invalid',
        },
        { label: "A's token truncated by one", authorization: bearer(tA.slice(0, -1)), code: 'token_invalid' },
        { label: "A's token truncated to half", authorization: bearer(tA.slice(0, Math.floor(tA.length / 2))), code: 'token_invalid' },
        { label: "A's token plus a character", authorization: bearer(`${tA}A`), code: 'token_invalid' },
        { label: "A's token without its prefix", authorization: bearer(tA.replace(/^at_/, '')), code: 'token_invalid' },
        {
          label: "A's token after another token",
          authorization: `Bearer at_${randomBytes(32).toString('base64url')}, Bearer ${tA}`,
          code: 'token_invalid',
        },
        { label: "A's token under the Token scheme", authorization: `Token ${tA}`, code: 'token_invalid' },
        {
          label: "A's client credentials as HTTP Basic",
          authorization: `Basic ${Buffer.from(`${A.clientId}:${A.clientSecret}`).toString('base64')}`,
          code: 'token_invalid',
        },
        { label: "A's client secret as a Bearer token", authorization: bearer(A.clientSecret), code: 'token_invalid' },
        { label: "A's client id as a Bearer token", authorization: bearer(A.clientId), code: 'token_invalid' },
        {
          label: 'JWT alg none for A',
          authorization: bearer(
            jwt({ alg: 'none', typ: 'JWT' }, { sub: A.merchantId, merchant_id: A.merchantId, client_id: A.clientId, exp }),
          ),
          code: 'token_invalid',
        },
        {
          label: 'JWT alg none, "at_" prefixed',
          authorization: bearer(`at_${jwt({ alg: 'none' }, { sub: A.merchantId, exp })}`),
          code: 'token_invalid',
        },
        {
          label: 'JWT HS256 signed with an empty key',
          authorization: bearer(
            jwt({ alg: 'HS256', typ: 'JWT' }, { sub: A.merchantId, exp }, createHash('sha256').update('').digest('base64url')),
          ),
          code: 'token_invalid',
        },
        {
          label: "A's token in the query string only",
          authorization: null,
          query: `access_token=${encodeURIComponent(tA)}`,
          code: 'token_missing',
        },
        { label: 'the token of disabled merchant C (after 5 s)', authorization: bearer(tC), code: 'token_invalid' },
        { label: "D's token after D's secret was rotated (after 5 s)", authorization: bearer(tD), code: 'token_invalid' },
        {
          label: 'an expired token (TTL 2 s), on the server that issued it',
          authorization: bearer(expiring),
          code: 'token_expired',
          base: s2.base,
        },
        { label: 'an expired token (TTL 2 s), on the other server', authorization: bearer(expiring), code: 'token_expired' },
      ];
      const wrongAnswers: string[] = [];
      let forgedRequests = 0;
      const matrix = forged.flatMap((f) => routes.map((route) => ({ f, route })));
      await parallel(matrix, 8, async ({ f, route }) => {
        const path = fill(route.path) + (f.query ? `?${f.query}` : '');
        const body = bodyFor(route.method, route.path);
        const res = await http.call(f.base ?? s1.base, route.method, path, {
          authorization: f.authorization,
          ...(body !== undefined ? { body } : {}),
          as: 'forged',
        });
        forgedRequests += 1;
        if (res.status >= 200 && res.status < 300) {
          figures.forgedTokensAccepted += 1;
          wrongAnswers.push(`ACCEPTED ${f.label} on ${route.method} ${route.path}: ${res.status}`);
          return;
        }
        const challenge = res.headers.get('www-authenticate') ?? '';
        const challengeOk =
          f.code === 'token_missing'
            ? challenge === 'Bearer realm="payments"'
            : /^Bearer realm="payments", error="invalid_token"/.test(challenge);
        if (res.status !== 401 || res.json?.error?.code !== f.code || res.json?.error?.type !== 'authentication_error' || !challengeOk) {
          wrongAnswers.push(
            `${f.label} on ${route.method} ${route.path}: ${res.status} ${res.json?.error?.code ?? res.text.slice(0, 80)} (${challenge})`,
          );
        }
      });
      if (wrongAnswers.length > 0)
        problems.push(`${wrongAnswers.length} forged-token answers are not the expected 401: ${wrongAnswers.slice(0, 4).join('; ')}`);
      const aCountsAfter = await countsOfA();
      if (aCountsAfter !== aCountsBefore) problems.push(`forged requests changed A's data: ${aCountsBefore} → ${aCountsAfter}`);
      // The revoked credentials at the token endpoint.
      for (const [label, m, expected] of [
        ['disabled C', C, 401],
        ["D's old secret", D, 401],
        ["D's new secret", { ...D, clientSecret: rotated.value.client_secret }, 200],
      ] as const) {
        const res = await http.call(s1.base, 'POST', '/oauth/token', {
          body: { grant_type: 'client_credentials', client_id: m.clientId, client_secret: m.clientSecret },
          as: 'token',
        });
        if (res.status === 200) {
          accessTokens.push(res.json.access_token);
          http.recorded.at(-1)!.allowed.add(res.json.access_token);
        }
        if (res.status !== expected) problems.push(`token endpoint for ${label}: ${res.status}, expected ${expected}`);
        if (expected === 401 && res.status === 200) figures.forgedTokensAccepted += 1;
      }

      // ---- The bad-input catalogue over HTTP, on the strict server, as merchant E ---------------
      const eAuth = bearer(tE);
      const newWallet = async (currency: string) =>
        (await http.call(s2.base, 'POST', '/v1/wallets', { authorization: eAuth, body: { currency }, as: 'E' })).json.id as string;
      const fx: Record<string, string> = { kesWallet: await newWallet('KES'), ugxWallet: await newWallet('UGX'), foreignWallet: oB.wallet };
      const ctxFor = (url: string, valid: (ref: string) => Record<string, unknown>): RowContext => ({
        app: null as unknown as TestApp,
        merchant: null as unknown as TestMerchant,
        url,
        valid,
        fx,
        listsByReference: true,
      });
      const walletParam = 'payment_method.wallet.wallet_id';
      const withWallet = (walletId: unknown) => (ref: string, c: RowContext) =>
        edit(c.valid(ref), 'payment_method', { type: 'wallet', wallet: { wallet_id: walletId } });
      const missingWallet = { status: 400, code: 'resource_missing', param: walletParam };
      const paymentRows: Row[] = [
        ...chargeRows('payment_method'),
        { name: 'wallet id unknown', ...missingWallet, request: withWallet(newId('wallet')) },
        { name: "wallet id of another merchant's wallet", ...missingWallet, request: (ref, c) => withWallet(c.fx.foreignWallet)(ref, c) },
        {
          name: 'wallet id of another currency',
          ...expect400.invalid(walletParam),
          request: (ref, c) => withWallet(c.fx.ugxWallet)(ref, c),
        },
        { name: 'wallet id a number', ...expect400.invalid(walletParam), request: withWallet(7) },
      ];
      const topupRows: Row[] = [
        ...chargeRows('source'),
        {
          name: 'wallet_id unknown',
          status: 400,
          code: 'resource_missing',
          param: 'wallet_id',
          request: (ref, c) => edit(c.valid(ref), 'wallet_id', newId('wallet')),
        },
        {
          name: "wallet_id of another merchant's wallet",
          status: 400,
          code: 'resource_missing',
          param: 'wallet_id',
          request: (ref, c) => edit(c.valid(ref), 'wallet_id', c.fx.foreignWallet),
        },
        {
          name: 'a wallet source with its wallet object',
          ...expect400.unknown('source.wallet'),
          request: (ref, c) => edit(c.valid(ref), 'source', { type: 'wallet', wallet: { wallet_id: c.fx.kesWallet } }),
        },
        {
          name: 'a wallet source, type alone',
          ...expect400.invalid('source.type'),
          request: (ref, c) => edit(c.valid(ref), 'source', { type: 'wallet' }),
        },
      ];
      const sets: [string, Row[], RowContext][] = [
        ['/v1/payments', paymentRows, ctxFor('/v1/payments', (ref) => paymentBody({ reference: ref }))],
        [
          '/v1/topups',
          topupRows,
          ctxFor('/v1/topups', (ref) => ({
            reference: ref,
            amount: '100.00',
            currency: 'KES',
            wallet_id: fx.kesWallet,
            source: cardMethod(),
          })),
        ],
      ];
      const catalogueMismatches: string[] = [];
      let catalogueRows = 0;
      let rowN = 0;
      for (const [url, rows, ctx] of sets) {
        for (const row of rows) {
          const request = row.request(`sec-bad-${rowN++}`, ctx);
          const isRaw =
            typeof request === 'object' && request !== null && 'raw' in request && typeof (request as { raw: unknown }).raw === 'string';
          const res = isRaw
            ? await http.call(s2.base, 'POST', url, {
                authorization: eAuth,
                raw: (request as { raw: string }).raw,
                contentType: (request as { contentType?: string }).contentType ?? null,
                as: 'E',
              })
            : await http.call(s2.base, 'POST', url, { authorization: eAuth, body: request, as: 'E' });
          catalogueRows += 1;
          const error = res.json?.error as { code?: string; param?: string } | undefined;
          if (res.status !== row.status || error?.code !== row.code || (error?.param ?? null) !== row.param) {
            catalogueMismatches.push(
              `${url} "${row.name}": ${res.status} ${error?.code ?? ''} ${error?.param ?? ''} (expected ${row.status} ${row.code} ${row.param ?? ''})`,
            );
          }
        }
      }
      // Reads: malformed ids, list parameters.
      const malformed = [
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
      for (const base of ['/v1/payments', '/v1/topups', '/v1/wallets', '/v1/events', '/v1/webhook_endpoints']) {
        for (const id of malformed) {
          const res = await http.call(s2.base, 'GET', `${base}/${id}`, { authorization: eAuth, as: 'E' });
          catalogueRows += 1;
          if (res.status !== 404 || res.json?.error?.code !== 'resource_not_found')
            catalogueMismatches.push(`GET ${base}/${id.slice(0, 30)}: ${res.status} ${res.text.slice(0, 80)}`);
        }
        for (const query of [
          'limit=0',
          'limit=101',
          'limit=abc',
          'limit=-1',
          'limit=1&limit=2',
          `starting_after=${newId('payment')}&ending_before=${newId('payment')}`,
          'starting_after=%00',
          'foo=1',
          '__proto__=1',
        ]) {
          const res = await http.call(s2.base, 'GET', `${base}?${query}`, { authorization: eAuth, as: 'E' });
          catalogueRows += 1;
          if (res.status !== 400) catalogueMismatches.push(`GET ${base}?${query}: ${res.status} ${res.text.slice(0, 80)}`);
        }
      }
      for (const [label, options, expected] of [
        ['empty body', { raw: '', contentType: 'application/json' }, 400],
        ['malformed JSON', { raw: '{"grant_type":', contentType: 'application/json' }, 400],
        ['text/plain', { raw: 'grant_type=client_credentials', contentType: 'text/plain' }, 400],
        ['missing fields', { body: { grant_type: 'client_credentials' } }, 400],
        ['non-string client_id', { body: { grant_type: 'client_credentials', client_id: 5, client_secret: 'x' } }, 400],
        [
          'password grant',
          { body: { grant_type: 'password', client_id: E.clientId, client_secret: E.clientSecret, username: 'u', password: 'p' } },
          400,
        ],
        ['unknown client', { body: { grant_type: 'client_credentials', client_id: 'cli_unknown', client_secret: 'sk_test_x' } }, 401],
        ['NUL in client_id', { body: { grant_type: 'client_credentials', client_id: 'cli\u0000x', client_secret: 'x' } }, 400],
        ['a body of 5 KiB', { body: { grant_type: 'client_credentials', client_id: E.clientId, client_secret: 'x'.repeat(5000) } }, 413],
      ] as const) {
        const res = await http.call(s2.base, 'POST', '/oauth/token', { ...(options as CallOptions), as: 'token' });
        catalogueRows += 1;
        if (res.status !== expected) catalogueMismatches.push(`token endpoint, ${label}: ${res.status} ${res.text.slice(0, 80)}`);
      }
      {
        const res = await http.call(s2.base, 'GET', '/oauth/token', { as: 'token' });
        catalogueRows += 1;
        if (res.status !== 405) catalogueMismatches.push(`GET /oauth/token: ${res.status}`);
      }
      if (catalogueMismatches.length > 0)
        problems.push(
          `${catalogueMismatches.length} of ${catalogueRows} catalogue rows answered otherwise: ${catalogueMismatches.slice(0, 5).join('; ')}`,
        );
      const eStored = (
        await sql<{
          charges: number;
          events: number;
        }>`SELECT (SELECT count(*) FROM charges WHERE merchant_id = ${E.merchantId})::int AS charges, (SELECT count(*) FROM events WHERE merchant_id = ${E.merchantId})::int AS events`.execute(
          deps.db.db,
        )
      ).rows[0]!;
      if (eStored.charges !== 0 || eStored.events !== 0)
        problems.push(`refused requests stored something for E: ${JSON.stringify(eStored)}`);

      // Webhooks: each merchant's receiver paths get only its own events, signed with its own secrets.
      // Events listed now: B created more objects during the probes.
      const eventsNow = async (t: string, as: string) => {
        const ids = new Set<string>();
        for (let cursor: string | null = null; ; ) {
          const page = await get(t, `/v1/events?limit=100${cursor ? `&starting_after=${cursor}` : ''}`, as);
          for (const e of page.json.data as { id: string }[]) ids.add(e.id);
          if (!page.json.has_more) return ids;
          cursor = page.json.data.at(-1).id;
        }
      };
      const eventsOf: Record<string, Set<string>> = { A: await eventsNow(tA, 'A'), B: await eventsNow(tB, 'B') };
      const deliveryLeaks: string[] = [];
      for (const r of receiver.received) {
        const owner = r.path.split('/')[1] as 'A' | 'B';
        const eventId = r.headers['webhook-id'] as string;
        figures.probes += 1;
        if (!eventsOf[owner]?.has(eventId)) deliveryLeaks.push(`delivery of ${eventId} to ${r.path}: not an event of ${owner}`);
        if (owner !== 'A' && owner !== 'B') continue;
        const secrets = r.path.endsWith('/callback')
          ? [owner === 'A' ? A.webhookSecret : B.webhookSecret]
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
        if (!verified) problems.push(`delivery to ${r.path} does not verify with ${owner}'s secret`);
      }

      figures.leaks += deliveryLeaks.length;
      leaks.push(...deliveryLeaks);

      // ---- The scan -----------------------------------------------------------------------------
      for (const path of ['/metrics', '/healthz', '/readyz']) await http.call(s1.base, 'GET', path, { as: 'none' });
      await sleep(500); // the last log lines
      const needles: { label: string; values: string[] }[] = [
        ...clientSecrets.map((s, i) => ({ label: `client secret #${i + 1}`, values: secretForms(s) })),
        ...accessTokens.map((t, i) => ({ label: `access token #${i + 1}`, values: secretForms(t) })),
        ...webhookSecrets.map((s, i) => ({ label: `webhook endpoint secret #${i + 1}`, values: secretForms(s) })),
        ...[A, B, C, D, E].map((m, i) => ({ label: `merchant default webhook secret #${i + 1}`, values: secretForms(m.webhookSecret) })),
        { label: 'PURSE_SECRET_KEY', values: [secretKey] },
        { label: 'HTTP Basic credentials', values: basicHeaders },
        ...[...cardsUsed, '4242424242424241'].map((c) => ({ label: `card number ${c.slice(0, 4)}…${c.slice(-4)}`, values: cardForms(c) })),
      ];
      const cvcs = [...cvcsUsed, '123'];
      let dump: string;
      try {
        dump = (await run('pg_dump', ['--no-owner', '--no-privileges', '-d', db.url], { maxBuffer: 512 * 1024 * 1024 })).stdout;
      } catch (error) {
        // Without pg_dump: every row of every table as JSON.
        details.dumpFallback = error instanceof Error ? error.message.split('\n')[0] : String(error);
        const tables = (
          await sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`.execute(
            deps.db.db,
          )
        ).rows;
        const parts: string[] = [];
        for (const { table_name } of tables) {
          const rows = await sql<{ j: string }>`SELECT row_to_json(t)::text AS j FROM ${sql.table(table_name)} t`.execute(deps.db.db);
          parts.push(...rows.rows.map((r) => `${table_name} ${r.j}`));
        }
        dump = parts.join('\n');
      }
      const dumpFile = join(TMP_DIR, `faults-security-${stamp}-dump.sql`);
      writeFileSync(dumpFile, dump);
      const logs = logFiles.map((f) => readFileSync(f, 'utf8'));
      const deliveries = receiver.received.map((r) => `${JSON.stringify(r.headers)}\n${r.body}`).join('\n');
      const sources: { name: string; text: string; allowed: Set<string> }[] = [
        { name: 'server 1 log', text: logs[0]!, allowed: new Set() },
        { name: 'server 2 log', text: logs[1]!, allowed: new Set() },
        { name: 'database dump', text: dump, allowed: new Set() },
        { name: 'webhook deliveries', text: deliveries, allowed: new Set() },
        ...http.recorded.map((r) => ({ name: `answer to ${r.label}`, text: r.text, allowed: r.allowed })),
      ];
      // Positive controls: the captures hold what they should.
      if (!dump.includes(A.merchantId) || !/CREATE TABLE|charges /.test(dump)) problems.push('the database dump looks empty');
      if ((logs[0]!.match(/"request completed"/g) ?? []).length < 100) problems.push('the server log holds too few request lines');
      if (!http.recorded.some((r) => r.allowed.size > 0 && [...r.allowed].some((s) => r.text.includes(s))))
        problems.push('the scan never saw a secret in the answer that creates it (scan broken)');
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
      figures.leaks += hits.length;

      figures.requests = http.requests;
      figures.unexpected5xx = http.fivexx.length;
      if (http.fivexx.length > 0) problems.push(`5xx answers: ${http.fivexx.slice(0, 3).join('; ')}`);
      Object.assign(details, {
        crossMerchantLeaks: leaks.slice(0, 20),
        scanHits: hits.slice(0, 20),
        aObjects: Object.fromEntries(Object.entries(oA.ids).map(([k, v]) => [k, v.length])),
        routes: routes.length,
        forgedTokens: forged.length,
        forgedRequests,
        wrongForgedAnswers: wrongAnswers.length,
        catalogueRows,
        catalogueMismatches: catalogueMismatches.slice(0, 10),
        scanned: {
          needles: needles.reduce((s, x) => s + x.values.length, 0),
          cvcs: cvcs.length,
          logBytes: logs.reduce((s, l) => s + l.length, 0),
          dumpBytes: dump.length,
          answers: http.recorded.length,
          deliveries: receiver.received.length,
        },
        logFiles,
        dumpFile,
      });
    } finally {
      await cleanup.run();
    }
    return { name: 'security', figures, details, problems };
  },
};
