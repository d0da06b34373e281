// `provider-mtn` and `provider-mpesa`: a live merchant's payments, payouts and refunds through the
// real connectors, against the fakes of MTN MoMo and M-Pesa Daraja over HTTP, with a spawned
// server on the machine's PostgreSQL. Each fault in turn: answers lost after the provider acted,
// 500s, no callback, callbacks twice, callbacks that contradict the status call, forged callbacks
// (to the true callback URL learnt from the provider, and with an altered token), and kill -9 of
// the server while the provider holds its answer to requests it has already acted on. Then:
//   - no customer prompted twice: one provider transaction per Purse object (for MTN, one
//     X-Reference-Id; a repeat with the same one is MTN's own idempotency), one B2C per outflow;
//   - nothing applied from an unconfirmed callback: every final state is the provider's truth
//     (no transaction at the provider → never succeeded), forged claims change nothing;
//   - nothing lost: every acknowledged object is there and its acknowledged final state holds;
//   - one posting per charge, one hold and one final posting per outflow, the ledger balanced,
//     one created and one final event each, no 5xx;
//   - `purse reconcile` afterwards finds no mismatch (every final state already agrees).
import { sql } from 'kysely';
import { runCli } from '../../src/cli/run.ts';
import { accountReferenceOf, mpesaKeys, originatorIdOf } from '../../src/connectors/mpesa/transformers.ts';
import { deriveHashKey } from '../../src/deps.ts';
import { createMerchantService } from '../../src/merchants/service.ts';
import { systemClock } from '../../src/shared/clock.ts';
import { fakeMpesaEnv, MPESA_SUFFIXES, startFakeMpesa } from '../fakes/mpesa.ts';
import { type FakeMtn, fakeMtnEnv, MTN_SUFFIXES, startFakeMtn } from '../fakes/mtn.ts';
import { freePort, parallel, type SpawnedServer, sleep, spawnServer, tokenFor, waitReady } from '../helpers/processes.ts';
import { Cleanups, durabilityEnv, FAULT_SECRET_KEY, ledgerImbalance, type openDb, recordFailure, scenarioDatabase } from './durability.ts';
import { emptyFigures, type Profile, type Scenario, type ScenarioResult } from './figures.ts';
import { Http } from './provider-faults-support.ts';

type Kind = 'payment' | 'payout' | 'refund';
type Fault = 'none' | 'lost answers' | '500s' | 'no callback' | 'callbacks twice' | 'contradicting callbacks';

/** What the fault suite needs of a fake provider, whichever it is. */
interface Provider {
  name: 'mtn' | 'mpesa';
  env(publicUrl: string): Record<string, string>;
  currency: string;
  amounts: { payment: string; payout: string; refund: string };
  phone(suffix: string): string;
  suffixes: { success: string; failure: string; never: string };
  setFault(fault: Fault, count: number): void;
  holdAnswers(ms: number): void;
  /** Milliseconds between acting and the final state (and the callback). */
  settleDelay(ms: number): void;
  /** Provider transactions made for this Purse object (a customer prompted, money sent). */
  transactions(kind: Kind, id: string): number;
  /** The provider's final truth for the object: from the number it went to, if it exists at all. */
  truth(kind: Kind, id: string): 'succeeded' | 'failed' | 'pending' | 'absent';
  /** The callback URL the provider was given for this payment (what a forger could learn). */
  callbackUrl(id: string): string | null;
  /** A false success claim for a payment, in this provider's callback shape. */
  falseSuccess(id: string): { method: string; body: string };
  /**
   * Money out is settled by the provider's callback alone (Daraja's B2C Result: no status call):
   * without callbacks it stays pending, and a callback that contradicts is the provider's answer.
   */
  outflowsByCallbackOnly: boolean;
  close(): Promise<void>;
}

/** Both fakes take their faults the same way (M-Pesa's are a superset of MTN's). */
interface FaultableFake {
  settleDelayMs: number;
  faults: FakeMtn['faults'];
}

