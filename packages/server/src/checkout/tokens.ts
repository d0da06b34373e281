import { createHmac } from 'node:crypto';
import { keyedHash } from '../shared/secrets.ts';

/**
 * The tokens in hosted pages' URLs (`/pay/<token>`, `/pay/link/<token>`): 256 bits derived from
 * the object's id under a key derived from the service key, so they reveal nothing (not the id,
 * not the merchant, not the amount) and cannot be made up, yet need no stored secret: the URL is
 * recomputed on every read. Only a keyed hash of the token is stored, to find the object back.
 */
export interface PageTokens {
  /** The token of a session or link id. */
  tokenOf(id: string): string;
  /** What is stored to look a token up. */
  hashOf(token: string): string;
}

export function pageTokens(hashKey: Buffer): PageTokens {
  const key = createHmac('sha256', hashKey).update('purse hosted page tokens v1').digest();
  return {
    tokenOf: (id) => createHmac('sha256', key).update(id).digest('base64url'),
    hashOf: (token) => keyedHash(hashKey, `page-token:${token}`),
  };
}

/** A token's shape: 43 characters of base64url. Anything else is refused before the database is asked. */
export const PAGE_TOKEN = /^[A-Za-z0-9_-]{43}$/;
