import type { Static } from 'typebox';
import { auditEntry } from '../audit/entry.ts';
import { withAudit } from '../audit/store.ts';
import { checkCurrency, checkCustomer, checkReference } from '../charges/input.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { merchantFunds } from '../ledger/merchant-balance.ts';
import type { AuthContext } from '../oauth/service.ts';
import type { Clock } from '../shared/clock.ts';
import { notFound } from '../shared/errors.ts';
import { fingerprint } from '../shared/fingerprint.ts';
import { type IdKind, isIdOf, newId } from '../shared/ids.ts';
import { present } from '../shared/invariant.ts';
import { formatAmount } from '../shared/money.ts';
import type { PageRequest } from '../shared/pagination.ts';
import { type Created, referenceConflict, sameRequest } from '../shared/replay.ts';
import type { CreateWalletBody } from './schemas.ts';
import * as store from './store.ts';
import { type WalletView, walletTransactionView, walletView } from './view.ts';

/** Freezes or unfreezes a wallet, with its audit record in the same transaction. */
function setStatusAudited(db: Db, auth: AuthContext, id: string, status: 'active' | 'inactive', now: Date) {
  const record = auditEntry(auth, status === 'inactive' ? 'wallet.frozen' : 'wallet.unfrozen', { type: 'wallet', id }, { status });
  return withAudit(
    db,
    now,
    (trx) => store.setWalletStatus(trx, auth.merchantId, id, status, now),
    (updated) => (updated ? record : null),
  );
}

export function createWalletService(deps: { db: Db; clock: Clock; config: Config; hashKey: Buffer }) {
  const { db, clock, config, hashKey } = deps;

  async function findOwned(auth: AuthContext, id: string) {
    if (!isIdOf('wallet' satisfies IdKind, id)) return undefined;
    return store.findWallet(db, auth.merchantId, id);
  }

  return {
    async createWallet(auth: AuthContext, body: Static<typeof CreateWalletBody>): Promise<Created<WalletView>> {
      const currency = checkCurrency(body.currency, config);
      const reference = body.reference === undefined ? null : checkReference(body.reference);
      const holder = checkCustomer(body.holder, 'holder');
      const metadata = body.metadata ?? {};
      const fp = fingerprint(hashKey, { currency, holder, metadata });
      const row = await store.insertWallet(db, {
        id: newId('wallet'),
        merchantId: auth.merchantId,
        currency,
        reference,
        fingerprint: fp,
        holder,
        metadata,
        livemode: auth.livemode,
        now: clock.now(),
      });
      if (row) return { created: true, object: walletView(row) };
      const existing = await store.findWalletByReference(db, auth.merchantId, present(reference, 'reference'));
      if (!existing) throw new Error('wallet reference conflict without a row');
      const stored = existing.request_fingerprint as Record<string, string>;
      if (!sameRequest(stored, fp)) throw referenceConflict(present(reference, 'reference'), existing.id, stored, fp);
      return { created: false, object: walletView(existing) };
    },

    async getWallet(auth: AuthContext, id: string): Promise<WalletView> {
      const row = await findOwned(auth, id);
      if (!row) throw notFound();
      return walletView(row);
    },

    async listWallets(auth: AuthContext, page: PageRequest) {
      const { rows, hasMore } = await store.listWallets(db, auth.merchantId, page);
      return { object: 'list' as const, data: rows.map(walletView), has_more: hasMore };
    },

    async setStatus(auth: AuthContext, id: string, status: 'active' | 'inactive'): Promise<WalletView> {
      if (!isIdOf('wallet', id)) throw notFound();
      const row = await setStatusAudited(db, auth, id, status, clock.now());
      if (!row) throw notFound();
      return walletView(row);
    },

    async listTransactions(auth: AuthContext, id: string, page: PageRequest) {
      if (!(await findOwned(auth, id))) throw notFound();
      const { rows, hasMore } = await store.listWalletEntries(db, id, page);
      return { object: 'list' as const, data: rows.map(walletTransactionView), has_more: hasMore };
    },

    async getBalance(auth: AuthContext) {
      const funds = await merchantFunds(db, auth.merchantId);
      return {
        object: 'balance' as const,
        available: funds.map((f) => ({ currency: f.currency, amount: formatAmount(f.available, f.currency) })),
        reserved: funds.map((f) => ({ currency: f.currency, amount: formatAmount(f.reserved, f.currency) })),
        livemode: auth.livemode,
      };
    },
  };
}

export type WalletService = ReturnType<typeof createWalletService>;
