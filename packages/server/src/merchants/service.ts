import { insertApiKey } from '../api-keys/store.ts';
import { operatorEntry } from '../audit/entry.ts';
import { appendAudit } from '../audit/store.ts';
import type { AuditEntry } from '../audit/types.ts';
import type { Db } from '../db/db.ts';
import type { Clock } from '../shared/clock.ts';
import { newId } from '../shared/ids.ts';
import { present } from '../shared/invariant.ts';
import { err, ok, type Result } from '../shared/result.ts';
import { CLIENT_SECRET_PREFIXES, keyedHash, newSecret } from '../shared/secrets.ts';
import * as store from './store.ts';

export interface MerchantProfile {
  id: string;
  object: 'merchant';
  name: string;
  status: 'active' | 'disabled';
  livemode: boolean;
  client_id: string;
  created_at: string;
}

export interface MerchantCredentials {
  merchant_id: string;
  client_id: string;
  client_secret: string;
}

type MerchantRow = NonNullable<Awaited<ReturnType<typeof store.findMerchant>>>;

export function toProfile(row: MerchantRow): MerchantProfile {
  return {
    id: row.id,
    object: 'merchant',
    name: row.name,
    status: row.status,
    livemode: row.livemode,
    client_id: row.client_id,
    created_at: row.created_at.toISOString(),
  };
}

/** The merchant, its first key (scope all, whose client id the merchant row names), and the first record of its audit chain. */
async function insertNewMerchant(
  db: Db,
  m: { credentials: MerchantCredentials; name: string; livemode: boolean; secretHash: string },
  now: Date,
): Promise<void> {
  const { merchant_id: merchantId, client_id: clientId } = m.credentials;
  await db.transaction().execute(async (trx) => {
    await store.insertMerchant(trx, { id: merchantId, name: m.name, livemode: m.livemode, clientId, now });
    await insertApiKey(trx, {
      id: newId('apiKey'),
      merchantId,
      name: 'Default key',
      clientId,
      secretHash: m.secretHash,
      scopes: ['all'],
      now,
    });
    await appendAudit(trx, [operatorEntry(merchantId, 'merchant.created', { name: m.name, livemode: m.livemode })], now);
  });
}

/** An operator's change to a merchant row and its audit record, in one transaction; false: no such merchant. */
async function changeMerchant(db: Db, change: (trx: Db) => Promise<boolean>, record: AuditEntry, now: Date): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (!(await change(trx))) return false;
    await appendAudit(trx, [record], now);
    return true;
  });
}

export function createMerchantService(deps: { db: Db; clock: Clock; hashKey: Buffer; onCredentialsChanged?: (clientId: string) => void }) {
  const { db, clock, hashKey } = deps;
  const changed = (clientId: string) => deps.onCredentialsChanged?.(clientId);
  const secretFor = (livemode: boolean) => newSecret(CLIENT_SECRET_PREFIXES[livemode ? 'live' : 'test']);

  return {
    async createMerchant(input: { name: string; livemode?: boolean }): Promise<Result<MerchantCredentials, 'name_invalid'>> {
      const name = input.name.trim();
      if (name.length === 0 || name.length > 200) return err('name_invalid');
      const livemode = input.livemode ?? false;
      const credentials = { merchant_id: newId('merchant'), client_id: newId('client'), client_secret: secretFor(livemode) };
      await insertNewMerchant(db, { credentials, name, livemode, secretHash: keyedHash(hashKey, credentials.client_secret) }, clock.now());
      return ok(credentials);
    },

    async getMerchant(id: string): Promise<MerchantProfile | null> {
      const row = await store.findMerchant(db, id);
      return row ? toProfile(row) : null;
    },

    async listMerchants(): Promise<MerchantProfile[]> {
      return (await store.listMerchants(db)).map(toProfile);
    },

    async rotateSecret(id: string): Promise<Result<MerchantCredentials, 'merchant_not_found'>> {
      const row = await store.findMerchant(db, id);
      if (!row) return err('merchant_not_found');
      const clientSecret = secretFor(row.livemode);
      const now = clock.now();
      const rotate = (trx: Db) => store.updateMerchantSecret(trx, id, keyedHash(hashKey, clientSecret), now);
      await changeMerchant(db, rotate, operatorEntry(id, 'merchant.secret_rotated'), now);
      changed(row.client_id);
      return ok({ merchant_id: id, client_id: row.client_id, client_secret: clientSecret });
    },

    async setStatus(id: string, status: 'active' | 'disabled'): Promise<Result<MerchantProfile, 'merchant_not_found'>> {
      const now = clock.now();
      const record = operatorEntry(id, status === 'active' ? 'merchant.enabled' : 'merchant.disabled', { status });
      if (!(await changeMerchant(db, (trx) => store.updateMerchantStatus(trx, id, status, now), record, now)))
        return err('merchant_not_found');
      const profile = toProfile(present(await store.findMerchant(db, id), 'merchant'));
      changed(profile.client_id);
      return ok(profile);
    },

    /** Whether a live merchant may post card numbers through the API (the operator's decision; sandbox ones always may). */
    async setRawCardData(id: string, allowed: boolean): Promise<Result<MerchantProfile, 'merchant_not_found'>> {
      const now = clock.now();
      const set = async (trx: Db) =>
        (await trx.updateTable('merchants').set({ raw_card_data: allowed, updated_at: now }).where('id', '=', id).executeTakeFirst())
          .numUpdatedRows > 0n;
      if (!(await changeMerchant(db, set, operatorEntry(id, 'merchant.updated', { raw_card_data: allowed }), now)))
        return err('merchant_not_found');
      return ok(toProfile(present(await store.findMerchant(db, id), 'merchant')));
    },

    countMerchants: () => store.countMerchants(db),
  };
}

export type MerchantService = ReturnType<typeof createMerchantService>;
