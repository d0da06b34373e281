/** PostgreSQL error helpers: match on SQLSTATE (`err.code`), never on class or message. */

export const UNIQUE_VIOLATION = '23505';

export function pgCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (pgCode(error) !== UNIQUE_VIOLATION) return false;
  return constraint === undefined || (error as { constraint?: string }).constraint === constraint;
}

/**
 * A COMMIT that did not answer (its connection died, the node went down): the transaction may or
 * may not be on the database. Every request of it answers 503; a retry with the same reference
 * finds what was written, or writes it then.
 */
export class CommitOutcomeUnknown extends Error {
  readonly unavailable = 'commit_unknown';
  constructor(cause: unknown) {
    super(`the outcome of COMMIT is unknown: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'CommitOutcomeUnknown';
  }
}

/** Why the database cannot take a write right now (the label of purse_unavailable_total). */
export type UnavailableCause =
  | 'connection_lost'
  | 'connect_timeout'
  | 'connection_refused'
  | 'shutdown'
  | 'read_only'
  | 'commit_unknown'
  | 'too_many_connections'
  | 'conflict';

const NODE_NET_CODES: Record<string, UnavailableCause> = {
  ECONNREFUSED: 'connection_refused',
  ECONNRESET: 'connection_lost',
  EPIPE: 'connection_lost',
  ETIMEDOUT: 'connect_timeout',
  ENOTFOUND: 'connection_refused',
  EHOSTUNREACH: 'connection_refused',
};

function causeOfCode(code: string): UnavailableCause | undefined {
  if (code.startsWith('08')) return 'connection_lost';
  if (code === '57P01' || code === '57P02' || code === '57P03') return 'shutdown';
  // A read-only transaction: the node is a standby, or a primary just demoted, or not yet promoted.
  if (code === '25006') return 'read_only';
  if (code === '53300') return 'too_many_connections';
  // A deadlock or serialization failure still there after the batch ran again (db/lock-order.ts).
  if (code === '40P01' || code === '40001') return 'conflict';
  return NODE_NET_CODES[code];
}

const MESSAGES: readonly (readonly [string, UnavailableCause])[] = [
  // Before 'Connection terminated': pg says "Connection terminated due to connection timeout".
  ['connection timeout', 'connect_timeout'],
  ['Connection terminated', 'connection_lost'],
  ['timeout exceeded when trying to connect', 'connect_timeout'],
  ['Client has encountered a connection error', 'connection_lost'],
  ['Client was closed and is not queryable', 'connection_lost'],
  ['Cannot use a pool after calling end', 'connection_lost'],
];

/**
 * Why the database cannot serve this request now (no writable primary: down, restarting,
 * unreachable, read-only during a failover, a COMMIT of unknown outcome), or undefined for any
 * other error. The request gets a 503 with Retry-After and should be retried with the same
 * reference, never a 500. SQLSTATE class 08 (connection), 57P01–57P03 (shutdown, cannot connect
 * now), 25006 (read-only transaction), 53300 (too many connections), 40P01/40001 (a conflict that
 * survived its retries), the driver's own connection errors (no SQLSTATE), and CommitOutcomeUnknown.
 */
export function unavailableCause(error: unknown): UnavailableCause | undefined {
  if (error instanceof CommitOutcomeUnknown) return error.unavailable;
  const code = pgCode(error);
  const byCode = code === undefined ? undefined : causeOfCode(code);
  if (byCode) return byCode;
  const message = error instanceof Error ? error.message : '';
  return MESSAGES.find(([text]) => message.includes(text))?.[1];
}

export function isDatabaseUnavailable(error: unknown): boolean {
  return unavailableCause(error) !== undefined;
}
