import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { maskSecrets } from '../connectors/provider-error.ts';
import { present } from '../shared/invariant.ts';
import { type AddressPolicy, addressAllowed } from './url-guard.ts';

export interface SendResult {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The start of a non-2xx answer's body, made safe to show (responseExcerpt); null otherwise. */
  responseExcerpt: string | null;
}

/** Characters of an answer's body kept with a failed attempt. */
export const EXCERPT_CHARS = 200;
/** Bytes read for it: 200 characters of UTF-8 take at most 800. */
const EXCERPT_BYTES = EXCERPT_CHARS * 4;

// C0 and C1 controls, DEL, the line and paragraph separators and the bidirectional overrides and
// isolates: shown in a dashboard or a terminal they could break lines or reorder the text around them.
const UNSAFE = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/**
 * The first EXCERPT_CHARS characters (code points) of an answer's body as text: invalid UTF-8
 * and a character cut at the byte limit become U+FFFD, tabs and line breaks a space, any other
 * control character U+FFFD; whatever looks like a secret (an endpoint may echo its signing secret
 * or a token) is masked; surrounding white space trimmed. Null when nothing is left.
 */
export function responseExcerpt(bytes: Buffer): string | null {
  const text = maskSecrets(new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, EXCERPT_BYTES)));
  const safe = text.replace(UNSAFE, (c) => (c === '\t' || c === '\n' || c === '\r' ? ' ' : '\ufffd'));
  const excerpt = Array.from(safe).slice(0, EXCERPT_CHARS).join('').trim();
  return excerpt === '' ? null : excerpt;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A DNS lookup that refuses private, loopback and link-local answers: the address is checked
 * at connection time, so a name that re-resolves to an internal address (DNS rebinding) is
 * still refused.
 */
export function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: { all?: boolean; family?: number } | number, callback: LookupCallback): void => {
    const opts = typeof options === 'number' ? { family: options } : options;
    dnsLookup(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses as LookupAddress[];
      const refused = list.some((a) => !addressAllowed(a.address, policy));
      if (refused || list.length === 0) {
        const error: NodeJS.ErrnoException = new Error(`refused to connect to a private address for ${hostname}`);
        error.code = 'EBLOCKEDADDRESS';
        return callback(error, '');
      }
      if (opts.all) return callback(null, list);
      const first = present(list[0], 'resolved address');
      return callback(null, first.address, first.family);
    });
  };
}

/** POSTs the exact bytes once. Redirects are not followed (a 3xx is a failed attempt). */
export function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; policy: AddressPolicy },
): Promise<SendResult> {
  const started = performance.now();
  const done = (statusCode: number | null, error: string | null, body: Buffer | null = null): SendResult => ({
    statusCode,
    latencyMs: Math.round(performance.now() - started),
    error,
    responseExcerpt: body === null ? null : responseExcerpt(body),
  });
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return resolve(done(null, 'invalid URL'));
    }
    // An address literal never reaches the lookup below (Node connects to it directly), so it is
    // checked here: a stored URL must not reach a private address once the operator forbids it.
    const literal = target.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) !== 0 && !addressAllowed(literal, options.policy)) {
      return resolve(done(null, `refused to connect to a private address for ${literal}`));
    }
    const transport = target.protocol === 'https:' ? https : http;
    const request = transport.request(
      target,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'Purse-Webhooks/1.0',
          ...headers,
        },
        lookup: guardedLookup(options.policy) as never,
        agent: false,
      },
      (response) => {
        // Drain at most 64 KiB; the status decides. A non-2xx answer's first bytes are kept, so
        // the merchant can read why its endpoint refused.
        const status = response.statusCode ?? null;
        const keep = status === null || status < 200 || status >= 300;
        const head: Buffer[] = [];
        let seen = 0;
        response.on('data', (chunk: Buffer) => {
          if (keep && seen < EXCERPT_BYTES) head.push(chunk.subarray(0, EXCERPT_BYTES - seen));
          seen += chunk.length;
          if (seen > 65_536) response.destroy();
        });
        const finish = () => resolve(done(status, null, keep ? Buffer.concat(head) : null));
        response.on('end', finish);
        response.on('error', finish);
        // A destroyed response (an oversized body) emits neither 'end' nor 'error': without this
        // the promise never settles and the worker's batch, and so the worker, hangs for good.
        response.on('close', finish);
      },
    );
    const timer = setTimeout(() => request.destroy(new Error(`timed out after ${options.timeoutMs} ms`)), options.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) =>
      resolve(done(null, error.code === 'EBLOCKEDADDRESS' ? error.message : error.message || String(error.code))),
    );
    request.on('close', () => clearTimeout(timer));
    request.end(body);
  });
}
