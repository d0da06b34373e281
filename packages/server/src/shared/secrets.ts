import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The prefixes of client secrets (merchants/service.ts makes them; http/auth.ts recognises one sent as a token). */
export const CLIENT_SECRET_PREFIXES = { live: 'sk_live', test: 'sk_test' } as const;

/** An opaque secret with 256 random bits, base64url, behind a readable prefix. */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/**
 * Keyed hash (HMAC-SHA256) used for client secrets, access tokens and card numbers.
 * The inputs are high-entropy (secrets, tokens) or compared only for equality (card numbers),
 * so a keyed fast hash is enough; the key keeps a database dump from being brute-forced.
 */
export function keyedHash(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value, 'utf8').digest('base64url');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    // Still spend comparable time so the length is not the only signal.
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/**
 * Secrets that must be used again (webhook signing secrets) are kept encrypted with
 * AES-256-GCM: `v1.<iv>.<tag>.<ciphertext>`, base64url. The key derives from PURSE_SECRET_KEY.
 */
/** One key, or the keys of a rotation: the first encrypts, any decrypts (current, then previous). */
export type SecretKeys = Buffer | readonly Buffer[];

function keyList(key: SecretKeys): readonly Buffer[] {
  return Buffer.isBuffer(key) ? [key] : key;
}

export function encryptSecret(keys: SecretKeys, plaintext: string): string {
  const key = keyList(keys)[0];
  if (!key) throw new Error('no encryption key');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
}

export function decryptSecret(keys: SecretKeys, sealed: string): string {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('unknown sealed secret format');
  let failure: unknown = new Error('no decryption key');
  // GCM authenticates: a wrong key fails here rather than returning garbage.
  for (const key of keyList(keys)) {
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}

/** Whether `sealed` was encrypted with `key` (rekey leaves those alone). */
export function sealedWith(key: Buffer, sealed: string): boolean {
  try {
    decryptSecret(key, sealed);
    return true;
  } catch {
    return false;
  }
}

/** A Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
