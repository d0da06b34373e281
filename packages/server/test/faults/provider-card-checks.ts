// The checks of `provider-card` (provider-card.ts), from the clients' acknowledgements, Purse's
// database and the fake acquirer's own records of what it did.
import { sql } from 'kysely';
import type { FakeAcquirer } from '../fakes/acquirer.ts';
import { ledgerImbalance, type openDb } from './durability.ts';
import type { Figures } from './figures.ts';

/** One acknowledged payment: its request, and the last state a 2xx told the client. */
export interface Acked {
  id: string;
  phase: string;
  body: Record<string, unknown>;
  manual: boolean;
  declined: boolean;
  status: string;
  /** The status the capture's 2xx answered, when the payment was captured. */
  captureAcked?: string;
}

export interface PaymentState {
  id: string;
  status: string;
  pending_operation: string | null;
  provider_reference: string | null;
  amount_received: string | null;
  postings: number;
  created_events: number;
  final_events: number;
}

export async function paymentStates(db: ReturnType<typeof openDb>, ids: string[]): Promise<Map<string, PaymentState>> {
  if (ids.length === 0) return new Map();
  const r = await sql<PaymentState>`
    SELECT c.id, c.status, c.pending_operation, c.provider_reference, c.amount_received::text,
      (SELECT count(*)::int FROM ledger_transactions t WHERE t.source_id = c.id) AS postings,
      (SELECT count(*)::int FROM events e WHERE e.object_id = c.id AND e.type = 'payment.created') AS created_events,
      (SELECT count(*)::int FROM events e WHERE e.object_id = c.id
        AND e.type IN ('payment.succeeded', 'payment.failed', 'payment.captured', 'payment.canceled')) AS final_events
    FROM charges c WHERE c.id IN (${sql.join(ids)})`.execute(db.db);
  return new Map(r.rows.map((row) => [row.id, row]));
}

/** pending < requires_* < final: a state may only move right. */
const RANK: Record<string, number> = { pending: 0, requires_action: 1, requires_capture: 1, succeeded: 2, failed: 2, canceled: 2 };
const FINAL = new Set(['succeeded', 'failed', 'canceled']);

/** The Purse status the acquirer's intent stands for; no intent at all → failed (nothing was taken). */
function acquirerTruth(intent: Record<string, unknown> | undefined): string {
  if (!intent) return 'failed';
  switch (intent.status) {
    case 'succeeded':
      return 'succeeded';
    case 'requires_capture':
      return 'requires_capture';
    case 'requires_action':
      return 'requires_action';
    case 'canceled':
      return 'canceled';
    case 'requires_payment_method':
      return 'failed';
    default:
      return `acquirer ${String(intent.status)}`;
  }
}

export interface CardCheck {
  figures: Pick<Figures, 'lost' | 'duplicates' | 'unresolved' | 'ledgerImbalance' | 'eventsMissing'>;
  problems: string[];
  details: Record<string, unknown>;
}

function checkPayment(a: Acked, s: PaymentState | undefined, fake: FakeAcquirer, out: CardCheck, samples: Record<string, string[]>) {
  const note = (kind: string, line: string) => {
    samples[kind] ??= [];
    samples[kind].push(line);
  };
  if (!s) {
    out.figures.lost++;
    return note('lost', `${a.phase}: ${a.id} not in the database`);
  }
  // Acknowledged then lost: a final state changed, or the state moved back.
  if ((FINAL.has(a.status) && s.status !== a.status) || (RANK[s.status] ?? 0) < (RANK[a.status] ?? 0)) {
    out.figures.lost++;
    note('lost', `${a.phase}: ${a.id} acknowledged ${a.status}, now ${s.status}`);
  }
  const counts = fake.counts(a.id);
  if (counts.authorisations > 1 || counts.captures > 1) {
    out.figures.duplicates++;
    note('twice', `${a.phase}: ${a.id} ${counts.authorisations} authorisations, ${counts.captures} captures`);
  }
  if (counts.authorisations === 0) note('notAuthorised', `${a.phase}: ${a.id} (${s.status}) never reached the acquirer`);
  if (a.manual && s.status === 'succeeded' && counts.captures !== 1)
    note('captures', `${a.phase}: ${a.id} captured ${counts.captures} times`);
  const reference = s.provider_reference ?? fake.intentsFor(a.id)[0];
  const truth = acquirerTruth(reference ? fake.intent(reference) : undefined);
  if (s.status !== truth) note('notAcquirers', `${a.phase}: ${a.id} ${s.status}, acquirer ${truth}`);
  const expected = a.declined ? 'failed' : a.manual && a.captureAcked ? 'succeeded' : a.manual ? 'requires_capture' : 'succeeded';
  if (s.status !== expected) note('unexpected', `${a.phase}: ${a.id} ${s.status}, the card says ${expected}`);
  if (s.status === 'pending' || s.pending_operation !== null) {
    out.figures.unresolved++;
    note('unresolved', `${a.phase}: ${a.id} ${s.status} ${s.pending_operation ?? ''}`);
  }
  if (s.postings > 1) out.figures.duplicates++;
  if ((s.status === 'succeeded') !== (s.postings === 1)) note('postings', `${a.phase}: ${a.id} ${s.status} with ${s.postings} postings`);
  if (s.created_events !== 1 || (FINAL.has(s.status) && s.final_events !== 1)) {
    out.figures.eventsMissing++;
    note('events', `${a.phase}: ${a.id} ${s.created_events} created, ${s.final_events} final events`);
  }
}

