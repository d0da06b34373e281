// Purse.webhooks.verify: a delivery's Standard Webhooks signature, checked over the exact bytes
// received, with the `standardwebhooks` library (the one Purse signs with; synchronous, and it runs
// in browsers too, where node:crypto does not).
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { PurseError } from './errors.js';
import type { Event, WebhookHeaders } from './types.js';

const RAW_BODY_HINT =
  "pass the raw request body (Buffer or string), not parsed JSON: with express, express.raw({ type: 'application/json' }) on the webhook route; with node:http, the request's chunks joined with Buffer.concat";

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an object (${Object.getPrototypeOf(value)?.constructor?.name ?? 'no prototype'})`;
  return typeof value;
}

const webhookError = (code: string, message: string, cause?: unknown) =>
  new PurseError({ message, status: null, type: 'webhook_error', code, ...(cause === undefined ? {} : { cause }) });

/** The body as text: a string as it is, bytes (Buffer, Uint8Array) decoded as UTF-8; anything else is refused. */
function rawText(rawBody: unknown): string {
  if (typeof rawBody === 'string') return rawBody;
  if (rawBody instanceof Uint8Array) return new TextDecoder().decode(rawBody);
  throw webhookError('body_not_raw', `Purse.webhooks.verify: ${RAW_BODY_HINT}; got ${describe(rawBody)}.`);
}

/** Lower-case names, one string each, from Headers, Node's IncomingHttpHeaders or a plain object. */
function headerRecord(headers: unknown): Record<string, string> {
  if (typeof headers !== 'object' || headers === null) {
    throw webhookError(
      'signature_invalid',
      `Purse.webhooks.verify: pass the request's headers (webhook-id, webhook-timestamp, webhook-signature); got ${describe(headers)}.`,
    );
  }
  const record: Record<string, string> = {};
  const entries =
    typeof (headers as Headers).get === 'function' && typeof (headers as Headers).entries === 'function'
      ? (headers as Headers).entries()
      : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    record[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return record;
}

/**
 * Checks a delivery against the exact bytes received and returns the event. Throws PurseError
 * (type webhook_error): body_not_raw when the body is not a string or bytes, secret_invalid for a
 * secret that is not a whsec_… string, signature_invalid for a missing, wrong or stale signature.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string): Event {
  const text = rawText(rawBody);
  const record = headerRecord(headers);
  let webhook: Webhook;
  try {
    if (typeof secret !== 'string' || secret === '') throw new Error('the secret is not a string');
    webhook = new Webhook(secret);
  } catch (error) {
    throw webhookError(
      'secret_invalid',
      `Purse.webhooks.verify: the secret must be the endpoint's signing secret (whsec_…); got ${typeof secret === 'string' ? 'a string that is not one' : describe(secret)}.`,
      error,
    );
  }
  try {
    return webhook.verify(text, record) as Event;
  } catch (error) {
    if (error instanceof WebhookVerificationError) {
      throw webhookError(
        'signature_invalid',
        `The webhook signature does not verify (${error.message}). Check that the body is the raw bytes received, ` +
          "not parsed and re-serialised JSON, and that the secret is this endpoint's.",
        error,
      );
    }
    throw webhookError('webhook_invalid', `The webhook could not be read: ${(error as Error).message}`, error);
  }
}
