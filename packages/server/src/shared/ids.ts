import { type RawBuilder, sql } from 'kysely';
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
  transfer: 'tr',
  refund: 're',
  payout: 'po',
  /** Ledger entries of a wallet's account: the public wallet transactions. */
  walletTransaction: 'wtx',
  /** Every other ledger entry (merchant funds, provider accounts). */
  ledgerEntry: 'len',
  ledgerTransaction: 'ltx',
  event: 'evt',
  webhookEndpoint: 'whe',
  delivery: 'del',
  checkoutSession: 'cs',
  paymentLink: 'plink',
  /** A merchant's client credential with its scopes (docs/api.md, keys). */
  apiKey: 'key',
  auditEvent: 'aud',
  /** A dashboard user of a merchant (docs/users.md). */
  user: 'usr',
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

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * A TypeID made by the database, for rows a statement fans out in numbers only it knows (one
 * delivery per subscribed endpoint). The same shape as newId: a UUIDv7 whose first 48 bits are
 * the milliseconds of the timestamp column `atColumn`, so these ids sort by time like every other id, then the version
 * (7), 12 random bits, the variant (10) and 62 random bits. random() is evaluated once per
 * call, so every character draws its own bits, and every row its own id; only built-ins that
 * PGlite and PostgreSQL 15 both have.
 */
export function typeIdSql(kind: IdKind, atColumn: string): RawBuilder<string> {
  if (!/^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/.test(atColumn)) throw new Error(`typeIdSql: not a column: ${atColumn}`);
  const key = `${kind} ${atColumn}`;
  let text = typeIdText.get(key);
  if (text === undefined) {
    text = typeIdExpression(ID_PREFIXES[kind], atColumn);
    typeIdText.set(key, text);
  }
  // One raw node of constant text: built once, and cheap for Kysely to compile on every statement.
  return sql.raw<string>(text);
}

const typeIdText = new Map<string, string>();

function typeIdExpression(prefix: string, atColumn: string): string {
  const ms = `floor(extract(epoch FROM ${atColumn}) * 1000)::bigint`;
  const char = (value: string) => `substr('${CROCKFORD}', ${value} + 1, 1)`;
  const randomBits = (bits: number) => `floor(random() * ${2 ** bits})::int`;
  // 130 bits in 26 characters of 5: two zero bits, then the 128 bits of the UUID.
  const time = Array.from({ length: 10 }, (_, k) => char(`((${ms} >> ${45 - 5 * k}) & 31)::int`));
  const random = [
    char(`14 + ${randomBits(1)}`), // version 0111, then the first random bit
    char(randomBits(5)),
    char(randomBits(5)),
    char(`8 + 16 * ${randomBits(1)} + ${randomBits(2)}`), // a random bit, variant 10, two random bits
    ...Array.from({ length: 12 }, () => char(randomBits(5))),
  ];
  return `('${prefix}_' || ${[...time, ...random].join(' || ')})`;
}
