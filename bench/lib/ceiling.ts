// The database ceiling's pgbench script, rendered from the server's own statement builder.
import { walletPaymentForPgbench } from '../../packages/server/src/charges/pgbench.ts';

/**
 * The ceiling's pgbench script: Purse's wallet-payment create path with no HTTP and no
 * application. Run as
 *   pgbench -n -M prepared -c <clients> -T <s> -f <script> -D merchant=<mer_…> \
 *     -D wallets={wal_…,wal_…} -D nwallets=<N> -D run=<epoch seconds> -D seq=0 <database URL>
 * (-M prepared: Purse names every parameterised statement, so each connection plans it once;
 * pgbench does the same). Each client pays `amount` KES from wallet (client_id mod N).
 *
 * The payment statement is rendered from the server's own builder (charges/pgbench.ts); only
 * the values Purse makes in JavaScript are made here, without SQL: ids are
 * '<prefix>_' || run || n || suffix, 26 characters after the prefix like Purse's TypeIDs and,
 * like them, in creation order (run = epoch seconds, then the clients' counters); the
 * reference 'pgb-' || run || '-' || client || '-' || seq is unique by construction; the
 * statement's time is now().
 */
export function ceilingScript(amount: string): string {
  const id = (prefix: string, suffix: string) => `'${prefix}_' || :run || :n || '${suffix}'`;
  const statement = walletPaymentForPgbench(
    {
      merchantId: ':merchant',
      walletId: ':w_id',
      reference: "'pgb-' || :run || '-' || :client_id || '-' || :seq",
      paymentId: id('pay', '0001'),
      ids: {
        createdEvent: id('evt', '0002'),
        ledgerTransaction: id('ltx', '0003'),
        debitEntry: id('wtx', '0004'),
        creditEntry: id('len', '0005'),
        finalEvent: id('evt', '0006'),
      },
    },
    { amountMinor: BigInt(amount.replace('.', '')), currency: 'KES' }, // KES has two decimals
  );
  return [
    '\\set w :client_id % :nwallets',
    '\\set seq :seq + 1',
    '\\set n 100000000000 + :seq * 10000 + :client_id',
    // prepareCharge's wallet lookup (wallets/store.ts findWallet), its own round trip as in Purse.
    'SELECT * FROM wallets WHERE id = (:wallets::text[])[:w + 1] AND merchant_id = :merchant \\gset w_',
    statement,
    '',
  ].join('\n');
}