function faultControls(fake: FaultableFake): Pick<Provider, 'setFault' | 'holdAnswers' | 'settleDelay'> {
  return {
    setFault(fault, count) {
      fake.faults.loseAnswers = fault === 'lost answers' ? count : 0;
      fake.faults.errors500 = fault === '500s' ? count : 0;
      fake.faults.callbacks = fault === 'no callback' ? 'never' : fault === 'callbacks twice' ? 'twice' : 'once';
      fake.faults.contradictingCallbacks = fault === 'contradicting callbacks';
    },
    holdAnswers: (ms) => {
      fake.faults.holdAnswersMs = ms;
    },
    settleDelay: (ms) => {
      fake.settleDelayMs = ms;
    },
  };
}

async function mtnProvider(): Promise<Provider> {
  const fake = await startFakeMtn({ settleDelayMs: 300 });
  const truthOf = (suffix: string) =>
    suffix === MTN_SUFFIXES.success ? 'succeeded' : suffix === MTN_SUFFIXES.neverSettles ? 'pending' : 'failed';
  return {
    name: 'mtn',
    env: (publicUrl) => fakeMtnEnv(fake, publicUrl),
    currency: 'EUR',
    amounts: { payment: '20.00', payout: '3.00', refund: '2.00' },
    phone: (suffix) => `+256771${String(Math.floor(Math.random() * 1e3)).padStart(3, '0')}${suffix}`,
    suffixes: { success: MTN_SUFFIXES.success, failure: MTN_SUFFIXES.notEnoughFunds, never: MTN_SUFFIXES.neverSettles },
    ...faultControls(fake),
    // Distinct X-Reference-Ids: a repeat with the same one is answered 409 and prompts nobody.
    transactions: (_kind, id) => new Set(fake.creates.filter((c) => c.externalId === id).map((c) => c.referenceId)).size,
    truth(_kind, id) {
      const t = fake.byExternalId(id);
      if (!t) return 'absent';
      const party = (t.product === 'collection' ? t.body.payer : t.body.payee) as { partyId: string };
      return truthOf(party.partyId.slice(-3));
    },
    callbackUrl: (id) => fake.callbackUrlOf(id),
    falseSuccess: (id) => ({
      method: 'PUT',
      body: JSON.stringify({ externalId: id, status: 'SUCCESSFUL', amount: '20.00', currency: 'EUR', financialTransactionId: '1' }),
    }),
    outflowsByCallbackOnly: false,
    close: () => fake.close(),
  };
}

async function mpesaProvider(): Promise<Provider> {
  const fake = await startFakeMpesa({ settleDelayMs: 300 });
  const originatorKey = mpesaKeys(deriveHashKey(FAULT_SECRET_KEY)).originator;
  const pushesOf = (id: string) => fake.pushes.filter((p) => p.body.AccountReference === accountReferenceOf(id));
  const b2cOf = (id: string) => fake.b2cPaid.filter((b) => b.originatorConversationId === originatorIdOf(originatorKey, id));
  const truthOf = (suffix: string) =>
    suffix === MPESA_SUFFIXES.success ? 'succeeded' : suffix === MPESA_SUFFIXES.neverSettles ? 'pending' : 'failed';
  return {
    name: 'mpesa',
    env: (publicUrl) => fakeMpesaEnv(fake, publicUrl),
    currency: 'KES',
    // B2C takes whole shillings from 10.
    amounts: { payment: '200.00', payout: '20.00', refund: '10.00' },
    phone: (suffix) => `+254712${String(Math.floor(Math.random() * 1e3)).padStart(3, '0')}${suffix}`,
    suffixes: { success: MPESA_SUFFIXES.success, failure: MPESA_SUFFIXES.cancelled, never: MPESA_SUFFIXES.neverSettles },
    ...faultControls(fake),
    transactions: (kind, id) => (kind === 'payment' ? pushesOf(id).length : b2cOf(id).length),
    truth(kind, id) {
      const made = kind === 'payment' ? pushesOf(id)[0] : b2cOf(id)[0];
      if (!made) return 'absent';
      return truthOf(String(kind === 'payment' ? made.body.PhoneNumber : made.body.PartyB).slice(-3));
    },
    callbackUrl: (id) => {
      const url = pushesOf(id)[0]?.body.CallBackURL;
      return typeof url === 'string' ? url : null;
    },
    falseSuccess: (id) => {
      const push = pushesOf(id)[0];
      return {
        method: 'POST',
        body: JSON.stringify({
          Body: {
            stkCallback: {
              MerchantRequestID: push?.merchantRequestId ?? 'x',
              CheckoutRequestID: push?.checkoutRequestId ?? 'ws_CO_forged',
              ResultCode: 0,
              ResultDesc: 'The service request is processed successfully.',
              CallbackMetadata: {
                Item: [
                  { Name: 'Amount', Value: 200 },
                  { Name: 'MpesaReceiptNumber', Value: 'FORGED0001' },
                ],
              },
            },
          },
        }),
      };
    },
    outflowsByCallbackOnly: true,
    close: () => fake.close(),
  };
}