async function checkRefunds(
  db: ReturnType<typeof openDb>,
  fake: FakeAcquirer,
  refunds: { id: string; paymentId: string; status: string }[],
  out: CardCheck,
  samples: Record<string, string[]>,
) {
  if (refunds.length === 0) return;
  const rows = await sql<{ id: string; status: string; provider_reference: string | null }>`
    SELECT id, status, provider_reference FROM outflows WHERE id IN (${sql.join(refunds.map((r) => r.id))})`.execute(db.db);
  const byId = new Map(rows.rows.map((r) => [r.id, r]));
  for (const r of refunds) {
    const row = byId.get(r.id);
    const sent = fake.counts(r.paymentId).refunds;
    if (!row || (FINAL.has(r.status) && row.status !== r.status)) out.figures.lost++;
    if (sent > 1) out.figures.duplicates++;
    if (row?.status === 'pending') out.figures.unresolved++;
    const atAcquirer = row?.provider_reference ? fake.refund(row.provider_reference) : undefined;
    const truth = atAcquirer ? String(atAcquirer.status) : 'absent';
    if ((row?.status === 'succeeded') !== (truth === 'succeeded') || sent !== 1) {
      samples.refunds ??= [];
      samples.refunds.push(`${r.id}: ${row?.status ?? 'missing'}, acquirer ${truth}, ${sent} refunds sent`);
    }
  }
}

/** Every check of the scenario; the figures are the suite's must-be-zero ones, the rest are problems. */
export async function checkCards(
  db: ReturnType<typeof openDb>,
  fake: FakeAcquirer,
  acked: Acked[],
  refunds: { id: string; paymentId: string; status: string }[],
): Promise<CardCheck> {
  const out: CardCheck = {
    figures: { lost: 0, duplicates: 0, unresolved: 0, ledgerImbalance: 0, eventsMissing: 0 },
    problems: [],
    details: {},
  };
  const samples: Record<string, string[]> = {};
  const states = await paymentStates(
    db,
    acked.map((a) => a.id),
  );
  for (const a of acked) checkPayment(a, states.get(a.id), fake, out, samples);
  await checkRefunds(db, fake, refunds, out, samples);
  const ledger = await ledgerImbalance(db);
  out.figures.ledgerImbalance = ledger.count;
  const described: Record<string, string> = {
    twice: 'authorised or captured twice at the acquirer',
    notAuthorised: 'payments that never reached the acquirer',
    captures: 'captured payments without exactly one capture',
    notAcquirers: "states other than the acquirer's",
    unexpected: 'states other than the test card decides',
    postings: 'postings that do not match the state',
    refunds: "refunds not the acquirer's or not sent exactly once",
  };
  for (const [kind, lines] of Object.entries(samples))
    if (described[kind]) out.problems.push(`${lines.length} ${described[kind]}: ${lines.slice(0, 4).join('; ')}`);
  const statuses: Record<string, number> = {};
  for (const s of states.values()) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
  out.details = {
    payments: acked.length,
    automatic: acked.filter((a) => !a.manual).length,
    captured: acked.filter((a) => a.captureAcked).length,
    refunds: refunds.length,
    finalStatuses: statuses,
    authorisationsAtAcquirer: fake.operations.filter((o) => o.operation === 'authorisation').length,
    capturesAtAcquirer: fake.operations.filter((o) => o.operation === 'capture').length,
    refundsAtAcquirer: fake.operations.filter((o) => o.operation === 'refund').length,
    webhookDeliveries: fake.webhooks.deliveries.length,
    ledgerTransactions: ledger.report.transactions,
    ...(samples.lost || samples.unresolved || samples.events
      ? { lostSamples: samples.lost, unresolvedSamples: samples.unresolved, eventSamples: samples.events }
      : {}),
    ...(ledger.count > 0 ? { ledgerReport: ledger.report } : {}),
  };
  return out;
}
