import { compileStatement } from '../db/statement-text.ts';
import type { AuthContext } from '../oauth/service.ts';
import { type PreparedCharge, pendingRow } from './prepare.ts';
import { type WalletPaymentIds, walletPayments } from './store/wallet-payments.ts';

/**
 * The wallet-payment statement as a pgbench script line, for the benchmark's database ceiling:
 * the very merged statement payFromWallet sends (store/wallet-payments.ts), with one item whose
 * per-request values are pgbench expressions. The bench renders it on every run, so the ceiling
 * can never drift from the create path.
 */

/** pgbench expressions (variables like `:merchant`, or SQL over them) for the per-request values. */
export interface PgbenchValues {
  merchantId: string;
  walletId: string;
  reference: string;
  paymentId: string;
  ids: WalletPaymentIds;
}

/** Stands for the statement's time: as a parameter it becomes now(), inside JSON its ISO text. */
const NOW = new Date(Date.UTC(2001, 0, 1));
const NOW_ISO = NOW.toISOString();
// pgbench reads a colon followed by a letter or digit as a variable, even inside a literal:
// literals spell the colon as an escape.
const literal = (text: string) => `E'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'").replaceAll(':', '\\072')}'`;
const NOW_ISO_SQL = `to_char(now() AT TIME ZONE 'UTC', ${literal('YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')})`;

export function walletPaymentForPgbench(values: PgbenchValues, fixed: { amountMinor: bigint; currency: string }): string {
  const expressions: string[] = [];
  // Private-use characters: JSON.stringify keeps them as they are, so they survive into payloads.
  const token = (expression: string) => `\uE000${expressions.push(expression) - 1}\uE001`;
  const walletId = token(values.walletId);
  const ids = Object.fromEntries(Object.entries(values.ids).map(([k, v]) => [k, token(v)])) as unknown as WalletPaymentIds;
  const auth = { merchantId: token(values.merchantId), livemode: false } as AuthContext;
  const prepared: PreparedCharge = {
    kind: 'payment',
    reference: token(values.reference),
    amountMinor: fixed.amountMinor,
    currency: fixed.currency,
    methodType: 'wallet',
    publicMethod: { type: 'wallet', wallet: { wallet_id: walletId } },
    providerMethod: null,
    walletId,
    walletActive: true,
    customer: null,
    description: null,
    metadata: {},
    callbackUrl: null,
    captureMethod: 'automatic',
    returnUrl: null,
    // Keyed hashes in production; their size is what matters here.
    fingerprint: { amount: 'x'.repeat(43), currency: 'x'.repeat(43), payment_method: 'x'.repeat(43), metadata: 'x'.repeat(43) },
  };
  const base = pendingRow(auth, prepared, token(values.paymentId), NOW, 'purse');
  // The merchant balance shard: random per payment in Purse (creditShard), random per transaction here.
  const shard = token('1 + floor(random() * 15)') as unknown as number;
  const compiled = compileStatement(walletPayments.statement);
  const parameters = walletPayments.columns([{ base, ids, shard }]);
  const render = (value: unknown): string => {
    if (value === NOW || value === NOW_ISO) return 'now()';
    if (value === null) return 'NULL';
    if (typeof value === 'boolean') return String(value);
    if (typeof value !== 'string') throw new Error(`no pgbench form for the parameter ${String(value)}`);
    const parts = value.split(/(\uE000\d+\uE001|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)/).filter((p) => p !== '');
    const sqlParts = parts.map((p) =>
      p === NOW_ISO ? NOW_ISO_SQL : p.startsWith('\uE000') ? `(${expressions[Number(p.slice(1, -1))]})` : literal(p),
    );
    return sqlParts.length === 0 ? "''" : `(${sqlParts.join(' || ')})`;
  };
  // Each parameter is a one-element array (one item); the statement casts it to its column's type.
  const text = compiled.sql.replace(/\$(\d+)/g, (_, n: string) => `ARRAY[${render(parameters[Number(n) - 1]?.[0])}]`);
  if (/(^|[^:]):[A-Za-z0-9_]/.test(compiled.sql)) throw new Error('the statement has a single colon pgbench would read as a variable');
  // pgbench takes one command per line unless it ends with a semicolon; keep it on one line.
  return `${text.replace(/\s+/g, ' ').trim()};`;
}
