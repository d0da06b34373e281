export interface LedgerLine {
  account: string;
  currency: string;
  /** Signed minor units: positive credits the account, negative debits it. */
  amount: bigint;
}

/** A broken invariant (an unbalanced posting): a bug, never a business outcome. */
export class LedgerInvariantError extends Error {}
