import type { FastifyBaseLogger } from 'fastify';
import { Webhook } from 'standardwebhooks';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import type { Clock } from '../shared/clock.ts';
import { createPoller } from '../shared/poller.ts';
import type { SecretKeys } from '../shared/secrets.ts';
import { merchantSigningSecrets, signingSecrets } from './secrets.ts';
import { postWebhook, type SendResult } from './sender.ts';
import * as store from './store.ts';
import { addressPolicy } from './url-guard.ts';

const BATCH = 20;
/** The claim outlives the send timeout by this much, so a live sender never loses it; a dead one's is free again soon. */
const LEASE_MARGIN_MS = 5_000;

/** The exact bytes sent and signed: the event object, stable across attempts. */
export function eventPayload(event: { id: string; type: string; created_at: Date; livemode: boolean; data: unknown }): string {
  return JSON.stringify({
    id: event.id,
    object: 'event',
    type: event.type,
    livemode: event.livemode,
    created_at: event.created_at.toISOString(),
    data: event.data,
  });
}

/** Exponential schedule from config with ±20 % jitter, so retries from many events spread out. */
export function nextAttemptAt(now: Date, attempt: number, scheduleS: readonly number[], random = Math.random): Date | null {
  const base = scheduleS[attempt - 1];
  if (base === undefined) return null;
  return new Date(now.getTime() + base * 1000 * (0.8 + 0.4 * random()));
}

/**
 * At-least-once delivery from the outbox: claims due deliveries (SKIP LOCKED + lease, so
 * several processes never send the same attempt), signs with Standard Webhooks, POSTs with a
 * timeout and no redirects, records every attempt, retries on the schedule, disables on 410.
 */
export function createDeliveryWorker(deps: { db: Db; clock: Clock; config: Config; encryptionKey: SecretKeys; log: FastifyBaseLogger }) {
  const { db, clock, config, encryptionKey, log } = deps;

  async function secretsFor(delivery: store.DeliveryRow, now: Date): Promise<string[] | 'endpoint_gone'> {
    if (delivery.endpoint_id === null) return merchantSigningSecrets(db, encryptionKey, delivery.merchant_id, now);
    const endpoint = await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', delivery.endpoint_id).executeTakeFirst();
    if (endpoint?.status !== 'enabled') return 'endpoint_gone';
    return signingSecrets(
      encryptionKey,
      { current: endpoint.secret_enc, previous: endpoint.previous_secret_enc, previousExpiresAt: endpoint.previous_secret_expires_at },
      now,
    );
  }

  async function deliver(delivery: store.DeliveryRow): Promise<void> {
    const now = clock.now();
    const event = await db.selectFrom('events').selectAll().where('id', '=', delivery.event_id).executeTakeFirstOrThrow();
    const secrets = await secretsFor(delivery, now);
    if (secrets === 'endpoint_gone') {
      await store.recordAttempt(
        db,
        delivery,
        { at: now, statusCode: null, latencyMs: 0, error: 'endpoint disabled or deleted' },
        { status: 'failed', nextAttemptAt: null },
      );
      return;
    }
    const body = eventPayload(event);
    const signature = secrets.map((s) => new Webhook(s).sign(event.id, now, body)).join(' ');
    const headers = {
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signature,
    };
    const result = await postWebhook(delivery.url, body, headers, {
      timeoutMs: config.webhookTimeoutMs,
      policy: addressPolicy(config, event.livemode),
    });
    const at = clock.now();
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const error = ok
      ? null
      : (result.error ??
        (result.statusCode !== null && result.statusCode >= 300 && result.statusCode < 400
          ? `HTTP ${result.statusCode}: redirects are not followed`
          : `HTTP ${result.statusCode}`));
    if (!ok && result.statusCode === 410 && delivery.endpoint_id) {
      // 410 Gone: the merchant retired this endpoint; stop sending to it. Unless the merchant
      // changed the endpoint while this attempt was out (enabled it again after an earlier 410):
      // a stale answer never overrides that; it is then an ordinary failed attempt, retried.
      const disabled = await db
        .updateTable('webhook_endpoints')
        .set({ status: 'disabled', updated_at: at })
        .where('id', '=', delivery.endpoint_id)
        .where('updated_at', '<=', now)
        .executeTakeFirst();
      if (disabled.numUpdatedRows === 0n) {
        // Not disabled by this answer: another 410 did it already (this delivery ends too), or
        // the merchant changed the endpoint meanwhile and it is enabled (an ordinary failure).
        const current = await db.selectFrom('webhook_endpoints').select('status').where('id', '=', delivery.endpoint_id).executeTakeFirst();
        if (current?.status === 'enabled') return recordFailure(delivery, at, result, 'HTTP 410');
      }
      await store.recordAttempt(
        db,
        delivery,
        { at, statusCode: 410, latencyMs: result.latencyMs, error: 'HTTP 410: endpoint disabled', responseExcerpt: result.responseExcerpt },
        { status: 'failed', nextAttemptAt: null },
      );
      await store.failPendingDeliveries(db, delivery.endpoint_id, 'endpoint disabled after HTTP 410', at);
      return;
    }
    if (ok) {
      await store.recordAttempt(
        db,
        delivery,
        { at, statusCode: result.statusCode, latencyMs: result.latencyMs, error: null },
        { status: 'delivered', nextAttemptAt: null },
      );
      return;
    }
    await recordFailure(delivery, at, result, error);
  }

  /** A failed attempt: retried on the schedule, failed once it runs out. */
  async function recordFailure(delivery: store.DeliveryRow, at: Date, result: SendResult, error: string | null): Promise<void> {
    const next = nextAttemptAt(at, delivery.attempts, config.webhookRetryScheduleS);
    await store.recordAttempt(
      db,
      delivery,
      { at, statusCode: result.statusCode, latencyMs: result.latencyMs, error, responseExcerpt: result.responseExcerpt },
      { status: next ? 'pending' : 'failed', nextAttemptAt: next },
    );
  }

  async function runOnce(): Promise<number> {
    const now = clock.now();
    const due = await store.claimDueDeliveries(db, now, new Date(now.getTime() + config.webhookTimeoutMs + LEASE_MARGIN_MS), BATCH);
    await Promise.all(
      due.map((d) =>
        deliver(d).catch((error: unknown) =>
          log.error({ err: error, delivery_id: d.id }, 'webhook delivery failed; it will be retried after its lease'),
        ),
      ),
    );
    return due.length;
  }

  return createPoller({ name: 'webhooks', runOnce, batch: BATCH, intervalMs: config.workerIntervalMs, log });
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
