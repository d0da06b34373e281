import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatAmount, formatSignedAmount, maxAmountMinor, minorDigits, parseAmount } from './money.ts';

test('minor digits follow ISO 4217', () => {
  const table: [string, number][] = [
    ['KES', 2],
    ['UGX', 0],
    ['TZS', 2],
    ['RWF', 0],
    ['XOF', 0],
    ['USD', 2],
    ['BHD', 3],
  ];
  for (const [currency, digits] of table) assert.equal(minorDigits(currency), digits, currency);
});

test('parseAmount accepts canonical decimal strings', () => {
  const table: [string, string, bigint][] = [
    ['1500', 'UGX', 1500n],
    ['10.5', 'KES', 1050n],
    ['10.50', 'KES', 1050n],
    ['0.01', 'KES', 1n],
    ['1500.00', 'KES', 150000n],
    ['999999999999999', 'UGX', 999999999999999n],
  ];
  for (const [text, currency, minor] of table) assert.deepEqual(parseAmount(text, currency), { ok: true, value: minor }, text);
});

test('parseAmount refuses everything else', () => {
  const table: [string, string, string][] = [
    ['', 'KES', 'format'],
    ['0', 'KES', 'not_positive'],
    ['0.00', 'KES', 'not_positive'],
    ['-5', 'KES', 'format'],
    ['+5', 'KES', 'format'],
    ['1e3', 'KES', 'format'],
    [' 10', 'KES', 'format'],
    ['10 ', 'KES', 'format'],
    ['10.', 'KES', 'format'],
    ['.5', 'KES', 'format'],
    ['01', 'KES', 'format'],
    ['１０', 'KES', 'format'],
    ['10.5', 'UGX', 'too_many_decimals'],
    ['10.123', 'KES', 'too_many_decimals'],
    ['1234567890123456789012345', 'KES', 'too_large'],
    ['0x10', 'KES', 'format'],
    ['NaN', 'KES', 'format'],
  ];
  for (const [text, currency, error] of table) assert.deepEqual(parseAmount(text, currency), { ok: false, error }, text);
});

test('formatAmount gives exactly the currency digits', () => {
  assert.equal(formatAmount(1050n, 'KES'), '10.50');
  assert.equal(formatAmount(5n, 'KES'), '0.05');
  assert.equal(formatAmount(0n, 'KES'), '0.00');
  assert.equal(formatAmount(1500n, 'UGX'), '1500');
  assert.equal(formatAmount(-1050n, 'KES'), '-10.50');
  assert.equal(formatSignedAmount(1050n, 'KES'), '+10.50');
  assert.equal(formatSignedAmount(-7n, 'UGX'), '-7');
  assert.equal(formatAmount(1234n, 'BHD'), '1.234');
});

test('maxAmountMinor converts the configured major maximum', () => {
  assert.equal(maxAmountMinor('KES', { KES: '1000' }, '5'), 100000n);
  assert.equal(maxAmountMinor('UGX', {}, '5'), 5n);
});
