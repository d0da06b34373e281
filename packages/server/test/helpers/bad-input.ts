// Table-driven bad-input rows (each field of each body mutated alone, and the read and list cases):
// the assertions every row shares, and the rows payments and top-ups have in common.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import type { TestApp, TestMerchant } from './app.ts';
import { CARD_OK, get, post, uniqueRef } from './factories.ts';

/** What app.inject() resolves to, reduced to what the assertions read. */
export interface Reply {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  json(): any;
}

export interface ExpectedError {
  status: number;
  code: string;
  /** The dotted path; null when the error names no field (bad JSON, 413, 415, 404 …). */
  param: string | null;
}

/** The docs/api.md §3 error object. */
export interface ErrorObject {
  type: string;
  code: string;
  message: string;
  request_id: string;
  param?: string;
  existing_id?: string;
}

const TYPE_OF_STATUS: Record<number, string> = { 401: 'authentication_error', 429: 'rate_limit_error', 500: 'api_error', 503: 'api_error' };

/** The docs/api.md §3 envelope, exactly: status, type, code, param (or none), message, request_id = Request-Id. */
export function assertApiError(res: Reply, expected: ExpectedError, label = ''): ErrorObject {
  const where = `${label ? `${label}: ` : ''}${res.statusCode} ${res.body.slice(0, 400)}`;
  assert.equal(res.statusCode, expected.status, where);
  assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8$/i, where);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ['error'], where);
  const error = body.error as ErrorObject;
  assert.equal(error.type, TYPE_OF_STATUS[expected.status] ?? 'invalid_request_error', where);
  assert.equal(error.code, expected.code, where);
  if (expected.param === null) assert.equal(error.param, undefined, `no param expected: ${where}`);
  else assert.equal(error.param, expected.param, where);
  assert.equal(typeof error.message, 'string', where);
  assert.ok(error.message.length > 0 && error.message.length < 600, where);
  assert.doesNotMatch(error.message, /\n\s+at |select |insert |postgres|pglite/i, `no stack or SQL in the message: ${where}`);
  assert.match(error.request_id, /^req_[0-9a-z]{26}$/, where);
  assert.equal(error.request_id, res.headers['request-id'], where);
  return error;
}

/** The error object without its request_id: what must be identical for "unknown" and "another merchant's". */
export function errorWithoutRequestId(res: Reply): Record<string, string> {
  const { request_id: _requestId, ...rest } = res.json().error as Record<string, string>;
  return rest;
}

/** Rows a merchant owns, per table: "nothing was stored" means these do not move. */
export async function storedCounts(app: TestApp, merchantId: string): Promise<Record<string, number>> {
  const result = await sql<Record<string, number>>`
    select (select count(*) from charges where merchant_id = ${merchantId})::int as charges,
           (select count(*) from wallets where merchant_id = ${merchantId})::int as wallets,
           (select count(*) from events where merchant_id = ${merchantId})::int as events,
           (select count(*) from transfers where merchant_id = ${merchantId})::int as transfers,
           (select count(*) from outflows where merchant_id = ${merchantId})::int as outflows,
           (select coalesce(sum(debited), 0) from merchant_balances where merchant_id = ${merchantId})::int as funds_debited,
           (select coalesce(sum(amount_refunded), 0) from charges where merchant_id = ${merchantId})::int as amount_refunded,
           (select count(*) from ledger_transactions where merchant_id = ${merchantId})::int as ledger_transactions`.execute(
    app.deps.db.db,
  );
  return Object.fromEntries(Object.entries(result.rows[0]!).map(([k, v]) => [k, Number(v)]));
}

/** A request body sent as raw bytes, with the content type given (or none). */
export interface RawBody {
  raw: string;
  contentType?: string;
}

/** `contentType` null: the request carries no Content-Type header. */
export const raw = (payload: string, contentType: string | null = 'application/json'): RawBody =>
  contentType === null ? { raw: payload } : { raw: payload, contentType };

