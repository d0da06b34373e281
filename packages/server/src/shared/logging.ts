import type { LoggerOptions } from 'pino';

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

/**
 * The options of every process logger (server and CLI). Here rather than in app.ts: deps.ts
 * builds the logger before any app exists, and app.ts depends on deps.ts.
 */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    // Only method and path: a query string may carry what a client should not have sent.
    serializers: { req: (req: { method: string; url: string }) => ({ method: req.method, path: req.url.split('?')[0] }) },
  };
}
