import { hash, verify } from '@node-rs/argon2';

/** Passwords: 12 to 200 characters, no control characters, no composition rules (docs/users.md). */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 200;

/** argon2id with OWASP's parameters: 19 MiB of memory, 2 passes, 1 lane. */
// algorithm 2: Argon2id (the library's const enum cannot be imported under verbatimModuleSyntax).
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/**
 * Verifies `password` against `stored`; for an unknown email (or a user without a password yet)
 * a decoy hash made at start is verified instead, so the answer takes as long either way.
 */
export function createPasswordCheck() {
  const decoy = hashPassword('decoy password that matches nothing');
  return async function check(stored: string | null, password: string): Promise<boolean> {
    if (stored === null) {
      await verify(await decoy, password).catch(() => false);
      return false;
    }
    return verify(stored, password).catch(() => false);
  };
}

export type PasswordCheck = ReturnType<typeof createPasswordCheck>;
