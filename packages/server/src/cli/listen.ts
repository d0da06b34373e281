import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { CliError } from './errors.ts';

/**
 * `purse listen`: a merchant's local webhook forwarder. It signs in with the merchant's client
 * credentials, follows GET /v1/events from the moment it starts, and POSTs each new event to a
 * local URL signed per Standard Webhooks with a secret of its own (printed at start, kept between
 * runs: listen-secret.ts), the way a real delivery is signed. Nothing is registered at Purse and
 * nothing needs a public URL.
 */
export interface ListenOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  forwardTo: string;
  /** whsec_…: what the receiver verifies with. */
  secret: string;
  /** Printed after the secret: where it comes from (the file that keeps it, or --secret). */
  secretNote: string;
  intervalMs: number;
  write(text: string): void;
  signal: AbortSignal;
  fetch?: typeof fetch;
}

/** How far the cursor trails the newest forwarded event. */
const LAG_MS = 5_000;

interface EventBody {
  id: string;
  type: string;
  [key: string]: unknown;
}

export async function listen(options: ListenOptions): Promise<void> {
  const http = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');
  const signer = new Webhook(options.secret);
  let token: { value: string; renewAt: number } | null = null;

  async function accessToken(): Promise<string> {
    if (token && Date.now() < token.renewAt) return token.value;
    const res = await http(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: options.clientId, client_secret: options.clientSecret }),
      signal: options.signal,
    });
    const body = (await res.json()) as { access_token?: string; expires_in?: number; error_description?: string };
    if (res.status !== 200 || typeof body.access_token !== 'string') {
      throw new CliError(`sign-in refused (${res.status}): ${body.error_description ?? 'check --client-id and --client-secret'}`);
    }
    // Renewed a minute early (or halfway for short tokens).
    const lifeMs = (body.expires_in ?? 3600) * 1000;
    token = { value: body.access_token, renewAt: Date.now() + Math.max(lifeMs - 60_000, lifeMs / 2) };
    return token.value;
  }

  async function events(query: string): Promise<{ data: EventBody[]; has_more: boolean }> {
    for (let attempt = 0; ; attempt++) {
      const res = await http(`${base}/v1/events?${query}`, {
        headers: { authorization: `Bearer ${await accessToken()}` },
        signal: options.signal,
      });
      if (res.status === 401 && attempt === 0) {
        token = null; // revoked or expired early: sign in once more
        await res.body?.cancel();
        continue;
      }
      if (res.status !== 200) throw new CliError(`GET /v1/events answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { data: EventBody[]; has_more: boolean };
    }
  }

  async function forward(event: EventBody): Promise<void> {
    const body = JSON.stringify(event);
    const now = new Date();
    const started = performance.now();
    let outcome: string;
    try {
      const res = await http(options.forwardTo, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': event.id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signer.sign(event.id, now, body),
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.any([options.signal, AbortSignal.timeout(10_000)]),
      });
      await res.body?.cancel();
      outcome = String(res.status);
    } catch (error) {
      if (options.signal.aborted) return;
      outcome = `failed: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`;
    }
    options.write(
      `${now.toISOString()}  ${event.type.padEnd(22)} ${event.id}  → ${outcome} (${Math.round(performance.now() - started)} ms)\n`,
    );
  }

  // Start from the newest event now: only what happens from here on is forwarded.
  const first = await events('limit=1');
  // Event ids are time-ordered by when their statement ran, so one may commit just after a
  // newer one was read. The cursor therefore trails what was forwarded by LAG_MS, and the ids
  // forwarded since are remembered so nothing is sent twice.
  let cursor = first.data[0]?.id ?? null;
  const forwarded = new Map<string, number>();
  options.write(
    `Ready. Forwarding events of ${options.clientId} from ${base} to ${options.forwardTo}\n` +
      `Webhook signing secret: ${options.secret}  (${options.secretNote})\n` +
      'Verify with it as you would a real delivery (Standard Webhooks). Ctrl-C stops.\n',
  );
  while (!options.signal.aborted) {
    try {
      // Newer than the cursor, oldest first, so events reach the receiver in the order they happened.
      const page = await events(cursor ? `limit=100&ending_before=${encodeURIComponent(cursor)}` : 'limit=100');
      const fresh = [...page.data].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      for (const event of fresh) {
        if (options.signal.aborted) return;
        if (forwarded.has(event.id)) continue;
        await forward(event);
        forwarded.set(event.id, Date.now());
      }
      if (page.has_more) {
        cursor = fresh.at(-1)?.id ?? cursor;
        continue;
      }
      const settled = Date.now() - LAG_MS;
      for (const [id, at] of forwarded) {
        if (at > settled) continue;
        if (cursor === null || id > cursor) cursor = id;
      }
      for (const id of forwarded.keys()) if (cursor !== null && id <= cursor) forwarded.delete(id);
    } catch (error) {
      if (options.signal.aborted) return;
      if (error instanceof CliError) throw error;
      options.write(`purse listen: ${(error as Error).message}; retrying\n`);
    }
    await sleep(options.intervalMs, undefined, { signal: options.signal }).catch(() => undefined);
  }
}
