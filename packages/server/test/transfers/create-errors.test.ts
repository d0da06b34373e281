// POST /v1/transfers: the bad-input catalogue (each field mutated alone), docs/api.md §3, §7,
// §13. The rows payments share with every create that takes reference, amount, currency,
// description and metadata, plus the two wallet ids. Every refused request stores nothing,
// moves nothing and leaves its reference free.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '../../src/shared/ids.ts';
import { buildTestApp, createTestMerchant, type TestApp, type TestMerchant } from '../helpers/app.ts';
import {
  assertApiError,
  chargeRows,
  defineNo5xxTest,
  defineRowTests,
  edit,
  errorWithoutRequestId,
  expect400,
  fieldRow,
  REMOVE,
  type Row,
  type RowContext,
} from '../helpers/bad-input.ts';
import { assertLedgerHealthy, cardMethod, createWallet, fundedWallet, get, post, uniqueRef } from '../helpers/factories.ts';

/** KES capped at 1000 (the amount rows); no worker: nothing here is pending. */
const STRICT_ENV = { PURSE_ALLOW_PRIVATE_WEBHOOK_URLS: 'false', PURSE_MAX_AMOUNTS: 'KES=1000', PURSE_WORKER: 'false' };

let app: TestApp;
let m: TestMerchant;
let other: TestMerchant;
const fx: Record<string, string> = {};

before(async () => {
  app = await buildTestApp(null, { env: STRICT_ENV });
  m = await createTestMerchant(app, 'Transfers merchant');
  other = await createTestMerchant(app, 'Other merchant');
  fx.source = await fundedWallet(app, m, '900.00');
  fx.destination = await createWallet(app, m, 'KES');
  fx.ugxWallet = await createWallet(app, m, 'UGX');
  fx.foreignWallet = await fundedWallet(app, other, '50.00');
});

after(async () => {
  await app.close();
  await app.deps.close();
});

const transferBody = (overrides: Record<string, unknown> = {}) => ({
  reference: uniqueRef('tr'),
  amount: '0.01',
  currency: 'KES',
  source_wallet_id: fx.source,
  destination_wallet_id: fx.destination,
  ...overrides,
});

const ctx = (): RowContext => ({
  app,
  merchant: m,
  url: '/v1/transfers',
  valid: (ref) => transferBody({ reference: ref }),
  fx,
  listsByReference: true,
});

/** The shared rows, without those about a means of payment or a callback_url (transfers have neither). */
const sharedRows = chargeRows('payment_method').filter((r) => r.param === null || !/^(payment_method|callback_url)/.test(r.param));

const walletRows = (field: 'source_wallet_id' | 'destination_wallet_id'): Row[] => {
  const missingWallet = { status: 400, code: 'resource_missing', param: field };
  const set = (value: (c: RowContext) => unknown) => (ref: string, c: RowContext) => edit(c.valid(ref), field, value(c));
  return [
    fieldRow(`${field} missing`, field, REMOVE, expect400.missing(field)),
    fieldRow(`${field} a JSON number`, field, 12, expect400.invalid(field)),
    fieldRow(`${field} null`, field, null, expect400.invalid(field)),
    fieldRow(`${field} an object`, field, { id: 'wal' }, expect400.invalid(field)),
    fieldRow(`${field} of 65 characters`, field, 'w'.repeat(65), expect400.invalid(field)),
    { name: `${field} empty`, ...missingWallet, request: set(() => '') },
    { name: `${field} malformed ("wal_123")`, ...missingWallet, request: set(() => 'wal_123') },
    { name: `${field} of a payment (pay_…)`, ...missingWallet, request: set(() => newId('payment')) },
    {
      name: `${field} in upper case`,
      ...missingWallet,
      request: set((c) => c.fx[field === 'source_wallet_id' ? 'source' : 'destination']!.toUpperCase()),
    },
    { name: `${field} well-formed but unknown`, ...missingWallet, request: set(() => newId('wallet')) },
    { name: `${field} of another merchant's wallet`, ...missingWallet, request: set((c) => c.fx.foreignWallet) },
    { name: `${field} a UGX wallet for a KES transfer`, ...expect400.invalid(field), request: set((c) => c.fx.ugxWallet) },
  ];
};

const transferRows: Row[] = [
  ...walletRows('source_wallet_id'),
  ...walletRows('destination_wallet_id'),
  {
    name: 'destination_wallet_id the same as source_wallet_id',
    ...expect400.invalid('destination_wallet_id'),
    request: (ref, c) => edit(c.valid(ref), 'destination_wallet_id', c.fx.source),
  },
  {
    name: 'a UGX transfer between KES wallets',
    ...expect400.invalid('source_wallet_id'),
    request: (ref, c) => ({ ...c.valid(ref), currency: 'UGX', amount: '100' }),
  },
  fieldRow('payment_method (payments only)', 'payment_method', cardMethod(), expect400.unknown('payment_method')),
  fieldRow('wallet_id (top-ups only)', 'wallet_id', 'wal_01jd6x8v1ffq8v2k3m4n5p6q7r', expect400.unknown('wallet_id')),
  fieldRow('callback_url (not on transfers)', 'callback_url', 'https://shop.example/hooks', expect400.unknown('callback_url')),
  fieldRow('customer (payments only)', 'customer', { name: 'A' }, expect400.unknown('customer')),
  fieldRow('read-only field failure', 'failure', null, expect400.unknown('failure')),
];
const rows = [...sharedRows, ...transferRows];

describe('bad input, one field at a time: exact error, nothing stored, reference still free', () => {
  defineRowTests(rows, ctx);
});

describe('wallets a transfer cannot name', () => {
  for (const field of ['source_wallet_id', 'destination_wallet_id'] as const) {
    test(`${field}: unknown, malformed and another merchant's wallet answer identically`, async () => {
      const answers = [];
      for (const id of [newId('wallet'), fx.foreignWallet!, 'wal_123']) {
        const res = await post(app, m, '/v1/transfers', transferBody({ [field]: id }));
        assertApiError(res, { status: 400, code: 'resource_missing', param: field }, id);
        answers.push(errorWithoutRequestId(res));
      }
      assert.deepEqual(answers[1], answers[0], "another merchant's wallet reads exactly like an unknown one");
      assert.deepEqual(answers[2], answers[0]);
      assert.equal((await get(app, other, `/v1/wallets/${fx.foreignWallet}`)).json().balance, '50.00');
    });
  }
});

describe('no 5xx', () => {
  defineNo5xxTest(rows, ctx, 100);

  test('the ledger is healthy after everything above', async () => {
    await assertLedgerHealthy(app);
  });
});
