// The minimal group-commit reference's self-check (bench/minimal-server.ts): after its load, what
// its tables hold must be exactly what it answered 201, with the rows each payment implies.
import type pg from 'pg';

/** Each wallet's balance when the minimal server starts, in minor units (as the bench funds its wallets: 1,000,000.00). */
export const MINIMAL_FUNDING = 100_000_000n;

interface Stored {
  succeeded: number;
  failed: number;
  entries: number;
  events: number;
  paid: string;
  debited: string;
}

/**
 * The row note's check: the server's own count of 201s (GET /stats, which answers once its queue
 * is empty) against the stored payments, ledger entries (two per succeeded payment), events (one
 * per payment) and wallet debits (the succeeded amounts). wrk counts fewer 201s than the server
 * when requests were in flight as the load stopped.
 */
export async function minimalCheck(db: pg.Client, base: string, wrk201: number): Promise<string> {
  const stats = (await (await fetch(`${base}/stats`)).json()) as { answered: Record<string, number> };
  const answered = stats.answered['201'] ?? 0;
  const { rows } = await db.query<Stored>(
    `SELECT (SELECT count(*) FROM bench_minimal.payments WHERE status = 'succeeded')::int AS succeeded,
            (SELECT count(*) FROM bench_minimal.payments WHERE status = 'failed')::int AS failed,
            (SELECT count(*) FROM bench_minimal.ledger_entries)::int AS entries,
            (SELECT count(*) FROM bench_minimal.events)::int AS events,
            (SELECT coalesce(sum(amount), 0) FROM bench_minimal.payments WHERE status = 'succeeded')::text AS paid,
            (SELECT count(*) * $1::bigint - sum(balance) FROM bench_minimal.wallets)::text AS debited`,
    [MINIMAL_FUNDING.toString()],
  );
  const s = rows[0]!;
  const stored = s.succeeded + s.failed;
  const problems = [
    stored === answered ? '' : `stored ${stored} ≠ answered 201 ${answered}`,
    s.entries === 2 * s.succeeded ? '' : `${s.entries} ledger entries for ${s.succeeded} succeeded`,
    s.events === stored ? '' : `${s.events} events for ${stored} payments`,
    s.paid === s.debited ? '' : `wallets debited ${s.debited}, succeeded payments ${s.paid}`,
  ].filter(Boolean);
  const counts = `${stored} payments stored (${s.succeeded} succeeded, ${s.failed} failed), ${s.entries} ledger entries, ${s.events} events; the server answered 201 ${answered} times, wrk counted ${wrk201}`;
  return problems.length ? `CHECK FAILED: ${problems.join('; ')}; ${counts}` : `check: ${counts}; rows and debits match`;
}
