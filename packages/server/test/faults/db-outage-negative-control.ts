// `db-outage-negative-control`: the db-outage scenario on a private cluster with
// synchronous_commit off, so a commit is acknowledged before its WAL is flushed. An immediate
// stop alone loses little: the WAL writer write()s every completed WAL page at once (PostgreSQL
// 15 wakes it per page), and the kernel keeps written pages when only PostgreSQL dies; only
// the last partial page (a commit or two) is lost. A power cut would also lose what was written
// but not fsynced; to model that, both outage scenarios pause the WAL writer (SIGSTOP) 3 s
// before the stop. With synchronous_commit on each commit flushes its own WAL, so nothing
// acknowledged depends on the WAL writer (db-outage: lost = 0); with it off, the commits of
// those 3 s exist only in shared memory and die with it. The WAL writer and background writer
// settings below keep other paths from flushing early. The checker must see the loss
// (acknowledged-then-lost > 0), proving that db-outage can fail.

import { type OutagePlan, outageScenario } from './db-outage.ts';
import type { Profile, Scenario } from './figures.ts';

const PLANS: Record<Profile, OutagePlan> = {
  // Warm-up past one WAL writer cycle, so the set-up (merchant, token, wallets) is on disk.
  short: { outages: 1, clients: 32, warmMs: 15_000, outageMs: 5_000, tailMs: 3_000, walWriterPauseMs: 3_000 },
  full: { outages: 1, clients: 48, warmMs: 25_000, outageMs: 5_000, tailMs: 3_000, walWriterPauseMs: 3_000 },
};

export const dbOutageNegativeControl: Scenario = outageScenario({
  name: 'db-outage-negative-control',
  settings: {
    fsync: 'on',
    synchronous_commit: 'off',
    wal_writer_delay: "'10s'",
    wal_writer_flush_after: "'1GB'",
    wal_buffers: "'64MB'",
    shared_buffers: "'256MB'",
    bgwriter_lru_maxpages: '0',
    autovacuum: 'off',
    checkpoint_timeout: "'30min'",
    max_wal_size: "'4GB'",
  },
  plan: (profile) => PLANS[profile],
  // Lost charges may be re-created by the replay check; nothing here needs to wait long.
  settleTimeoutMs: 30_000,
  deliveryTimeoutMs: 20_000,
  negativeControl: true,
});
