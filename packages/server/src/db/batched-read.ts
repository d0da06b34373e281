import type pg from 'pg';

/**
 * Point reads by id, batched: while `maxInFlight` queries are out, the lookups that arrive wait,
 * and the next query fetches all of them at once (`WHERE id = ANY($1)`). Self-clocking like the
 * group commit: an idle reader sends a lone lookup at once; under load one query (one socket
 * write, one parse of the answer's description, one plan) serves many requests.
 *
 * Freshness is a lone query's: a lookup is only ever answered by a query sent after it arrived,
 * so a write acknowledged before the request came in is seen. `accept` decides, in code, whether
 * the row may answer the lookup (its merchant, its kind): the query fetches by id alone.
 */
export interface BatchedRead<Lookup, Row> {
  load(lookup: Lookup): Promise<Row | undefined>;
}

export function createBatchedRead<Lookup extends { id: string }, Row extends { id: string }>(options: {
  pool: pg.Pool;
  /** SELECT … WHERE id = ANY($1::text[]): a constant text, prepared once per connection. */
  text: string;
  accept: (lookup: Lookup, row: Row) => boolean;
  maxInFlight: number;
  maxBatch: number;
}): BatchedRead<Lookup, Row> {
  const { pool, text, accept, maxInFlight, maxBatch } = options;
  type Waiting = { lookup: Lookup; resolve: (row: Row | undefined) => void; reject: (error: unknown) => void };
  const queue: Waiting[] = [];
  let inFlight = 0;

  async function run(batch: Waiting[]): Promise<void> {
    try {
      const ids = [...new Set(batch.map((w) => w.lookup.id))];
      const result = await pool.query<Row>(text, [ids]);
      const byId = new Map(result.rows.map((row) => [row.id, row]));
      for (const w of batch) {
        const row = byId.get(w.lookup.id);
        w.resolve(row && accept(w.lookup, row) ? row : undefined);
      }
    } catch (error) {
      for (const w of batch) w.reject(error);
    }
  }

  function pump(): void {
    while (inFlight < maxInFlight && queue.length > 0) {
      inFlight++;
      void run(queue.splice(0, maxBatch)).finally(() => {
        inFlight--;
        pump();
      });
    }
  }

  return {
    load: (lookup) =>
      new Promise<Row | undefined>((resolve, reject) => {
        queue.push({ lookup, resolve, reject });
        pump();
      }),
  };
}
