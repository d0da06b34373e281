import { typeid } from 'typeid-js';

/**
 * Prefixed, time-sortable, opaque ids (UUIDv7 in TypeID form: `pay_01jd…`).
 * Sorting ids sorts by creation time, which the cursor lists rely on.
 */
export const ID_PREFIXES = {
  merchant: 'mer',
  client: 'cli',
  token: 'tok',
  request: 'req',
  payment: 'pay',
  topup: 'top',
  wallet: 'wal',
  walletTransaction: 'wtx',
  ledgerTransaction: 'ltx',
  event: 'evt',
  webhookEndpoint: 'whe',
  delivery: 'del',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export function newId(kind: IdKind): string {
  return typeid(ID_PREFIXES[kind]).toString();
}

/** A TypeID: prefix, underscore, 26 chars of Crockford base32 (first char 0-7). */
const ID_BODY = /^[0-7][0-9a-hjkmnp-tv-z]{25}$/;

export function isIdOf(kind: IdKind, value: string): boolean {
  const prefix = ID_PREFIXES[kind];
  return value.length === prefix.length + 27 && value.startsWith(`${prefix}_`) && ID_BODY.test(value.slice(prefix.length + 1));
}
