import { type LoggerOptions, stdSerializers } from 'pino';

/** Fields that must never reach a log line, whatever object they sit in. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'client_secret',
  'access_token',
  'secret',
  '*.client_secret',
  '*.access_token',
  '*.secret',
  '*.card.number',
  '*.card.cvc',
  '*.*.card.number',
  '*.*.card.cvc',
];

const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * An error as logged. A database error (an SQLSTATE code) keeps its code, constraint, table,
 * column and routine, and the first clause of its message, but never its detail, hint, where or
 * the rest of the message: PostgreSQL quotes row values there (`invalid input syntax for type
 * json … Token "…"`, `Key (email)=(…) already exists`), and a customer's name must not reach a log.
 */
export function serializeError(error: unknown): unknown {
  const fields = error as { code?: unknown; message?: unknown; stack?: unknown } | null;
  if (!(error instanceof Error) || typeof fields?.code !== 'string' || !SQLSTATE.test(fields.code)) {
    return error instanceof Error ? stdSerializers.err(error) : error;
  }
  const db = error as Error & { code: string; constraint?: string; table?: string; column?: string; routine?: string; severity?: string };
  const message = (db.message.split(/[:"(]/)[0] ?? '').trim();
  const frames = (db.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at '));
  return {
    type: db.name,
    code: db.code,
    message,
    ...(db.constraint ? { constraint: db.constraint } : {}),
    ...(db.table ? { table: db.table } : {}),
    ...(db.column ? { column: db.column } : {}),
    ...(db.routine ? { routine: db.routine } : {}),
    stack: [`${db.name}: ${message}`, ...frames].join('\n'),
  };
}

/**
 * Capability URLs: whoever holds the token of a hosted page (`/pay/<token>`, `/pay/link/<token>`)
 * or of a 3-D Secure step (`/3ds/<id>/<token>`) can act on it, so it is a secret like a key.
 */
const CAPABILITY_PATHS: readonly RegExp[] = [/^(\/pay\/link\/)[^/]+/, /^(\/pay\/)(?!assets\/|link\/)[^/]+/, /^(\/3ds\/[^/]+\/)[^/]+/];

/** The path a log line shows: no query string, and a capability token replaced by `[token]`. */
export function loggedPath(url: string): string {
  const path = url.split('?')[0] ?? '';
  for (const pattern of CAPABILITY_PATHS) if (pattern.test(path)) return path.replace(pattern, '$1[token]');
  return path;
}

/**
 * The options of every process logger (server and CLI). Here rather than in app.ts: deps.ts
 * builds the logger before any app exists, and app.ts depends on deps.ts.
 */
export function loggerOptions(level: string, format: 'json' | 'pretty' = 'json'): LoggerOptions {
  return {
    level,
    // Redaction and serializers run before the transport: a pretty line hides what a JSON line hides.
    ...(format === 'pretty'
      ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true } } }
      : {}),
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    // Only method and path: a query string may carry what a client should not have sent.
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, path: loggedPath(req.url) }),
      err: serializeError,
    },
  };
}
