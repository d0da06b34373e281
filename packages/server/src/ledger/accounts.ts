import { newId } from '../shared/ids.ts';

/**
 * Ledger account names. Only wallets keep a cached balance (they must never go negative);
 * a merchant's collected funds and the outside world are sums of append-only entries, so
 * concurrent payments of one merchant never queue on one balance row.
 */
export const walletAccount = (walletId: string): string => `wallet:${walletId}`;
export const isWalletAccount = (account: string): boolean => account.startsWith('wallet:');
export const merchantAccount = (merchantId: string, currency: string): string => `merchant:${merchantId}:${currency}`;
/** Funds of the merchant held by pending refunds and payouts: its sum is merchant_balances.reserved. */
export const reservedAccount = (merchantId: string, currency: string): string => `reserved:${merchantId}:${currency}`;
/** Money arriving from or leaving to the outside world through a provider and means. */
export const providerAccount = (provider: string, method: string, currency: string): string => `provider:${provider}:${method}:${currency}`;

/**
 * The id of a new entry on `account`. A wallet's entries are its public transactions (`wtx_`,
 * listed under the wallet); every other account's entries are internal (`len_`).
 */
export const newEntryId = (account: string): string => newId(isWalletAccount(account) ? 'walletTransaction' : 'ledgerEntry');
