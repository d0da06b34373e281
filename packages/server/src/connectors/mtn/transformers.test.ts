import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FailureCode } from '../../shared/failures.ts';
import { callbackTokenOf } from '../callback-token.ts';
import type { CallbackHint, ProviderStatusOutcome } from '../connector.ts';
import { hintOf, type MtnStatusBody, msisdnOf, mtnKeys, outcomeOfStatus, PENDING_CHECK_MS, referenceIdOf } from './transformers.ts';

const REF = '0b9a1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d';

test('an MTN status body → an outcome: reasons mapped, unknown states pending, unknown reasons the provider error', () => {
  const failed = (failureCode: FailureCode, providerReference = 'ft_1'): ProviderStatusOutcome => ({
    status: 'failed',
    providerReference,
    failureCode,
  });
  const table: [string, MtnStatusBody, ProviderStatusOutcome][] = [
    ['successful', { status: 'SUCCESSFUL', financialTransactionId: 'ft_1' }, { status: 'succeeded', providerReference: 'ft_1' }],
    [
      'a numeric transaction id (as the documented example)',
      { status: 'SUCCESSFUL', financialTransactionId: 23503452 },
      { status: 'succeeded', providerReference: '23503452' },
    ],
    ['successful without a transaction id', { status: 'SUCCESSFUL' }, { status: 'succeeded', providerReference: REF }],
    ['pending', { status: 'PENDING' }, { status: 'pending', providerReference: REF, checkAfterMs: PENDING_CHECK_MS }],
    ['an unknown status', { status: 'ONGOING' }, { status: 'pending', providerReference: REF, checkAfterMs: PENDING_CHECK_MS }],
    ['no status at all', {}, { status: 'pending', providerReference: REF, checkAfterMs: PENDING_CHECK_MS }],
    ['PAYER_NOT_FOUND', { status: 'FAILED', financialTransactionId: 'ft_1', reason: 'PAYER_NOT_FOUND' }, failed('payer_not_found')],
    ['PAYEE_NOT_FOUND', { status: 'FAILED', financialTransactionId: 'ft_1', reason: 'PAYEE_NOT_FOUND' }, failed('payee_not_found')],
    ['NOT_ENOUGH_FUNDS', { status: 'FAILED', financialTransactionId: 'ft_1', reason: 'NOT_ENOUGH_FUNDS' }, failed('insufficient_funds')],
    ['PAYER_LIMIT_REACHED', { status: 'FAILED', financialTransactionId: 'ft_1', reason: 'PAYER_LIMIT_REACHED' }, failed('limit_exceeded')],
    ['APPROVAL_REJECTED', { status: 'FAILED', financialTransactionId: 'ft_1', reason: 'APPROVAL_REJECTED' }, failed('payer_declined')],
    ['EXPIRED', { status: 'FAILED', financialTransactionId: 'ft_1', reason: 'EXPIRED' }, failed('expired')],
    [
      'INTERNAL_PROCESSING_ERROR',
      { status: 'FAILED', financialTransactionId: 'ft_1', reason: 'INTERNAL_PROCESSING_ERROR' },
      failed('provider_error'),
    ],
    [
      'a reason as {code, message}',
      { status: 'FAILED', reason: { code: 'NOT_ENOUGH_FUNDS', message: 'x' } },
      failed('insufficient_funds', REF),
    ],
    ['an unknown reason', { status: 'FAILED', reason: 'COSMIC_RAYS' }, failed('provider_error', REF)],
    ['a failure without a reason', { status: 'FAILED' }, failed('provider_error', REF)],
    ['a reason named like an Object method', { status: 'FAILED', reason: 'toString' }, failed('provider_error', REF)],
  ];
  for (const [name, body, expected] of table) assert.deepEqual(outcomeOfStatus(body, REF), expected, name);
});

test('a callback body → the hint it carries (externalId is the Purse id)', () => {
  const table: [string, MtnStatusBody, CallbackHint | null][] = [
    [
      'successful',
      { externalId: 'pay_1', status: 'SUCCESSFUL', financialTransactionId: 'ft_9' },
      { idempotencyKey: 'pay_1', providerReference: 'ft_9', claimed: 'succeeded' },
    ],
    [
      'failed',
      { externalId: 'po_1', status: 'FAILED', reason: 'EXPIRED' },
      { idempotencyKey: 'po_1', providerReference: null, claimed: 'failed' },
    ],
    [
      'an unknown status',
      { externalId: 'pay_1', status: 'WEIRD' },
      { idempotencyKey: 'pay_1', providerReference: null, claimed: 'pending' },
    ],
    ['no externalId', { status: 'SUCCESSFUL' }, null],
    ['an empty externalId', { externalId: '', status: 'SUCCESSFUL' }, null],
  ];
  for (const [name, body, expected] of table) assert.deepEqual(hintOf(body), expected, name);
});

test('X-Reference-Id: stable for a Purse id, shaped as a UUID v4, different per id and per service key', () => {
  const keys = mtnKeys(Buffer.alloc(32, 7));
  const a = referenceIdOf(keys.reference, 'pay_abc');
  assert.equal(referenceIdOf(keys.reference, 'pay_abc'), a, 'stable');
  assert.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const many = new Set(Array.from({ length: 1000 }, (_, i) => referenceIdOf(keys.reference, `pay_${i}`)));
  assert.equal(many.size, 1000, 'different per id');
  for (const id of many) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.notEqual(referenceIdOf(mtnKeys(Buffer.alloc(32, 8)).reference, 'pay_abc'), a, 'different per service key');
  assert.notEqual(callbackTokenOf(keys.callback, 'pay_abc'), callbackTokenOf(keys.reference, 'pay_abc'), 'independent keys');
});

test('an MSISDN is digits only, without the plus', () => {
  assert.equal(msisdnOf('+256772123456'), '256772123456');
  assert.equal(msisdnOf('256772123456'), '256772123456');
  assert.throws(() => msisdnOf('+256 77'));
});
