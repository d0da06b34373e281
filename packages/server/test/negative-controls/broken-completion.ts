// A checkout session completed by a check-then-act: the status is read, then updated without the
// `status = 'open'` condition, so concurrent syncs each "complete" it and each write the event.
// Wired only through buildDeps' `completeSession` option; production code has no way to choose it.
import { sql } from 'kysely';
import type { completeSession } from '../../src/checkout/store.ts';
import type { SessionRow } from '../../src/checkout/view.ts';
import { insertEvents } from '../../src/events/store.ts';
import { newId } from '../../src/shared/ids.ts';

export const checkThenActCompletion: typeof completeSession = async (db, id, paymentId, now, event) => {
  const current = await db.selectFrom('checkout_sessions').select('status').where('id', '=', id).executeTakeFirst();
  if (current?.status === 'expired') return undefined;
  await new Promise((resolve) => setTimeout(resolve, 5));
  const at = now.toISOString();
  const when = sql`${at}::timestamptz`;
  const result = await sql<SessionRow>`
    WITH upd AS (
      UPDATE checkout_sessions SET status = 'complete', payment_id = ${paymentId}, completed_at = ${at}::timestamptz, updated_at = ${at}::timestamptz
      WHERE id = ${id}
      RETURNING *
    ), evs AS (${insertEvents(sql`upd s`, { merchantId: sql`s.merchant_id`, objectId: sql`s.id`, livemode: sql`s.livemode`, at: when }, [
      { id: newId('event'), type: event.type, payload: event.payload },
    ])})
    SELECT * FROM upd`.execute(db);
  return result.rows[0];
};