const isRaw = (body: unknown): body is RawBody =>
  typeof body === 'object' && body !== null && 'raw' in body && typeof (body as RawBody).raw === 'string';

export async function send(app: TestApp, merchant: TestMerchant, url: string, body: unknown): Promise<Reply> {
  if (!isRaw(body)) return post(app, merchant, url, body);
  const headers: Record<string, string> = { ...merchant.auth };
  if (body.contentType !== undefined) headers['content-type'] = body.contentType;
  return app.inject({ method: 'POST', url, headers, payload: body.raw });
}

/** A symbol for "remove this field" in edit(). */
export const REMOVE = Symbol('remove');

/** A deep copy of `body` with the field at the dotted `path` set to `value` (or removed). */
export function edit<T>(body: T, path: string, value: unknown): T {
  const copy = structuredClone(body) as Record<string, unknown>;
  const parts = path.split('.');
  let node = copy;
  for (const part of parts.slice(0, -1)) node = node[part] as Record<string, unknown>;
  const last = parts[parts.length - 1]!;
  if (value === REMOVE) delete node[last];
  else node[last] = value;
  return copy as T;
}

export interface RowContext {
  app: TestApp;
  merchant: TestMerchant;
  /** POST path of the resource: /v1/payments, /v1/topups, /v1/wallets. */
  url: string;
  /** A valid request with this reference (201 when sent). */
  valid(ref: string): Record<string, unknown>;
  /** Fixture ids (wallets of this merchant, another merchant's …). */
  fx: Record<string, string>;
  /** Whether the list of this resource filters by `reference` (wallets do not). */
  listsByReference: boolean;
}

export interface Row extends ExpectedError {
  name: string;
  /** The request, from a fresh reference no one has used: a body object, or raw(...). */
  request(ref: string, ctx: RowContext): unknown;
  /** False when the row sends no usable `ref` (e.g. the reference itself is the bad field). */
  refStaysFree?: boolean;
}

/** The row's title: the expected answer is part of it, so a failing run reads as a table. */
export const rowTitle = (row: Row) => `${row.name} → ${row.status} ${row.code}${row.param === null ? '' : ` (${row.param})`}`;

/**
 * One test per row: the exact error, nothing stored (row counts and the list filtered by
 * reference), and the reference still free afterwards (a valid request with it gets 201).
 */
export function defineRowTests(rows: Row[], context: () => RowContext): void {
  for (const row of rows) {
    test(rowTitle(row), async () => {
      const ctx = context();
      const ref = uniqueRef('bad');
      const before = await storedCounts(ctx.app, ctx.merchant.merchantId);
      const res = await send(ctx.app, ctx.merchant, ctx.url, row.request(ref, ctx));
      assertApiError(res, row);
      assert.deepEqual(await storedCounts(ctx.app, ctx.merchant.merchantId), before, 'a refused request stores nothing');
      if (row.refStaysFree === false) return;
      if (ctx.listsByReference) {
        const list = await get(ctx.app, ctx.merchant, `${ctx.url}?reference=${encodeURIComponent(ref)}`);
        assert.equal(list.statusCode, 200, list.body);
        assert.deepEqual(list.json().data, [], 'nothing listed under the refused reference');
      }
      const ok = await post(ctx.app, ctx.merchant, ctx.url, ctx.valid(ref));
      assert.equal(ok.statusCode, 201, `the reference stays free: ${ok.body}`);
      assert.equal(ok.json().reference, ref);
    });
  }
}

/** One test that sends every row again and checks that none of them is a 5xx. */
export function defineNo5xxTest(rows: Row[], context: () => RowContext, minimumRows: number): void {
  test(`no input of the ${rows.length} rows produces a 5xx`, async () => {
    assert.ok(rows.length >= minimumRows, `expected at least ${minimumRows} rows, have ${rows.length}`);
    const ctx = context();
    const fivexx: string[] = [];
    for (const row of rows) {
      const res = await send(ctx.app, ctx.merchant, ctx.url, row.request(uniqueRef('no5xx'), ctx));
      if (res.statusCode >= 500) fivexx.push(`${row.name}: ${res.statusCode} ${res.body}`);
    }
    assert.deepEqual(fivexx, []);
  });
}

