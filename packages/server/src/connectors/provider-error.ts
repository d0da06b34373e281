/**
 * A provider's HTTP answer that Purse did not expect, for every connector alike. It is logged
 * whole (the logger serializes an error's own fields), so what it keeps of the provider's body is
 * cut short and masked: a provider may echo back what Purse sent it (credentials, a Bearer token,
 * a callback URL's token), and none of that may reach a log line or an error message.
 */

/** How much of a provider's answer an error keeps: enough to tell one refusal from another. */
export const BODY_EXCERPT_CHARS = 200;

const MASK = '[redacted]';

/** A field whose value is secret by its name (access_token, client_secret, SecurityCredential, Password, api-key…). */
const SECRET_FIELD =
  /("?[\w-]*(?:token|secret|password|passkey|key|credential|authorization)[\w-]*"?\s*[:=]\s*)("(?:[^"\\]|\\.)*"|[^\s,&;}"]+)/gi;

/** An Authorization-style value: the scheme stays, the credentials go. */
const AUTH_VALUE = /\b(Bearer|Basic)\s+[\w.~+/=-]+/gi;

/**
 * A long opaque run of letters and digits (a token, a key, an HMAC) that no field name announced:
 * Purse cannot know every secret a provider might repeat, so it keeps none that looks like one.
 */
const OPAQUE_RUN = /[\w+/=-]{24,}/g;
const looksOpaque = (run: string) => /\d/.test(run) || (/[a-z]/.test(run) && /[A-Z]/.test(run));

/**
 * `text` with the given secrets and anything that looks like a secret (a Bearer or Basic value, a
 * field named like a secret, a long opaque token) replaced by [redacted]. Also used for what a
 * webhook endpoint answered (webhooks/sender.ts), which may repeat a signing secret.
 */
export function maskSecrets(text: string, secrets: readonly string[] = []): string {
  let masked = text;
  // Longest first, so a secret that contains another is masked whole.
  for (const secret of [...secrets].filter((s) => s !== '').sort((a, b) => b.length - a.length)) {
    masked = masked.split(secret).join(MASK);
  }
  // The scheme's value first: a field rule would mask only the word Bearer and keep what follows.
  return masked
    .replace(AUTH_VALUE, `$1 ${MASK}`)
    .replace(SECRET_FIELD, `$1${MASK}`)
    .replace(OPAQUE_RUN, (run) => (looksOpaque(run) ? MASK : run));
}

/**
 * The start of a provider's answer as an error may keep it: the given secrets (what Purse sent)
 * and anything that looks like a secret masked first, then cut, so no secret survives in part.
 */
export function bodyExcerpt(body: string, secrets: readonly string[] = []): string {
  const text = maskSecrets(body, secrets).replace(/\s+/g, ' ').trim();
  return text.length > BODY_EXCERPT_CHARS ? `${text.slice(0, BODY_EXCERPT_CHARS)}…` : text;
}

export interface ProviderHttpErrorFields {
  /** The connector's name (mtn, mpesa, a card acquirer's). */
  provider: string;
  /** What Purse asked for, in the provider's words where it has some (collection token, stkpush). */
  operation: string;
  status: number;
  /** The provider's answer as received; only a masked excerpt of it is kept. */
  body?: string;
  /** What Purse sent that must never come back out: credentials, tokens, passwords. */
  secrets?: readonly string[];
  /** What was wrong when the status was not (a 200 without a token); by default "answered <status>". */
  problem?: string;
}

export class ProviderHttpError extends Error {
  readonly provider: string;
  readonly operation: string;
  readonly status: number;
  /** The start of the provider's answer, secrets masked; '' when it sent none or it was not read. */
  readonly bodyExcerpt: string;

  constructor(fields: ProviderHttpErrorFields) {
    // The message names only the call and the status: never a value Purse sent or received.
    super(`${fields.provider}: ${fields.operation} ${fields.problem ?? `answered ${fields.status}`}`);
    this.name = 'ProviderHttpError';
    this.provider = fields.provider;
    this.operation = fields.operation;
    this.status = fields.status;
    this.bodyExcerpt = bodyExcerpt(fields.body ?? '', fields.secrets);
  }

  /** The error for an answer whose body has not been read yet: reads it (the excerpt needs it). */
  static async of(res: Response, fields: Omit<ProviderHttpErrorFields, 'status' | 'body'>): Promise<ProviderHttpError> {
    // A body that cannot be read (the call was aborted meanwhile) still leaves the status to report.
    const body = await res.text().catch(() => '');
    return new ProviderHttpError({ ...fields, status: res.status, body });
  }
}
