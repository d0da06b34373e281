import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CallbackHint, ProviderOutcome } from '../connector.ts';
import type { SandboxCallbackBody } from './callbacks.ts';
import { type BookRow, callbackBodyOf, hintOf, outcomeOf, UNSCHEDULED_CHECK_MS } from './transformers.ts';

const NOW = Date.parse('2025-01-01T12:00:00Z');
const at = (offsetMs: number) => new Date(NOW + offsetMs);
const row = (outcome: string, failure_code: string | null, complete_at: Date | null): BookRow => ({
  provider_reference: 'sbx_1',
  outcome,
  failure_code,
  complete_at,
});

test('the books → an outcome: final only once settled; unknown states and codes never read as a plain failure', () => {
  const table: [string, BookRow, ProviderOutcome][] = [
    ['settled success', row('succeeded', null, at(-1)), { status: 'succeeded', providerReference: 'sbx_1' }],
    ['settled exactly now', row('succeeded', null, at(0)), { status: 'succeeded', providerReference: 'sbx_1' }],
    [
      'settled failure',
      row('failed', 'payer_declined', at(-1)),
      { status: 'failed', providerReference: 'sbx_1', failureCode: 'payer_declined' },
    ],
    [
      'a failure code Purse does not know',
      row('failed', 'cosmic_rays', at(-1)),
      { status: 'failed', providerReference: 'sbx_1', failureCode: 'provider_error' },
    ],
    ['success not due yet', row('succeeded', null, at(500)), { status: 'pending', providerReference: 'sbx_1', checkAfterMs: 500 }],
    ['failure not due yet', row('failed', 'expired', at(30)), { status: 'pending', providerReference: 'sbx_1', checkAfterMs: 30 }],
    [
      'pending, never settles',
      row('pending', null, null),
      { status: 'pending', providerReference: 'sbx_1', checkAfterMs: UNSCHEDULED_CHECK_MS },
    ],
    ['an unknown state', row('reversed', null, at(-1)), { status: 'pending', providerReference: 'sbx_1', checkAfterMs: 0 }],
    ['an unknown state, not due', row('processing', null, at(200)), { status: 'pending', providerReference: 'sbx_1', checkAfterMs: 200 }],
  ];
  for (const [name, books, expected] of table) assert.deepEqual(outcomeOf(books, NOW), expected, name);
});

test('a callback body → the hint it carries', () => {
  const table: [string, SandboxCallbackBody, CallbackHint | null][] = [
    [
      'success',
      { idempotency_key: 'pay_1', provider_reference: 'sbx_1', status: 'succeeded' },
      { idempotencyKey: 'pay_1', providerReference: 'sbx_1', claimed: 'succeeded' },
    ],
    [
      'failure with its code',
      { idempotency_key: 'top_1', provider_reference: 'sbx_2', status: 'failed', failure_code: 'expired' },
      { idempotencyKey: 'top_1', providerReference: 'sbx_2', claimed: 'failed' },
    ],
    ['failure without a code', { idempotency_key: 'pay_1', provider_reference: 'sbx_1', status: 'failed' }, null],
    [
      'a state the sandbox does not send',
      { idempotency_key: 'pay_1', provider_reference: 'sbx_1', status: 'on_hold' as 'succeeded' },
      { idempotencyKey: 'pay_1', providerReference: 'sbx_1', claimed: 'pending' },
    ],
  ];
  for (const [name, body, expected] of table) assert.deepEqual(hintOf(body), expected, name);
});

test('a final outcome → the body the sandbox sends, which reads back as the same hint', () => {
  const table: [Extract<ProviderOutcome, { status: 'succeeded' | 'failed' }>, SandboxCallbackBody][] = [
    [
      { status: 'succeeded', providerReference: 'sbx_1' },
      { idempotency_key: 'pay_1', provider_reference: 'sbx_1', status: 'succeeded' },
    ],
    [
      { status: 'failed', providerReference: 'sbx_1', failureCode: 'insufficient_funds' },
      { idempotency_key: 'pay_1', provider_reference: 'sbx_1', status: 'failed', failure_code: 'insufficient_funds' },
    ],
  ];
  for (const [outcome, expected] of table) {
    const body = callbackBodyOf('pay_1', outcome, 'sbx_1');
    assert.deepEqual(body, expected);
    assert.equal(hintOf(body)?.claimed, outcome.status);
  }
});
