import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import type { AuthContext } from '../oauth/service.ts';
import type { Clock } from '../shared/clock.ts';
import { ApiError, notFound } from '../shared/errors.ts';
import { isIdOf, newId } from '../shared/ids.ts';
import type { PageRequest } from '../shared/pagination.ts';
import { encryptSecret, newWebhookSecret } from '../shared/secrets.ts';
import { ROTATION_OVERLAP_MS } from './secrets.ts';
import { guardedLookup } from './sender.ts';
import * as store from './store.ts';
import { checkCallbackUrl, URL_PROBLEM_MESSAGES } from './url-guard.ts';
import { endpointView } from './view.ts';

function resolves(hostname: string, allowPrivate: boolean): Promise<boolean> {
  return new Promise((resolve) => guardedLookup(allowPrivate)(hostname, { all: true }, (err) => resolve(err === null)));
}

export function createWebhookService(deps: { db: Db; clock: Clock; config: Config; encryptionKey: Buffer }) {
  const { db, clock, config, encryptionKey } = deps;

  /** Form first, then the host is resolved: an answer in a private range is refused (SSRF). */
  async function checkEndpointUrl(url: string): Promise<void> {
    const problem = checkCallbackUrl(url, config.allowPrivateWebhookUrls);
    if (problem) throw new ApiError('parameter_invalid', `url ${URL_PROBLEM_MESSAGES[problem]}.`, { param: 'url' });
    if (config.allowPrivateWebhookUrls) return;
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (!(await resolves(host, false))) {
      throw new ApiError('parameter_invalid', 'url must resolve to a public address.', { param: 'url' });
    }
  }

  async function owned(auth: AuthContext, id: string) {
    const row = isIdOf('webhookEndpoint', id) ? await store.findEndpoint(db, auth.merchantId, id) : undefined;
    if (!row) throw notFound();
    return row;
  }

  return {
    async createEndpoint(auth: AuthContext, body: { url: string; events?: string[]; description?: string }) {
      await checkEndpointUrl(body.url);
      const events = [...new Set(body.events ?? [])];
      const all = events.length === 0 || events.includes('*');
      const secret = newWebhookSecret();
      const row = await store.insertEndpoint(db, {
        id: newId('webhookEndpoint'),
        merchantId: auth.merchantId,
        url: body.url,
        events: all ? [] : events.sort(),
        description: body.description ?? null,
        secretEnc: encryptSecret(encryptionKey, secret),
        livemode: auth.livemode,
        now: clock.now(),
      });
      return endpointView(row, secret);
    },

    async getEndpoint(auth: AuthContext, id: string) {
      return endpointView(await owned(auth, id));
    },

    async listEndpoints(auth: AuthContext, page: PageRequest) {
      const { rows, hasMore } = await store.listEndpoints(db, auth.merchantId, page);
      return { object: 'list' as const, data: rows.map((r) => endpointView(r)), has_more: hasMore };
    },

    async deleteEndpoint(auth: AuthContext, id: string) {
      await owned(auth, id);
      const now = clock.now();
      const row = await store.updateEndpoint(db, auth.merchantId, id, { status: 'deleted' }, now);
      if (!row) throw notFound();
      await store.failPendingDeliveries(db, id, 'endpoint deleted', now);
      return { id, object: 'webhook_endpoint' as const, deleted: true as const };
    },

    /** New secret; the old one keeps signing next to it for 24 h (both signatures are sent). */
    async rotateSecret(auth: AuthContext, id: string) {
      const current = await owned(auth, id);
      const now = clock.now();
      const secret = newWebhookSecret();
      const row = await store.updateEndpoint(
        db,
        auth.merchantId,
        id,
        {
          secret_enc: encryptSecret(encryptionKey, secret),
          previous_secret_enc: current.secret_enc,
          previous_secret_expires_at: new Date(now.getTime() + ROTATION_OVERLAP_MS),
        },
        now,
      );
      if (!row) throw notFound();
      return endpointView(row, secret);
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
