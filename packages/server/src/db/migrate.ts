import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { Db } from './db.ts';
import * as m001 from './migrations/001-foundation.ts';
import * as m002 from './migrations/002-money.ts';
import * as m003 from './migrations/003-webhooks.ts';
import * as m004 from './migrations/004-transfers.ts';
import * as m005 from './migrations/005-ledger-order.ts';
import * as m006 from './migrations/006-money-out.ts';
import * as m007 from './migrations/007-merged-statement-abort.ts';
import * as m008 from './migrations/008-attempt-response-excerpt.ts';
import * as m009 from './migrations/009-card-states.ts';
import * as m010 from './migrations/010-refund-reversal.ts';
import * as m011 from './migrations/011-checkout.ts';
import * as m012 from './migrations/012-people-keys-audit.ts';
import * as m013 from './migrations/013-dashboard-users.ts';

/** Numbered migrations, listed explicitly so bundlers and tsx see them without a directory scan. */
const MIGRATIONS: Record<string, Migration> = {
  '001-foundation': m001,
  '002-money': m002,
  '003-webhooks': m003,
  '004-transfers': m004,
  '005-ledger-order': m005,
  '006-money-out': m006,
  '007-merged-statement-abort': m007,
  '008-attempt-response-excerpt': m008,
  '009-card-states': m009,
  '010-refund-reversal': m010,
  '011-checkout': m011,
  '012-people-keys-audit': m012,
  '013-dashboard-users': m013,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider, migrationTableName: 'purse_migrations', migrationLockTableName: 'purse_migrations_lock' });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
