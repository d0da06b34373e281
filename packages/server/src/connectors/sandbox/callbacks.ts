import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CallbackHeaders, FailureCode } from '../connector.ts';

/**
 * How the sandbox provider signs the callbacks it sends to Purse: HMAC-SHA256 of the raw body,
 * base64url, in the `sandbox-signature` header. The key is derived from the service key, so
 * every process of one deployment (and a test acting as the provider) agrees on it.
 */
export const SANDBOX_SIGNATURE_HEADER = 'sandbox-signature';

/** The body the sandbox sends (and connector.parseCallback reads). */
export interface SandboxCallbackBody {
  /** Purse's charge id, the idempotency key of the original request. */
  idempotency_key: string;
  provider_reference: string;
  status: 'succeeded' | 'failed';
  failure_code?: FailureCode;
}

export function sandboxCallbackKey(hashKey: Buffer): Buffer {
  return createHmac('sha256', hashKey).update('sandbox-callbacks').digest();
}

export function signSandboxCallback(key: Buffer, rawBody: string): string {
  return createHmac('sha256', key).update(rawBody, 'utf8').digest('base64url');
}

/** Constant-time check of the one signature header; a missing, repeated or malformed header fails. */
export function verifySandboxCallback(key: Buffer, headers: CallbackHeaders, rawBody: string): boolean {
  const header = headers[SANDBOX_SIGNATURE_HEADER];
  if (typeof header !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(header)) return false;
  const expected = Buffer.from(signSandboxCallback(key, rawBody), 'base64url');
  const given = Buffer.from(header, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
