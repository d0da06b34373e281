import type { Db } from '../db/db.ts';
import type { AuthContext } from '../oauth/service.ts';
import type { Clock } from '../shared/clock.ts';
import { notFound } from '../shared/errors.ts';
import { isIdOf } from '../shared/ids.ts';
import type { PageRequest } from '../shared/pagination.ts';
import * as webhookStore from '../webhooks/store.ts';
import { deliveryView } from '../webhooks/view.ts';
import * as store from './store.ts';
import { eventView } from './view.ts';

export function createEventService(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;

  async function owned(auth: AuthContext, id: string) {
    const row = isIdOf('event', id) ? await store.findEvent(db, auth.merchantId, id) : undefined;
    if (!row) throw notFound();
    return row;
  }

  async function deliveries(eventId: string) {
    const { deliveries: rows, attempts } = await webhookStore.listDeliveries(db, eventId);
    return {
      object: 'list' as const,
      data: rows.map((d) =>
        deliveryView(
          d,
          attempts.filter((a) => a.delivery_id === d.id),
        ),
      ),
      has_more: false,
    };
  }

  return {
    async getEvent(auth: AuthContext, id: string) {
      return eventView(await owned(auth, id));
    },

    async listEvents(auth: AuthContext, filters: { type?: string; objectId?: string }, page: PageRequest) {
      const { rows, hasMore } = await store.listEvents(db, auth.merchantId, filters, page);
      return { object: 'list' as const, data: rows.map(eventView), has_more: hasMore };
    },

    async listDeliveries(auth: AuthContext, id: string) {
      await owned(auth, id);
      return deliveries(id);
    },

    /** Every delivery of the event is due again now; endpoints added since get one too. */
    async redeliver(auth: AuthContext, id: string) {
      const event = await owned(auth, id);
      const object = (event.data as { object: { callback_url?: string | null } }).object;
      await webhookStore.scheduleRedelivery(db, event, object.callback_url ?? null, clock.now());
      return deliveries(id);
    },
  };
}

export type EventService = ReturnType<typeof createEventService>;
