import { createHmac } from 'node:crypto';
import { Type } from 'typebox';
import { FAILURE_CODES } from '../../shared/failures.ts';
import { callbackTokenOf, verifyCallbackToken } from '../callback-token.ts';
import type { CallbackHeaders, ConnectorCallbacks } from '../connector.ts';
import { hintOf, type SandboxCallbackBody } from './transformers.ts';

export type { SandboxCallbackBody };

/**
 * How the sandbox provider signs the callbacks it sends to Purse: HMAC-SHA256 of the raw body,
 * base64url, in the `sandbox-signature` header. The key is derived from the service key, so
 * every process of one deployment (and a test acting as the provider) agrees on it.
 */
export const SANDBOX_SIGNATURE_HEADER = 'sandbox-signature';

/** The body the sandbox sends, as the callback route validates and documents it. */
export const SandboxCallbackSchema = Type.Object(
  {
    idempotency_key: Type.String({
      maxLength: 64,
      description: 'The Purse object id the provider was given as idempotency key (pay_… or top_…).',
    }),
    provider_reference: Type.String({ maxLength: 128, description: "The provider's own reference." }),
    status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
    failure_code: Type.Optional(
      Type.Union(
        FAILURE_CODES.map((c) => Type.Literal(c)),
        { description: 'With status failed.' },
      ),
    ),
  },
  // A provider may add fields over time; the signature already vouches for the whole body.
  { additionalProperties: true, description: "The sandbox provider's callback; another provider's format is read by its connector." },
);

export function sandboxCallbackKey(hashKey: Buffer): Buffer {
  return createHmac('sha256', hashKey).update('sandbox-callbacks').digest();
}

export function signSandboxCallback(key: Buffer, rawBody: string): string {
  return callbackTokenOf(key, rawBody);
}

/** Constant-time check of the one signature header; a missing, repeated or malformed header fails. */
export function verifySandboxCallback(key: Buffer, headers: CallbackHeaders, rawBody: string): boolean {
  return verifyCallbackToken(key, rawBody, headers[SANDBOX_SIGNATURE_HEADER]);
}

/** The sandbox's side of POST /provider-callbacks/sandbox. */
export function sandboxCallbacks(key: Buffer): ConnectorCallbacks {
  return {
    body: SandboxCallbackSchema,
    headers: {
      [SANDBOX_SIGNATURE_HEADER]: Type.Optional(Type.String({ description: 'Sandbox: base64url HMAC-SHA256 of the raw body.' })),
    },
    description:
      'The sandbox signs the raw body with HMAC-SHA256 under a key derived from the service key, base64url, in the ' +
      `${SANDBOX_SIGNATURE_HEADER} header`,
    verify: (headers, rawBody) => verifySandboxCallback(key, headers, rawBody),
    parse: (body) => hintOf(body as SandboxCallbackBody),
  };
}
