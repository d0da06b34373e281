// What the fake acquirer's tests share: a small client that speaks to it as Purse will (form
// bodies, Bearer key, Idempotency-Key), a webhook receiver on 127.0.0.1, and a Stripe-Signature
// check written from Stripe's "verify manually" steps.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeAcquirer, StripeEvent } from '../acquirer.ts';
import { readBody } from '../http.ts';
import { encodeForm } from './form.ts';

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

export async function call(
  fake: FakeAcquirer,
  method: 'GET' | 'POST',
  path: string,
  params: Record<string, unknown> = {},
  options: { key?: string; secretKey?: string; authorization?: string | null; contentType?: string } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  const authorization = options.authorization === undefined ? `Bearer ${options.secretKey ?? fake.secretKey}` : options.authorization;
  if (authorization !== null) headers.authorization = authorization;
  if (options.key) headers['idempotency-key'] = options.key;
  const form = encodeForm(params);
  let url = `${fake.url}${path}`;
  let body: string | undefined;
  if (method === 'GET') url += form === '' ? '' : `?${form}`;
  else {
    headers['content-type'] = options.contentType ?? 'application/x-www-form-urlencoded';
    body = form;
  }
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? null : JSON.parse(text) };
}

export const post = (fake: FakeAcquirer, path: string, params: Record<string, unknown>, options?: Parameters<typeof call>[4]) =>
  call(fake, 'POST', path, params, options);
export const get = (fake: FakeAcquirer, path: string, params?: Record<string, unknown>, options?: Parameters<typeof call>[4]) =>
  call(fake, 'GET', path, params, options);

export const cardData = (number: string, exp: { month?: string; year?: string; cvc?: string } = {}) => ({
  type: 'card',
  card: { number, exp_month: exp.month ?? '12', exp_year: exp.year ?? '2034', cvc: exp.cvc ?? '123' },
});

let counter = 0;
export const purseId = () => `pay_test_${Date.now()}_${++counter}`;

/** The create request Purse sends (§20), with overrides. */
export function intentParams(number: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount: 1050,
    currency: 'kes',
    confirm: true,
    capture_method: 'automatic',
    return_url: 'https://purse.test/v1/card-returns/pay_1?t=abc',
    payment_method_data: cardData(number),
    metadata: { purse_payment_id: purseId() },
    ...overrides,
  };
}

export const createIntent = (fake: FakeAcquirer, number: string, overrides?: Record<string, unknown>, key?: string) =>
  post(fake, '/v1/payment_intents', intentParams(number, overrides), { key });

export interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
  event: StripeEvent;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** What the receiver answers (e.g. 500 to make the fake retry). */
  status: number;
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    received: [],
    status: 200,
    async waitFor(count, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (receiver.received.length < count) {
        if (Date.now() > deadline) throw new Error(`received ${receiver.received.length} webhooks, expected ${count}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return receiver.received;
    },
    close: async () => {},
  };
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    receiver.received.push({ headers: req.headers, raw, event: JSON.parse(raw) });
    res.writeHead(receiver.status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

/**
 * Stripe's manual verification: split the header on ',' then '=', take `t` and every `v1`,
 * HMAC-SHA256 `${t}.${raw body}` with the endpoint secret, compare in constant time with each v1,
 * and refuse a timestamp further than `toleranceS` from now.
 */
export function verifyStripeSignature(raw: string, header: string | undefined, secret: string, toleranceS = 300, nowS = Date.now() / 1000) {
  if (!header) return false;
  const pairs = header.split(',').map((part) => part.split('=') as [string, string]);
  const t = pairs.find(([k]) => k === 't')?.[1];
  const v1 = pairs.filter(([k]) => k === 'v1').map(([, v]) => v);
  if (!t || !/^\d+$/.test(t) || v1.length === 0 || Math.abs(nowS - Number(t)) > toleranceS) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${raw}`).digest('hex'));
  return v1.some((sig) => sig.length === expected.length && timingSafeEqual(Buffer.from(sig), expected));
}

/** Follows the challenge page as a browser would: GET it, then post the chosen button's form. */
export async function answerChallenge(url: string, button: 'Complete' | 'Fail'): Promise<Response> {
  const page = await (await fetch(url)).text();
  const action = /<form method="post" action="([^"]+)">/.exec(page)?.[1];
  const field = new RegExp(`name="([^"]+)" value="([^"]+)">${button}<`).exec(page);
  if (!action || !field) throw new Error(`no ${button} button on the challenge page`);
  return fetch(new URL(action, url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `${encodeURIComponent(field[1] as string)}=${encodeURIComponent(field[2] as string)}`,
    redirect: 'manual',
  });
}
