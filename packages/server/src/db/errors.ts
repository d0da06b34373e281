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

const NODE_NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH']);

/**
 * The database is down, restarting or unreachable: the request should get a 503 and be retried,
 * never a 500. SQLSTATE class 08 (connection), 57P01–57P03 (shutdown, cannot connect now),
 * 53300 (too many connections), and the driver's own connection errors.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = pgCode(error);
  if (code !== undefined) {
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300') return true;
    if (NODE_NET_CODES.has(code)) return true;
  }
  const message = error instanceof Error ? error.message : '';
  return (
    message.includes('Connection terminated') ||
    message.includes('timeout exceeded when trying to connect') ||
    message.includes('Client has encountered a connection error') ||
    message.includes('Cannot use a pool after calling end')
  );
}
