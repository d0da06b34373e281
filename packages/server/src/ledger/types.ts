export interface LedgerLine {
  account: string;
  currency: string;
  /** Signed minor units: positive credits the account, negative debits it. */
  amount: bigint;
}

export interface LedgerPosting {
  merchantId: string;
  sourceType: 'payment' | 'topup';
  sourceId: string;
  createdAt: Date;
  lines: LedgerLine[];
}

export type PostingError = 'insufficient_funds' | 'wallet_inactive';

/** A broken invariant (an unbalanced posting): a bug, never a business outcome. */
export class LedgerInvariantError extends Error {}
