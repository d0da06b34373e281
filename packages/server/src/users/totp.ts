import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

/** RFC 6238: SHA-1, 6 digits, 30 s steps; the previous and next steps are accepted too. */
const PERIOD_S = 30;
const WINDOW = 1;

function totpOf(base32: string, email: string): TOTP {
  return new TOTP({ issuer: 'Purse', label: email, algorithm: 'SHA1', digits: 6, period: PERIOD_S, secret: Secret.fromBase32(base32) });
}

/** A new secret (160 bits, base32) and its otpauth:// URI, for an authenticator app. */
export function newTotpSecret(email: string): { secret: string; otpauthUri: string } {
  const secret = new Secret({ size: 20 }).base32;
  return { secret, otpauthUri: totpOf(secret, email).toString() };
}

/**
 * The time step `code` belongs to (within one step of now), or null when it matches none. The
 * caller accepts it only by raising the user's last used step past it (store.ts useTotpStep).
 */
export function totpStep(base32: string, code: string, nowMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const totp = totpOf(base32, '');
  const delta = totp.validate({ token: code, timestamp: nowMs, window: WINDOW });
  return delta === null ? null : totp.counter({ timestamp: nowMs }) + delta;
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** Ten recovery codes, `xxxx-xxxx-xxxx` in lowercase base32 (60 random bits each). */
export function newRecoveryCodes(count = 10): string[] {
  return Array.from({ length: count }, () => {
    const chars = Array.from(randomBytes(12), (b) => BASE32[b & 31]).join('');
    return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8, 12)}`;
  });
}

/** A recovery code as typed: trimmed, lowercased; null when it cannot be one. */
export function normalRecoveryCode(code: string): string | null {
  const value = code.trim().toLowerCase();
  return /^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/.test(value) ? value : null;
}
