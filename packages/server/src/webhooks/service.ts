import { auditEntry } from '../audit/entry.ts';
import { withAudit } from '../audit/store.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { eventPayload } from '../events/view.ts';
import type { AuthContext } from '../oauth/service.ts';
import type { Clock } from '../shared/clock.ts';
import { ApiError, notFound } from '../shared/errors.ts';
import { isIdOf, newId } from '../shared/ids.ts';
import type { PageRequest } from '../shared/pagination.ts';
import { encryptSecret, newWebhookSecret, type SecretKeys } from '../shared/secrets.ts';
import { ROTATION_OVERLAP_MS, revealMerchantSigningSecret, rotateMerchantSigningSecret } from './secrets.ts';
import { guardedLookup } from './sender.ts';
import * as store from './store.ts';
import { type AddressPolicy, addressPolicy, checkCallbackUrl, URL_PROBLEM_MESSAGES } from './url-guard.ts';
import { endpointView } from './view.ts';

/** The columns an update sets, from its body. */
function endpointChanges(body: { url?: string; events?: string[]; description?: string | null; status?: 'enabled' | 'disabled' }) {
  const set: Parameters<typeof store.updateEndpoint>[3] = {};
  if (body.url !== undefined) set.url = body.url;
  if (body.events !== undefined) {
    const events = [...new Set(body.events)];
    set.events = events.includes('*') ? [] : events.sort();
  }
  if (body.description !== undefined) set.description = body.description;
  if (body.status !== undefined) set.status = body.status;
  return set;
}

/** An endpoint's change and its audit record, in one transaction; recorded only when the act found the endpoint. */
function audited<T>(
  db: Db,
  r: { auth: AuthContext; now: Date; action: string; id: string; changes?: Record<string, unknown> },
  act: (trx: Db) => Promise<T>,
): Promise<T> {
  const entry = auditEntry(r.auth, r.action, { type: 'webhook_endpoint', id: r.id }, r.changes);
  return withAudit(db, r.now, act, (result) => (result ? entry : null));
}

function resolves(hostname: string, policy: AddressPolicy): Promise<boolean> {
  return new Promise((resolve) => guardedLookup(policy)(hostname, { all: true }, (err) => resolve(err === null)));
}

export function createWebhookService(deps: { db: Db; clock: Clock; config: Config; encryptionKey: SecretKeys }) {
  const { db, clock, config, encryptionKey } = deps;

  /** Form first, then the host is resolved: an answer in a private range is refused (SSRF). */
  async function checkEndpointUrl(url: string, livemode: boolean): Promise<void> {
    const policy = addressPolicy(config, livemode);
    const problem = checkCallbackUrl(url, policy);
    if (problem) throw new ApiError('parameter_invalid', `url ${URL_PROBLEM_MESSAGES[problem]}.`, { param: 'url' });
    if (policy.allowPrivate) return;
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (!(await resolves(host, policy))) {
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
      await checkEndpointUrl(body.url, auth.livemode);
      const events = [...new Set(body.events ?? [])];
      const all = events.length === 0 || events.includes('*');
      const secret = newWebhookSecret();
      const now = clock.now();
      const values = { url: body.url, events: all ? [] : events.sort(), description: body.description ?? null };
      const id = newId('webhookEndpoint');
      const endpoint = {
        id,
        merchantId: auth.merchantId,
        ...values,
        livemode: auth.livemode,
        secretEnc: encryptSecret(encryptionKey, secret),
      };
      const changes = { action: 'webhook_endpoint.created', changes: values };
      const row = await audited(db, { auth, now, id, ...changes }, (trx) => store.insertEndpointWithinLimit(trx, { ...endpoint, now }));
      if (!row)
        throw new ApiError('limit_exceeded', `A merchant can have at most ${store.MAX_ENDPOINTS} webhook endpoints; delete one first.`);
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
      const row = await audited(db, { auth, now, action: 'webhook_endpoint.deleted', id }, (trx) =>
        store.updateEndpoint(trx, auth.merchantId, id, { status: 'deleted' }, now),
      );
      if (!row) throw notFound();
      await store.failPendingDeliveries(db, id, 'endpoint deleted', now);
      return { id, object: 'webhook_endpoint' as const, deleted: true as const };
    },

    /** New secret; the old one keeps signing next to it for 24 h (both signatures are sent). */
    async rotateSecret(auth: AuthContext, id: string) {
      const current = await owned(auth, id);
      const now = clock.now();
      const secret = newWebhookSecret();
      const set = {
        secret_enc: encryptSecret(encryptionKey, secret),
        previous_secret_enc: current.secret_enc,
        previous_secret_expires_at: new Date(now.getTime() + ROTATION_OVERLAP_MS),
      };
      const row = await audited(db, { auth, now, action: 'webhook_endpoint.secret_rotated', id }, (trx) =>
        store.updateEndpoint(trx, auth.merchantId, id, set, now),
      );
      if (!row) throw notFound();
      return endpointView(row, secret);
    },

    /** Edits url, events, description or status; enabling again is how an endpoint disabled by a 410 comes back. */
    async updateEndpoint(
      auth: AuthContext,
      id: string,
      body: { url?: string; events?: string[]; description?: string | null; status?: 'enabled' | 'disabled' },
    ) {
      await owned(auth, id);
      if (body.url !== undefined) await checkEndpointUrl(body.url, auth.livemode);
      const set = endpointChanges(body);
      const now = clock.now();
      const row = await audited(db, { auth, now, action: 'webhook_endpoint.updated', id, changes: { ...set } }, (trx) =>
        store.updateEndpoint(trx, auth.merchantId, id, set, now),
      );
      if (!row) throw notFound();
      return endpointView(row);
    },

    /**
     * A `webhook_endpoint.test` event delivered to this endpoint only, signed and retried like
     * any other; its deliveries show at GET /v1/events/{id}.
     */
    async sendTestEvent(auth: AuthContext, id: string) {
      const endpoint = await owned(auth, id);
      if (endpoint.status !== 'enabled') {
        throw new ApiError('parameter_invalid', 'The endpoint is disabled: enable it (PATCH status "enabled") to send it events.', {
          param: 'id',
        });
      }
      const now = clock.now();
      const eventId = newId('event');
      const payload = eventPayload(endpointView(endpoint));
      await store.insertTestEvent(db, {
        eventId,
        merchantId: auth.merchantId,
        endpoint: { id: endpoint.id, url: endpoint.url },
        livemode: auth.livemode,
        payload,
        now,
      });
      return {
        id: eventId,
        object: 'event' as const,
        type: 'webhook_endpoint.test',
        livemode: auth.livemode,
        created_at: now.toISOString(),
        data: JSON.parse(payload) as { object: Record<string, unknown> },
      };
    },

    /** The merchant's default signing secret, which signs deliveries to a payment's or top-up's callback_url. */
    async merchantSecret(auth: AuthContext) {
      const secret = await revealMerchantSigningSecret(db, encryptionKey, clock, auth.merchantId);
      if (secret === null) throw notFound();
      return { object: 'webhook_secret' as const, secret };
    },

    async rotateMerchantSecret(auth: AuthContext) {
      const record = auditEntry(auth, 'webhook_secret.rotated', { type: 'merchant', id: auth.merchantId });
      const rotate = (trx: Db) => rotateMerchantSigningSecret(trx, encryptionKey, clock, auth.merchantId);
      const secret = await withAudit(db, clock.now(), rotate, (rotated) => (rotated ? record : null));
      if (secret === null) throw notFound();
      return { object: 'webhook_secret' as const, secret };
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
