import type { AuditOrigin } from '../audit/types.ts';
import type { Db } from '../db/db.ts';
import type { AddressFailureLimit } from '../limits/address.ts';
import type { WindowCounters } from '../limits/counters.ts';
import type { Clock } from '../shared/clock.ts';
import { keyedHash } from '../shared/secrets.ts';
import { createPasswordCheck } from './passwords.ts';
import { type SessionRow, type SessionState, sessionSecrets } from './sessions.ts';
import { type OwnerRule, ownerRule } from './store.ts';
import { signInThrottle } from './throttle.ts';

/** What the users services are built from (deps.ts). */
export interface UsersDeps {
  db: Db;
  clock: Clock;
  hashKey: Buffer;
  /** AES-GCM keys of the TOTP secrets: the first encrypts, any decrypts (a rotation). */
  encryptionKey: readonly Buffer[];
  counters: WindowCounters;
  addressLimit: AddressFailureLimit;
  sessionIdleS: number;
  sessionAbsoluteS: number;
  /** Called when sessions end or users change: this process judges their tokens again at once. */
  onSessionsChanged?: () => void;
  /** The last-owner rule's writes (store.ts ownerRule unless a test wires its broken variant). */
  ownerRule?: OwnerRule;
}

/** Who sent a request: the address throttling counts, and what the audit log records. */
export interface Caller {
  ip: string;
  origin: AuditOrigin;
}

/** A live session, resolved from its cookie by the routes' guard. */
export interface Session {
  /** The cookie's value (the CSRF token derives from it) and the stored id (its keyed hash). */
  value: string;
  id: string;
  row: SessionRow;
  state: SessionState;
  end: { absoluteMs: number; idleMs: number };
}

export function usersContext(deps: UsersDeps) {
  return {
    ...deps,
    idleMs: deps.sessionIdleS * 1000,
    absoluteMs: deps.sessionAbsoluteS * 1000,
    secrets: sessionSecrets(deps.hashKey),
    throttle: signInThrottle(deps),
    checkPassword: createPasswordCheck(),
    recoveryHash: (code: string) => keyedHash(deps.hashKey, `recovery:${code}`),
    changed: () => deps.onSessionsChanged?.(),
    ownerRule: deps.ownerRule ?? ownerRule,
  };
}

export type UsersContext = ReturnType<typeof usersContext>;

/** The public form of a user. */
export function userView(row: { id: string; email: string; role: string; status: string; totp_enabled_at: Date | null; created_at: Date }) {
  return {
    id: row.id,
    object: 'user' as const,
    email: row.email,
    role: row.role,
    status: row.status,
    totp_enabled: row.totp_enabled_at !== null,
    created_at: row.created_at.toISOString(),
  };
}
