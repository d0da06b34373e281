import { completions } from './charges/store/complete.ts';
import { claims } from './charges/store/create.ts';
import { type WalletPayments, walletPayments } from './charges/store/wallet-payments.ts';
import type { MergedWrite } from './db/group-commit.ts';
import { compileStatement } from './db/statement-text.ts';
import { type Outflows, outflows } from './outflows/store/create.ts';
import { type Transfers, transfers } from './transfers/store.ts';

/**
 * Every money write is ONE merged statement (db/group-commit.ts MergedWrite), the same whether a
 * batch holds one item or many: there is no second, single-row version of any of them.
 */

/** The money writes deps.ts hands the services; the tests may wire broken-on-purpose ones instead. */
export interface MoneyWrites {
  walletPayments: WalletPayments;
  transfers: Transfers;
  outflows: Outflows;
}

export const moneyWrites: MoneyWrites = { walletPayments, transfers, outflows };

/**
 * Each merged write's statement as it runs, committed under src/db/statements/ so that a reviewer
 * reads the real SQL in a diff. test/db/statements.test.ts fails when the code renders something
 * else; `npm run sql:render -w @purse/server` writes them again.
 */
export const RENDERED_STATEMENTS: readonly (readonly [file: string, source: string, write: MergedWrite<never, { id: string }>])[] = [
  ['claims.sql', 'src/charges/store/create.ts', claims as MergedWrite<never, { id: string }>],
  ['completions.sql', 'src/charges/store/complete.ts', completions as MergedWrite<never, { id: string }>],
  ['wallet-payments.sql', 'src/charges/store/wallet-payments.ts', walletPayments as MergedWrite<never, { id: string }>],
  ['refunds-and-payouts.sql', 'src/outflows/store/create.ts', outflows as MergedWrite<never, { id: string }>],
  ['transfers.sql', 'src/transfers/store.ts', transfers as MergedWrite<never, { id: string }>],
];

/** The committed file's text: a header naming its source, then the statement exactly as compiled. */
export function renderedStatement(source: string, write: MergedWrite<never, { id: string }>): string {
  const header = [
    `-- The "${write.name}" statement (${source}), as the code renders it and the group commit sends it.`,
    '-- Generated: npm run sql:render -w @purse/server. Checked by test/db/statements.test.ts.',
    '-- Its parameters are arrays, one element per item of the batch.',
  ];
  return `${header.join('\n')}\n${compileStatement(write.statement).sql.trim()}\n`;
}
