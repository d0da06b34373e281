import { createHash } from 'node:crypto';
import type { Db } from '../db/db.ts';
import { chainOf, headOf } from './store.ts';

export type ChainVerdict =
  | { ok: true; merchantId: string; records: number }
  | { ok: false; merchantId: string; records: number; brokenAt: { seq: number; id: string | null }; reason: string };

const hashOf = (previous: string, content: string) => createHash('sha256').update(`${previous}|${content}`, 'utf8').digest('hex');

/**
 * Recomputes a merchant's chain from its first record and names the first broken link: a record
 * whose content no longer gives its hash (changed), whose previous hash or seq does not follow
 * the record before (deleted or inserted), or a head that is not the last record (deleted at the end).
 */
export async function verifyChain(db: Db, merchantId: string): Promise<ChainVerdict> {
  const rows = await chainOf(db, merchantId);
  let previous = '';
  let expected = 1;
  const broken = (seq: number, id: string | null, reason: string): ChainVerdict => ({
    ok: false,
    merchantId,
    records: rows.length,
    brokenAt: { seq, id },
    reason,
  });
  for (const row of rows) {
    const seq = Number(row.seq);
    if (seq !== expected) return broken(expected, row.id, `record ${expected} is missing or out of place (found seq ${seq})`);
    if (row.prev_hash !== previous)
      return broken(seq, row.id, 'its previous hash is not the hash of the record before (a record was removed or inserted)');
    if (hashOf(previous, row.content) !== row.hash)
      return broken(seq, row.id, 'its content does not give its hash (the record was changed)');
    previous = row.hash;
    expected += 1;
  }
  const head = await headOf(db, merchantId);
  const last = expected - 1;
  if (head !== undefined && (Number(head.seq) !== last || head.hash !== previous))
    return broken(last + 1, null, `the chain ends at record ${last} but its head says ${head.seq} (records were removed at the end)`);
  return { ok: true, merchantId, records: rows.length };
}

/** Every merchant's chain (or the given merchants'). */
export async function verifyAll(db: Db, merchantIds?: readonly string[]): Promise<ChainVerdict[]> {
  const ids = merchantIds ?? (await db.selectFrom('merchants').select('id').orderBy('id').execute()).map((m) => m.id);
  const out: ChainVerdict[] = [];
  for (const id of ids) out.push(await verifyChain(db, id));
  return out;
}
