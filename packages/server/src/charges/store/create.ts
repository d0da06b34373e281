import { type RawBuilder, sql } from 'kysely';
import { ctes } from '../../db/cte.ts';
import type { MergedWrite, WriteLane } from '../../db/group-commit.ts';
import { jsonParameter, type MergedColumn, mergedInput } from '../../db/merged-input.ts';
import { insertEvents } from '../../events/store.ts';
import { deliveriesFor } from '../../webhooks/store.ts';
import type { ChargeRow } from '../view.ts';

/** Every column a new charge is written with, and its type, for the statements that insert one. */
const CHARGE_COLUMNS = {
  id: 'text',
  kind: 'text',
  merchant_id: 'text',
  reference: 'text',
  request_fingerprint: 'jsonb',
  status: 'text',
  amount: 'bigint',
  currency: 'text',
  method_type: 'text',
  method: 'jsonb',
  wallet_id: 'text',
  customer: 'jsonb',
  description: 'text',
  metadata: 'jsonb',
  callback_url: 'text',
  failure_code: 'text',
  failure_message: 'text',
  provider: 'text',
  livemode: 'boolean',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  completed_at: 'timestamptz',
  expires_at: 'timestamptz',
  lease_until: 'timestamptz',
  next_check_at: 'timestamptz',
  capture_method: 'text',
  return_url: 'text',
} as const;

/** The card columns a charge that is not a card leaves at their defaults. */
const CARD_DEFAULTS = { capture_method: sql.lit('automatic'), return_url: sql`NULL` };

/** A value per column: an SQL expression, cast to the column's type (the card columns may be left out). */
export type ChargeValues = Omit<Record<keyof typeof CHARGE_COLUMNS, RawBuilder<unknown>>, keyof typeof CARD_DEFAULTS> &
  Partial<Record<keyof typeof CARD_DEFAULTS, RawBuilder<unknown>>>;

/** `INSERT INTO charges (…) SELECT … FROM from`: one new charge per row of `from`, each value cast to its column's type. */
export function insertCharge(given: ChargeValues, from: RawBuilder<unknown>): RawBuilder<unknown> {
  const values = { ...CARD_DEFAULTS, ...given };
  const columns = Object.keys(CHARGE_COLUMNS) as (keyof typeof CHARGE_COLUMNS)[];
  const selected = columns.map((c) => sql`${values[c]}::${sql.raw(CHARGE_COLUMNS[c])}`);
  return sql`INSERT INTO charges (${sql.join(columns.map((c) => sql.ref(c)))})
      SELECT ${sql.join(selected)} FROM ${from}`;
}

/**
 * The group-commit lane of a charge's claim and, for a payment, its settlement: by reference, so
 * one merchant's charges spread over every lane (they share no row but their merchant's balance,
 * which each lane credits on a shard of its own), while two requests for one reference meet in one
 * lane, in arrival order, and never wait on each other's uncommitted row across lanes.
 */
export const chargeLaneKey = (charge: { merchant_id: string; kind: string; reference: string }): string =>
  `${charge.merchant_id}/${charge.kind}/${charge.reference}`;

/** An event a claim writes: its id, type and payload (JSON text). */
export interface ClaimEvent {
  id: string;
  type: string;
  payload: string;
}

/** A claim: the charge as the service rendered it, its created event and, when it is already final, its failed event. */
interface ClaimItem {
  row: ChargeRow;
  created: ClaimEvent;
  failed: ClaimEvent | null;
}

/** A column's parameter: JSON text for jsonb, ISO text for a time, the value otherwise. */
function parameterOf(row: ChargeRow, column: keyof typeof CHARGE_COLUMNS): unknown {
  const value = row[column];
  if (value instanceof Date) return value.toISOString();
  if (CHARGE_COLUMNS[column] === 'jsonb') return jsonParameter(value);
  return value;
}

const CLAIM_INPUT = mergedInput<ClaimItem>([
  ...(Object.entries(CHARGE_COLUMNS) as [keyof typeof CHARGE_COLUMNS, string][]).map(
    ([column, type]): MergedColumn<ClaimItem> => [column, type, (item) => parameterOf(item.row, column)],
  ),
  ['created_event', 'text', (item) => item.created.id],
  ['created_type', 'text', (item) => item.created.type],
  ['created_data', 'text', (item) => item.created.payload],
  ['failed_event', 'text', (item) => item.failed?.id ?? null],
  ['failed_type', 'text', (item) => item.failed?.type ?? null],
  ['failed_data', 'text', (item) => item.failed?.payload ?? null],
]);

function claimsStatement(): RawBuilder<ChargeRow> {
  const {
    input,
    ins,
    evs_created: created,
    evs_failed: failed,
    deliveries,
  } = ctes('input', 'ins', 'evs_created', 'evs_failed', 'deliveries');
  const values = Object.fromEntries(Object.keys(CHARGE_COLUMNS).map((c) => [c, sql.ref(`i.${c}`)])) as ChargeValues;
  const object = { merchantId: sql`c.merchant_id`, objectId: sql`c.id`, livemode: sql`c.livemode`, at: sql`c.created_at` };
  const claimed = sql`${ins.ref} c JOIN ${input.ref} i ON i.id = c.id`;
  return sql<ChargeRow>`
    WITH ${input.ref} AS (${CLAIM_INPUT.select}
    ), ${ins.ref} AS (
      ${insertCharge(values, sql`${input.ref} i`)}
      ON CONFLICT (merchant_id, kind, reference) DO NOTHING
      RETURNING *
    ), ${created.ref} AS (${insertEvents(claimed, object, [{ id: sql<string>`i.created_event`, type: sql<string>`i.created_type`, payload: sql<string>`i.created_data` }])}
    ), ${failed.ref} AS (${insertEvents(sql`${claimed} WHERE i.failed_event IS NOT NULL`, object, [
      { id: sql<string>`i.failed_event`, type: sql<string>`i.failed_type`, payload: sql<string>`i.failed_data` },
    ])}
    ), ${deliveries.ref} AS (${deliveriesFor(sql`(SELECT * FROM ${created.ref} UNION ALL SELECT * FROM ${failed.ref}) ev`, {
      from: sql`${ins.ref} c`,
      on: sql`c.id = ev.object_id`,
      url: sql`c.callback_url`,
    })})
    SELECT * FROM ${ins.ref}`;
}

/**
 * Claims (group-commit.ts MergedWrite), ONE statement for a batch's claims: each charge as the
 * service rendered it (pending, or already failed when no provider call is needed), its events
 * and their deliveries. A reference already taken inserts nothing and has no row (answered
 * undefined): ON CONFLICT DO NOTHING lets the unique index decide, and then no event is written
 * either. Keyed by reference: two claims of one reference are never in one statement.
 */
export const claims: MergedWrite<ClaimItem, ChargeRow> = {
  name: 'claims',
  statement: claimsStatement(),
  columns: CLAIM_INPUT.parameters,
  key: (item) => chargeLaneKey(item.row),
  id: (item) => item.row.id,
  optional: true,
};

/** The claim, merged with the lane's other claims: the new charge's row, or undefined when the reference is taken. */
export function claimCharge(
  lane: WriteLane,
  row: ChargeRow,
  events: { created: ClaimEvent; failed?: ClaimEvent },
): Promise<ChargeRow | undefined> {
  return lane.merge(claims, { row, created: events.created, failed: events.failed ?? null });
}
