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
      await store.insertMerchant(db, {
        id: credentials.merchant_id,
        name,
        livemode,
        clientId: credentials.client_id,
        clientSecretHash: keyedHash(hashKey, credentials.client_secret),
        now: clock.now(),
      });
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
      await store.updateMerchantSecret(db, id, keyedHash(hashKey, clientSecret), clock.now());
      changed(row.client_id);
      return ok({ merchant_id: id, client_id: row.client_id, client_secret: clientSecret });
    },

    async setStatus(id: string, status: 'active' | 'disabled'): Promise<Result<MerchantProfile, 'merchant_not_found'>> {
      if (!(await store.updateMerchantStatus(db, id, status, clock.now()))) return err('merchant_not_found');
      const profile = toProfile(present(await store.findMerchant(db, id), 'merchant'));
      changed(profile.client_id);
      return ok(profile);
    },

    /** Whether a live merchant may post card numbers through the API (the operator's decision; sandbox ones always may). */
    async setRawCardData(id: string, allowed: boolean): Promise<Result<MerchantProfile, 'merchant_not_found'>> {
      const updated = await db
        .updateTable('merchants')
        .set({ raw_card_data: allowed, updated_at: clock.now() })
        .where('id', '=', id)
        .executeTakeFirst();
      if (updated.numUpdatedRows === 0n) return err('merchant_not_found');
      return ok(toProfile(present(await store.findMerchant(db, id), 'merchant')));
    },

    countMerchants: () => store.countMerchants(db),
  };
}

export type MerchantService = ReturnType<typeof createMerchantService>;