const invalid = (param: string) => ({ status: 400, code: 'parameter_invalid', param });
const missing = (param: string) => ({ status: 400, code: 'parameter_missing', param });
const unknown = (param: string) => ({ status: 400, code: 'parameter_unknown', param });
export const expect400 = { invalid, missing, unknown };

/** A row that changes one field of the valid request (or removes it with REMOVE). */
export function fieldRow(
  name: string,
  path: string,
  value: unknown,
  expected: ExpectedError,
  options: { refStaysFree?: boolean } = {},
): Row {
  return { name, ...expected, ...options, request: (ref, ctx) => edit(ctx.valid(ref), path, value) };
}

function nested(levels: number): unknown {
  let value: unknown = 'deep';
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

/** A JSON text of exactly `bytes` bytes: the valid request padded with metadata values. */
export function bodyOfSize(body: Record<string, unknown>, bytes: number): string {
  const metadata: Record<string, string> = {};
  const withMeta = () => JSON.stringify({ ...body, metadata });
  let i = 0;
  while (Buffer.byteLength(withMeta()) < bytes) {
    const key = `k${i++}`;
    metadata[key] = '';
    const room = bytes - Buffer.byteLength(withMeta());
    metadata[key] = 'x'.repeat(Math.max(0, Math.min(500, room)));
  }
  const text = withMeta();
  assert.equal(Buffer.byteLength(text), bytes);
  return text;
}

export const KIB_16 = 16 * 1024;

/**
 * The rows payments and top-ups share: reference, amount, currency, the mobile-money and card
 * fields of `method` (payment_method or source), callback_url, metadata, read-only fields and
 * the body itself. The context's app must refuse private callback URLs and cap KES at 1000.
 */
export function chargeRows(method: 'payment_method' | 'source'): Row[] {
  const card = `${method}.card`;
  const mm = `${method}.mobile_money`;
  const mobile = (phone: unknown) => (ref: string, ctx: RowContext) =>
    edit(ctx.valid(ref), method, { type: 'mobile_money', mobile_money: { phone_number: phone } });
  const now = new Date();
  const rows: Row[] = [
    // reference
    fieldRow('reference missing', 'reference', REMOVE, missing('reference'), { refStaysFree: false }),
    fieldRow('reference empty', 'reference', '', invalid('reference'), { refStaysFree: false }),
    fieldRow('reference of 129 characters', 'reference', 'r'.repeat(129), invalid('reference'), { refStaysFree: false }),
    fieldRow('reference a number', 'reference', 1001, invalid('reference'), { refStaysFree: false }),
    fieldRow('reference null', 'reference', null, invalid('reference'), { refStaysFree: false }),
    fieldRow('reference an object', 'reference', { id: 'x' }, invalid('reference'), { refStaysFree: false }),
    ...[
      ['NUL', '\u0000'],
      ['BEL', '\u0007'],
      ['ESC', '\u001b'],
      ['a newline', '\n'],
      ['a tab', '\t'],
      ['DEL', '\u007f'],
      ['a C1 control (NEL)', '\u0085'],
    ].map(
      ([label, char]): Row => ({
        name: `reference with ${label}`,
        ...invalid('reference'),
        // The clean reference stays free: the control character was not stripped into a stored one.
        request: (ref, ctx) => edit(ctx.valid(ref), 'reference', `${ref}${char}x`),
      }),
    ),
    {
      name: 'reference with a leading space',
      ...invalid('reference'),
      request: (ref, ctx) => edit(ctx.valid(ref), 'reference', ` ${ref}`),
    },
    {
      name: 'reference with a trailing space',
      ...invalid('reference'),
      request: (ref, ctx) => edit(ctx.valid(ref), 'reference', `${ref} `),
    },
    {
      name: 'reference with a trailing no-break space',
      ...invalid('reference'),
      request: (ref, ctx) => edit(ctx.valid(ref), 'reference', `${ref}\u00a0`),
    },

    // amount
    fieldRow('amount missing', 'amount', REMOVE, missing('amount')),
    ...(
      [
        ['amount "0"', '0'],
        ['amount "0.00"', '0.00'],
        ['amount "-5"', '-5'],
        ['amount "+5"', '+5'],
        ['amount "1e3"', '1e3'],
        ['amount " 10"', ' 10'],
        ['amount "10 "', '10 '],
        ['amount "10."', '10.'],
        ['amount ".5"', '.5'],
        ['amount "010"', '010'],
        ['amount "10,50"', '10,50'],
        ['amount empty', ''],
        ['amount "NaN"', 'NaN'],
        ['amount "Infinity"', 'Infinity'],
        ['amount in full-width digits "１０"', '１０'],
        ['amount in Arabic-Indic digits "١٠"', '١٠'],
        ['amount a JSON number 1500', 1500],
        ['amount a JSON number 10.5', 10.5],
        ['amount null', null],
        ['amount "10.123" KES (3 decimals, KES has 2)', '10.123'],
        ['amount "1000.01" KES, above PURSE_MAX_AMOUNTS KES=1000', '1000.01'],
        ['amount of 25 digits', '1'.repeat(25)],
        ['amount of 33 characters', '1'.repeat(33)],
      ] as const
    ).map(([name, value]) => fieldRow(name, 'amount', value, invalid('amount'))),
    {
      name: 'amount "10.5" UGX (UGX has no minor unit)',
      ...invalid('amount'),
      request: (ref, ctx) => ({ ...ctx.valid(ref), currency: 'UGX', amount: '10.5' }),
    },
    {
      name: 'amount "100000001" UGX, above the default maximum of 100000000 major units',
      ...invalid('amount'),
      request: (ref, ctx) => ({ ...ctx.valid(ref), currency: 'UGX', amount: '100000001' }),
    },

    // currency
    fieldRow('currency missing', 'currency', REMOVE, missing('currency')),
    fieldRow('currency lower case "kes"', 'currency', 'kes', invalid('currency')),
    fieldRow('currency of 4 letters "KESS"', 'currency', 'KESS', invalid('currency')),
    fieldRow('currency of 2 letters "KE"', 'currency', 'KE', invalid('currency')),
    fieldRow('currency a number', 'currency', 404, invalid('currency')),
    fieldRow('currency unknown but well-formed "XYZ"', 'currency', 'XYZ', {
      status: 400,
      code: 'currency_not_supported',
      param: 'currency',
    }),

    // the means of payment
    fieldRow(`${method} missing`, method, REMOVE, missing(method)),
    fieldRow(`${method} a string`, method, 'card', invalid(method)),
    fieldRow(`${method} null`, method, null, invalid(method)),
    fieldRow(`${method}.type missing`, method, { card: CARD_OK }, missing(`${method}.type`)),
    fieldRow(`${method}.type unknown, alone`, method, { type: 'bank_transfer' }, invalid(`${method}.type`)),
    fieldRow(
      `${method}.type unknown, with its own object`,
      method,
      { type: 'bank_transfer', bank_transfer: { iban: 'x' } },
      unknown(`${method}.bank_transfer`),
    ),
    fieldRow(`${method}.type unknown, with a card object`, method, { type: 'bank_transfer', card: CARD_OK }, invalid(`${method}.type`)),
    fieldRow(`${method}.type in upper case`, method, { type: 'CARD', card: CARD_OK }, invalid(`${method}.type`)),
    fieldRow(
      `${method}: type card with a mobile_money object`,
      method,
      { type: 'card', mobile_money: { phone_number: '+254712345000' } },
      missing(card),
    ),
    fieldRow(
      `${method}: type card with both a card and a mobile_money object`,
      method,
      { type: 'card', card: CARD_OK, mobile_money: { phone_number: '+254712345000' } },
      invalid(mm),
    ),
    fieldRow(`${method}: type mobile_money without its object`, method, { type: 'mobile_money' }, missing(mm)),
    fieldRow(`${method}: type card without its object`, method, { type: 'card' }, missing(card)),
    fieldRow(`${method}: unknown field beside type`, method, { type: 'card', card: CARD_OK, save: true }, unknown(`${method}.save`)),

    // phone
    { name: 'phone not E.164 (national 0712345678)', ...invalid(`${mm}.phone_number`), request: mobile('0712345678') },
    { name: 'phone without the plus', ...invalid(`${mm}.phone_number`), request: mobile('254712345678') },
    { name: 'phone with letters', ...invalid(`${mm}.phone_number`), request: mobile('+2547123abc78') },
    { name: 'phone with spaces', ...invalid(`${mm}.phone_number`), request: mobile('+254 712 345 678') },
    { name: 'phone too long (17 characters)', ...invalid(`${mm}.phone_number`), request: mobile('+2547123456789012') },
    { name: 'phone too short', ...invalid(`${mm}.phone_number`), request: mobile('+25471') },
    { name: 'phone a JSON number', ...invalid(`${mm}.phone_number`), request: mobile(254712345678) },
    { name: 'phone empty', ...invalid(`${mm}.phone_number`), request: mobile('') },
    {
      name: 'phone missing',
      ...missing(`${mm}.phone_number`),
      request: (ref, ctx) => edit(ctx.valid(ref), method, { type: 'mobile_money', mobile_money: {} }),
    },
    {
      name: 'mobile_money.provider empty',
      ...invalid(`${mm}.provider`),
      request: (ref, ctx) =>
        edit(ctx.valid(ref), method, { type: 'mobile_money', mobile_money: { phone_number: '+254712345000', provider: '' } }),
    },
    ...['airtel', 'MTN', 'sandbox'].map((provider) => ({
      name: `mobile_money.provider ${provider} (only mtn and mpesa)`,
      ...invalid(`${mm}.provider`),
      request: (ref: string, ctx: RowContext) =>
        edit(ctx.valid(ref), method, { type: 'mobile_money', mobile_money: { phone_number: '+254712345000', provider } }),
    })),

    // card
    ...(
      [
        ['card number failing Luhn', 'number', '4242424242424241'],
        ['card number of 11 digits', 'number', '42424242428'],
        ['card number of 20 digits', 'number', '42424242424242424242'],
        ['card number with dashes', 'number', '4242-4242-4242-4242'],
        ['card number with spaces', 'number', '4242 4242 4242 4242'],
        ['card number a JSON number', 'number', 4242424242424242],
        ['card number empty', 'number', ''],
        ['card exp_month 0', 'exp_month', 0],
        ['card exp_month 13', 'exp_month', 13],
        ['card exp_month a string "12"', 'exp_month', '12'],
        ['card exp_month 1.5', 'exp_month', 1.5],
        ['card exp_year in the past', 'exp_year', now.getUTCFullYear() - 1],
        ['card exp_year of two digits', 'exp_year', 35],
        ['card exp_year a string "2035"', 'exp_year', '2035'],
        ['card cvc of 2 digits', 'cvc', '12'],
        ['card cvc of 5 digits', 'cvc', '12345'],
        ['card cvc with letters', 'cvc', '12a'],
        ['card cvc a JSON number', 'cvc', 123],
        ['card holder_name of 101 characters', 'holder_name', 'h'.repeat(101)],
      ] as const
    ).map(
      ([name, field, value]): Row => ({
        name,
        ...invalid(`${card}.${field}`),
        request: (ref, ctx) => edit(ctx.valid(ref), method, { type: 'card', card: { ...CARD_OK, [field]: value } }),
      }),
    ),
    ...(['number', 'exp_month', 'exp_year', 'cvc'] as const).map(
      (field): Row => ({
        name: `card ${field} missing`,
        ...missing(`${card}.${field}`),
        request: (ref, ctx) => edit(ctx.valid(ref), `${method}.card.${field}`, REMOVE),
      }),
    ),
    {
      name: 'card with an unknown field (pin)',
      ...unknown(`${card}.pin`),
      request: (ref, ctx) => edit(ctx.valid(ref), method, { type: 'card', card: { ...CARD_OK, pin: '0000' } }),
    },

    // callback_url (the app refuses private addresses: PURSE_ALLOW_PRIVATE_WEBHOOK_URLS=false)
    ...[
      'http://127.0.0.1/x',
      'http://127.1/x',
      'http://2130706433/x',
      'http://localhost/x',
      'http://LOCALHOST:8080/x',
      'http://api.localhost/x',
      'http://10.0.0.1/x',
      'http://10.255.255.255/x',
      'http://192.168.1.1/x',
      'http://172.16.0.1/x',
      'http://172.31.255.254/x',
      'http://169.254.169.254/latest/meta-data/',
      'http://100.64.0.1/x',
      'http://0.0.0.0/x',
      'http://[::1]/x',
      'http://[::ffff:127.0.0.1]/x',
      'http://[fe80::1]/x',
      'http://[fd00::1]/x',
      'file:///etc/passwd',
      'ftp://example.com/x',
      'javascript:alert(1)',
      'https://u:p@example.com/',
      'https://user@example.com/',
      '/relative/path',
      'not a url',
      '',
      `https://example.com/${'a'.repeat(3000 - 'https://example.com/'.length)}`,
    ].map((url) =>
      fieldRow(
        `callback_url ${url.length > 60 ? `of ${url.length} characters` : JSON.stringify(url)}`,
        'callback_url',
        url,
        invalid('callback_url'),
      ),
    ),
    fieldRow('callback_url a JSON number', 'callback_url', 80, invalid('callback_url')),

    // metadata
    fieldRow(
      'metadata with 51 keys',
      'metadata',
      Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])),
      invalid('metadata'),
    ),
    fieldRow('metadata key of 41 characters', 'metadata', { ['k'.repeat(41)]: 'v' }, invalid(`metadata.${'k'.repeat(41)}`)),
    fieldRow('metadata empty key', 'metadata', { '': 'v' }, invalid('metadata.')),
    fieldRow('metadata value of 501 characters', 'metadata', { order_id: 'v'.repeat(501) }, invalid('metadata.order_id')),
    fieldRow('metadata nested object value', 'metadata', { order: { id: '1' } }, invalid('metadata.order')),
    fieldRow('metadata number value', 'metadata', { order_id: 1001 }, invalid('metadata.order_id')),
    fieldRow('metadata boolean value', 'metadata', { paid: true }, invalid('metadata.paid')),
    fieldRow('metadata null value', 'metadata', { order_id: null }, invalid('metadata.order_id')),
    fieldRow('metadata an array', 'metadata', ['a'], invalid('metadata')),
    fieldRow('metadata a string', 'metadata', 'order 1001', invalid('metadata')),
    fieldRow('metadata value with NUL', 'metadata', { order_id: 'a\u0000b' }, invalid('metadata.order_id')),
    fieldRow('description of 256 characters', 'description', 'd'.repeat(256), invalid('description')),
    fieldRow('description with ESC', 'description', 'a\u001b[31mred', invalid('description')),

    // read-only fields
    ...['id', 'object', 'status', 'merchant_id', 'livemode', 'created_at', 'failure', 'provider_reference', 'late_outcome'].map((field) =>
      fieldRow(`read-only field ${field}`, field, field === 'livemode' ? true : 'x', unknown(field)),
    ),
    fieldRow('unknown field', 'amount_minor', '10000', unknown('amount_minor')),

    // the body
    { name: 'body not JSON', status: 400, code: 'invalid_json', param: null, request: (ref) => raw(`{"reference":"${ref}","amount":`) },
    {
      name: 'body JSON with a trailing comma',
      status: 400,
      code: 'invalid_json',
      param: null,
      request: (ref) => raw(`{"reference":"${ref}",}`),
    },
    { name: 'body empty with content-type JSON', status: 400, code: 'invalid_json', param: null, request: () => raw('') },
    { name: 'body of white space', status: 400, code: 'invalid_json', param: null, request: () => raw('  \n') },
    { name: 'body []', status: 400, code: 'invalid_json', param: null, request: () => raw('[]') },
    { name: 'body null', status: 400, code: 'invalid_json', param: null, request: () => raw('null') },
    { name: 'body a JSON string', status: 400, code: 'invalid_json', param: null, request: () => raw('"reference"') },
    { name: 'body a JSON number', status: 400, code: 'invalid_json', param: null, request: () => raw('42') },
    {
      name: 'body of 16 KiB + 1 byte',
      status: 413,
      code: 'payload_too_large',
      param: null,
      request: (ref, ctx) => raw(bodyOfSize(ctx.valid(ref), KIB_16 + 1)),
    },
    {
      name: 'metadata nested 100 levels',
      ...invalid(['metadata', ...Array<string>(16).fill('a')].join('.')),
      request: (ref, ctx) => edit(ctx.valid(ref), 'metadata', nested(100)),
    },
    {
      name: 'a "__proto__" key at the top level',
      ...invalid('__proto__'),
      request: (ref, ctx) => raw(JSON.stringify(ctx.valid(ref)).replace(/^\{/, '{"__proto__":{"status":"succeeded"},')),
    },
    {
      name: 'a "__proto__" key in metadata',
      ...invalid('metadata.__proto__'),
      request: (ref, ctx) =>
        raw(JSON.stringify({ ...ctx.valid(ref), metadata: {} }).replace('"metadata":{}', '"metadata":{"__proto__":"x"}')),
    },
    {
      name: `a "__proto__" key in ${method}`,
      ...invalid(`${method}.__proto__`),
      request: (ref, ctx) => raw(JSON.stringify(ctx.valid(ref)).replace(`"${method}":{`, `"${method}":{"__proto__":{"type":"wallet"},`)),
    },
    {
      name: 'content-type text/plain',
      status: 415,
      code: 'unsupported_media_type',
      param: null,
      request: (ref, ctx) => raw(JSON.stringify(ctx.valid(ref)), 'text/plain'),
    },
    {
      name: 'content-type form-encoded',
      status: 415,
      code: 'unsupported_media_type',
      param: null,
      request: (ref) =>
        raw(new URLSearchParams({ reference: ref, amount: '100.00', currency: 'KES' }).toString(), 'application/x-www-form-urlencoded'),
    },
    {
      name: 'no content-type',
      status: 415,
      code: 'unsupported_media_type',
      param: null,
      request: (ref, ctx) => raw(JSON.stringify(ctx.valid(ref)), null),
    },
    {
      name: 'content-type multipart/form-data',
      status: 415,
      code: 'unsupported_media_type',
      param: null,
      request: (ref, ctx) => raw(JSON.stringify(ctx.valid(ref)), 'multipart/form-data; boundary=x'),
    },
  ];
  if (now.getUTCMonth() > 0) {
    // Last month of this year (not possible in January).
    rows.push({
      name: 'card expired last month',
      ...invalid(`${card}.exp_month`),
      request: (ref, ctx) =>
        edit(ctx.valid(ref), method, { type: 'card', card: { ...CARD_OK, exp_year: now.getUTCFullYear(), exp_month: now.getUTCMonth() } }),
    });
  }
  return rows;
}