const PROFILES = {
  short: { perFault: 4, killed: 6, forged: 3 },
  full: { perFault: 16, killed: 20, forged: 10 },
} as const;
const FAULTS: Fault[] = ['none', 'lost answers', '500s', 'no callback', 'callbacks twice', 'contradicting callbacks'];
const PATHS: Record<Kind, string> = { payment: '/v1/payments', payout: '/v1/payouts', refund: '/v1/refunds' };
const SETTLE_TIMEOUT_MS = 90_000;

interface Op {
  kind: Kind;
  ref: string;
  body: Record<string, unknown>;
  /** What the number decides at the provider (pending: a number that never settles). */
  expected: 'succeeded' | 'failed' | 'pending';
  phase: string;
}
interface Acked {
  op: Op;
  id: string;
  status: string;
}

interface ObjectState {
  id: string;
  status: string;
  postings: number;
  holds: number;
  finals: number;
  created_events: number;
  final_events: number;
}

async function states(db: ReturnType<typeof openDb>, ids: string[]): Promise<Map<string, ObjectState>> {
  if (ids.length === 0) return new Map();
  const r = await sql<ObjectState>`
    SELECT o.id, o.status,
      (SELECT count(*)::int FROM ledger_transactions t WHERE t.source_id = o.id) AS postings,
      (SELECT count(*)::int FROM ledger_transactions t WHERE t.source_id = o.id AND t.step = 'hold') AS holds,
      (SELECT count(*)::int FROM ledger_transactions t WHERE t.source_id = o.id AND t.step = 'final') AS finals,
      (SELECT count(*)::int FROM events e WHERE e.object_id = o.id AND e.type LIKE '%.created') AS created_events,
      (SELECT count(*)::int FROM events e WHERE e.object_id = o.id AND (e.type LIKE '%.succeeded' OR e.type LIKE '%.failed')) AS final_events
    FROM (SELECT id, status FROM charges WHERE id IN (${sql.join(ids)})
          UNION ALL SELECT id, status FROM outflows WHERE id IN (${sql.join(ids)})) o`.execute(db.db);
  return new Map(r.rows.map((row) => [row.id, row]));
}

