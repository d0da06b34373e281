import { createHmac, timingSafeEqual } from 'node:crypto';
import { Type } from 'typebox';
import { isIdOf } from '../../shared/ids.ts';
import type { CallbackHeaders, CallbackHint, ConnectorCallbacks } from '../connector.ts';

/**
 * The acquirer's webhooks: `Stripe-Signature: t=<unix seconds>,v1=<hex>` where v1 is the
 * HMAC-SHA256 of `t + "." + raw body` under an endpoint secret. Several v1 may come (the acquirer
 * signs with both secrets while one is rolled), and Purse may hold several secrets: any pair
 * matching is enough. A timestamp more than 300 s away is refused (a replay). What a verified
 * event says is only a hint: Purse reads the intent or refund before applying anything.
 */

export const SIGNATURE_TOLERANCE_S = 300;

function parseSignature(header: string): { t: number; v1: string[] } | null {
  let t: number | null = null;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) v1.push(value);
  }
  return t === null || v1.length === 0 ? null : { t, v1 };
}

export function verifySignature(secrets: readonly string[], header: unknown, rawBody: string, nowS: number): boolean {
  if (typeof header !== 'string' || header.length > 2048) return false;
  const parsed = parseSignature(header);
  if (!parsed || Math.abs(nowS - parsed.t) > SIGNATURE_TOLERANCE_S) return false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(`${parsed.t}.${rawBody}`, 'utf8').digest();
    for (const given of parsed.v1) {
      if (timingSafeEqual(expected, Buffer.from(given, 'hex'))) return true;
    }
  }
  return false;
}

const EventSchema = Type.Object(
  {
    id: Type.String({ maxLength: 255 }),
    type: Type.String({ maxLength: 128 }),
    data: Type.Object({ object: Type.Object({}, { additionalProperties: true }) }, { additionalProperties: true }),
  },
  { additionalProperties: true, description: "The acquirer's event (Stripe's shape), signed in Stripe-Signature." },
);

/** The Purse object an event's object names: its metadata carries Purse's id (set on every request). */
export function hintOfEvent(body: unknown): CallbackHint | null {
  const object = (body as { data?: { object?: Record<string, unknown> } }).data?.object;
  if (!object) return null;
  const metadata = (object.metadata ?? {}) as Record<string, unknown>;
  const id = typeof object.id === 'string' ? object.id : null;
  // A refund event names the refund, a charge or intent event the payment.
  const purseId = [metadata.purse_refund_id, metadata.purse_payment_id].find((v): v is string => typeof v === 'string');
  if (!purseId || !(isIdOf('payment', purseId) || isIdOf('refund', purseId))) return null;
  const objectKind = object.object;
  const providerReference = objectKind === 'payment_intent' || objectKind === 'refund' ? id : null;
  return { idempotencyKey: purseId, providerReference, claimed: 'pending' };
}

export function acquirerCallbacks(secrets: readonly string[], nowS: () => number): ConnectorCallbacks {
  return {
    body: EventSchema,
    headers: { 'stripe-signature': Type.String({ maxLength: 2048, description: 't=<unix seconds>,v1=<hex HMAC-SHA256>[,v1=…]' }) },
    description:
      'Signed in Stripe-Signature (HMAC-SHA256 of "t.<raw body>" under the webhook secret, 300 s tolerance, any of several v1). ' +
      'Only a hint: Purse reads the payment intent or refund before applying anything.',
    verify: (headers: CallbackHeaders, rawBody: string) => verifySignature(secrets, headers['stripe-signature'], rawBody, nowS()),
    parse: (body: unknown) => hintOfEvent(body),
  };
}
