import type { Db } from '../db/db.ts';
import { newId } from '../shared/ids.ts';

export type EventType =
  | 'payment.created'
  | 'payment.succeeded'
  | 'payment.failed'
  | 'topup.created'
  | 'topup.succeeded'
  | 'topup.failed';

/**
 * Writes one event in the caller's transaction, together with the state change it reports
 * (the outbox: an event exists if and only if its change committed).
 */
export async function recordEvent(
  trx: Db,
  event: { merchantId: string; type: EventType; object: { id: string; livemode: boolean }; createdAt: Date },
): Promise<string> {
  const id = newId('event');
  await trx
    .insertInto('events')
    .values({
      id,
      merchant_id: event.merchantId,
      type: event.type,
      object_id: event.object.id,
      data: JSON.stringify({ object: event.object }),
      livemode: event.object.livemode,
      created_at: event.createdAt,
    })
    .execute();
  return id;
}