function connectorScenario(name: string, start: () => Promise<Provider>): Scenario {
  return {
    name,
    async run(profile: Profile): Promise<ScenarioResult> {
      const p = PROFILES[profile];
      const figures = emptyFigures();
      const problems: string[] = [];
      const details: Record<string, unknown> = {};
      const cleanups = new Cleanups();
      try {
        const provider = await start();
        cleanups.after(() => provider.close());
        const dbName = `purse_faults_${provider.name}_${Date.now().toString(36)}`;
        const { databaseUrl, db } = await scenarioDatabase(cleanups, dbName);
        const port = await freePort();
        const env = {
          ...durabilityEnv(databaseUrl, port),
          ...provider.env(`http://127.0.0.1:${port}`),
          PURSE_PROVIDER_TIMEOUT_MS: '2000',
          PURSE_MOBILE_MONEY_EXPIRY_S: '60',
        };
        let server: SpawnedServer = spawnServer(cleanups, env);
        await waitReady(server, 60_000);
        const merchants = createMerchantService({ db: db.db, clock: systemClock, hashKey: deriveHashKey(FAULT_SECRET_KEY) });
        const created = await merchants.createMerchant({ name: `Live shop (${provider.name})`, livemode: true });
        if (!created.ok) throw new Error(created.error);
        const auth = await tokenFor(server.base, created.value.client_id, created.value.client_secret);
        const http = new Http(server.base);
        const headers = { ...auth, 'content-type': 'application/json' };
        const acked: Acked[] = [];
        let seq = 0;
        const runId = `${provider.name}-${Date.now().toString(36)}`;

        const paymentOp = (phase: string, suffix: string, expected: Op['expected']): Op => {
          const ref = `${runId}-${seq++}`;
          return {
            kind: 'payment',
            ref,
            phase,
            expected,
            body: {
              reference: ref,
              amount: provider.amounts.payment,
              currency: provider.currency,
              payment_method: { type: 'mobile_money', mobile_money: { phone_number: provider.phone(suffix), provider: provider.name } },
            },
          };
        };
        const payoutOp = (phase: string): Op => {
          const ref = `${runId}-${seq++}`;
          return {
            kind: 'payout',
            ref,
            phase,
            expected: 'succeeded',
            body: {
              reference: ref,
              amount: provider.amounts.payout,
              currency: provider.currency,
              destination: {
                type: 'mobile_money',
                mobile_money: { phone_number: provider.phone(provider.suffixes.success), provider: provider.name },
              },
            },
          };
        };
        const refundOp = (phase: string, paymentId: string): Op => {
          const ref = `${runId}-${seq++}`;
          return {
            kind: 'refund',
            ref,
            phase,
            expected: 'succeeded',
            body: { reference: ref, payment_id: paymentId, amount: provider.amounts.refund },
          };
        };

        /** The same request until a 2xx, as a merchant's client does (connection errors while the server is down included). */
        const send = async (op: Op, deadline: number): Promise<void> => {
          for (let attempt = 0; Date.now() < deadline; attempt++) {
            try {
              const res = await http.send('POST', PATHS[op.kind], JSON.stringify(op.body), headers);
              if (res.status === 200 || res.status === 201) {
                acked.push({ op, id: res.body.id, status: res.body.status });
                return;
              }
              if (res.status < 500 && res.status !== 429) {
                problems.push(`${op.phase}: ${op.kind} refused ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
                return;
              }
            } catch {
              // The server is down (killed): try again.
            }
            await sleep(Math.min(1000, 50 * 2 ** attempt));
          }
          problems.push(`${op.phase}: ${op.kind} ${op.ref} never acknowledged`);
        };
        const sendAll = (ops: Op[]) => parallel(ops, 16, (op) => send(op, Date.now() + 60_000));
        const waitFinal = async (ids: string[]) => {
          const deadline = Date.now() + SETTLE_TIMEOUT_MS;
          for (;;) {
            const s = await states(db, ids);
            if ([...s.values()].every((x) => x.status !== 'pending') || Date.now() > deadline) return;
            await sleep(200);
          }
        };
        const idsOf = (phase: string, expected?: Op['expected']) =>
          acked.filter((a) => a.op.phase === phase && (!expected || a.op.expected === expected)).map((a) => a.id);

        // Each fault in turn, on payments (one failure number per phase too): each phase settles before the next.
        const phaseSeconds: Record<string, number> = {};
        for (const fault of FAULTS) {
          const started = Date.now();
          const ops = [
            ...Array.from({ length: p.perFault }, () => paymentOp(fault, provider.suffixes.success, 'succeeded')),
            paymentOp(fault, provider.suffixes.failure, 'failed'),
          ];
          provider.setFault(fault, ops.length);
          await sendAll(ops);
          await waitFinal(idsOf(fault));
          provider.setFault('none', 0);
          phaseSeconds[fault] = Math.round((Date.now() - started) / 100) / 10;
        }

        // Money out under the same faults: payouts from what came in, refunds of succeeded payments.
        const succeededPayments = acked.filter((a) => a.op.kind === 'payment' && a.op.expected === 'succeeded').map((a) => a.id);
        let refundable = 0;
        // Daraja's B2C Result is its only word on money out: no Result leaves it pending (the
        // money stays reserved; nothing is guessed), and a contradicting one is not a fault that
        // can exist. Those two are left out for M-Pesa's outflows.
        const outFaults = provider.outflowsByCallbackOnly
          ? FAULTS.filter((f) => f !== 'no callback' && f !== 'contradicting callbacks')
          : FAULTS;
        for (const fault of outFaults) {
          const started = Date.now();
          const phase = `out: ${fault}`;
          const ops = [
            payoutOp(phase),
            ...(refundable < succeededPayments.length ? [refundOp(phase, succeededPayments[refundable++]!)] : []),
          ];
          provider.setFault(fault, ops.length);
          await sendAll(ops);
          await waitFinal(idsOf(phase));
          provider.setFault('none', 0);
          phaseSeconds[phase] = Math.round((Date.now() - started) / 100) / 10;
        }

        // Forged callbacks on payments that never settle: the true URL with a false claim, the
        // URL with its token altered, and no token at all. None may change anything.
        const forgedOps = Array.from({ length: p.forged }, () => paymentOp('forged', provider.suffixes.never, 'pending'));
        await sendAll(forgedOps);
        const forgedStatuses: Record<string, number> = {};
        for (const id of idsOf('forged')) {
          const url = provider.callbackUrl(id);
          if (!url) {
            problems.push(`forged: the provider has no callback URL for ${id}`);
            continue;
          }
          const claim = provider.falseSuccess(id);
          const path = url.slice(url.indexOf('/provider-callbacks/'));
          const altered = path.replace(/=([^&]*)$/, (_m, v: string) => `=${v.slice(0, -2)}${v.endsWith('AA') ? 'BB' : 'AA'}`);
          for (const target of [path, altered, path.split('?')[0]!]) {
            const res = await http.send(claim.method, target, claim.body, { 'content-type': 'application/json' });
            figures.probes++;
            forgedStatuses[res.status] = (forgedStatuses[res.status] ?? 0) + 1;
            if (target !== path && res.status < 400)
              problems.push(`a forged callback (${target === altered ? 'altered token' : 'no token'}) was answered ${res.status}`);
          }
        }
        await sleep(1000);

        // kill -9 while the provider holds its answers to requests it has acted on; the clients
        // retry their references until a 2xx. The callbacks come 30 s after acting, after the
        // restart even on a loaded machine (12.6 s seen): Daraja does not resend a callback, and a
        // push whose answer and callback were both lost can only expire (reconcile: unverifiable).
        // The expiry (60 s) is past the callbacks; the 500s phase waits for it.
        provider.holdAnswers(3_000);
        provider.settleDelay(30_000);
        const killOps = [
          ...Array.from({ length: p.killed }, () => paymentOp('kill', provider.suffixes.success, 'succeeded')),
          ...Array.from({ length: Math.ceil(p.killed / 3) }, () => payoutOp('kill')),
          ...succeededPayments.slice(refundable, refundable + Math.ceil(p.killed / 3)).map((id) => refundOp('kill', id)),
        ];
        const killLoad = parallel(killOps, killOps.length, (op) => send(op, Date.now() + 90_000));
        await sleep(1_000);
        if (!server.running()) throw new Error(`server ${server.pid} died on its own:\n${server.output().slice(-2000)}`);
        process.kill(server.pid, 'SIGKILL');
        await server.exited;
        figures.kills++;
        provider.holdAnswers(0);
        const killedAt = Date.now();
        server = spawnServer(cleanups, env);
        await waitReady(server, 60_000);
        details.restartSeconds = Math.round((Date.now() - killedAt) / 100) / 10;
        await killLoad;
        await waitFinal(idsOf('kill'));
        provider.settleDelay(300);

        // The checks, from the acknowledgements and the provider's own records.
        const all = await states(
          db,
          acked.map((a) => a.id),
        );
        const mismatches: string[] = [];
        const prompted: string[] = [];
        for (const a of acked) {
          const s = all.get(a.id);
          if (!s) {
            figures.lost++;
            continue;
          }
          if ((a.status === 'succeeded' || a.status === 'failed') && s.status !== a.status) figures.lost++;
          const made = provider.transactions(a.op.kind, a.id);
          if (made > 1) {
            figures.duplicates++;
            prompted.push(`${a.id} ×${made}`);
          }
          const truth = provider.truth(a.op.kind, a.id);
          // No transaction at the provider: Purse never calls it a success.
          const expected = truth === 'absent' ? 'failed' : truth;
          if (s.status !== expected) mismatches.push(`${a.op.phase} ${a.op.kind} ${a.id}: ${s.status}, provider ${truth}`);
          if (s.status === 'pending' && a.op.expected !== 'pending') figures.unresolved++;
          if (a.op.kind === 'payment' && s.postings > 1) figures.duplicates++;
          if (a.op.kind !== 'payment' && (s.holds > 1 || s.finals > 1)) figures.duplicates++;
          if (s.created_events !== 1 || (s.status !== 'pending' && s.final_events !== 1)) figures.eventsMissing++;
        }
        if (mismatches.length > 0)
          problems.push(`${mismatches.length} objects whose state is not the provider's: ${mismatches.slice(0, 5).join('; ')}`);
        if (prompted.length > 0) problems.push(`prompted or paid twice: ${prompted.slice(0, 5).join(', ')}`);
        figures.ledgerImbalance = (await ledgerImbalance(db)).count;
        figures.requests = http.requests;
        figures.acknowledged = acked.length;
        figures.unexpected5xx = http.unexpected5xx;

        // purse reconcile afterwards: everything already agrees with the provider.
        let out = '';
        let err = '';
        const code = await runCli(['reconcile', '--provider', provider.name, '--since', '1h', '--json'], {
          env: { ...env, PORT: undefined },
          stdout: (s) => {
            out += s;
          },
          stderr: (s) => {
            err += s;
          },
        });
        const report =
          code === 0 ? (JSON.parse(out.trim().split('\n').at(-1) as string) as { checked: number; mismatches: unknown[] }) : null;
        if (!report) problems.push(`purse reconcile exited ${code}: ${err.slice(0, 300)}`);
        else if (report.mismatches.length > 0)
          problems.push(`purse reconcile found ${report.mismatches.length} mismatches: ${JSON.stringify(report.mismatches.slice(0, 3))}`);

        if (!server.running()) problems.push(`the last server exited:\n${server.output().slice(-2000)}`);
        Object.assign(details, {
          provider: provider.name,
          byStatus: http.statuses,
          forgedCallbackAnswers: forgedStatuses,
          objects: Object.fromEntries(['payment', 'payout', 'refund'].map((k) => [k, acked.filter((a) => a.op.kind === k).length])),
          killedPhase: idsOf('kill').length,
          phaseSeconds,
          reconcileChecked: report?.checked ?? null,
          mismatches: mismatches.length,
        });
      } catch (error) {
        recordFailure(problems, details, error);
      } finally {
        problems.push(...(await cleanups.run()));
      }
      return { name, figures, details, problems };
    },
  };
}

export const providerMtn = connectorScenario('provider-mtn', mtnProvider);
export const providerMpesa = connectorScenario('provider-mpesa', mpesaProvider);
