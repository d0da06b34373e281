import { sql } from 'kysely';
import { Type } from 'typebox';
import type { Db } from '../db/db.ts';
import { unavailableCause } from '../db/errors.ts';
import { ApiError } from '../shared/errors.ts';
import type { Metrics } from './metrics.ts';

/** What /readyz reports of the database (docs/failover.md): the node answering, and its synchronous standbys. */
export const DatabaseStatus = Type.Object(
  {
    writable: Type.Boolean({ description: 'The node answering takes writes: not in recovery, not read-only.' }),
    primary: Type.Object(
      {
        address: Type.Union([Type.String(), Type.Null()], {
          description: 'The address the node answers on (inet_server_addr); null on a socket or the embedded database.',
        }),
        port: Type.Union([Type.Integer(), Type.Null()]),
        system_identifier: Type.String({
          description: 'The cluster it belongs to (pg_control_system): the same on every node of one Patroni cluster.',
        }),
        timeline: Type.Integer({ description: 'Its timeline: one more after each promotion.' }),
      },
      { description: 'The node the connections reach, through HAProxy: the primary when writable.' },
    ),
    synchronous_standbys: Type.Union([Type.Integer(), Type.Null()], {
      description:
        'Standbys replicating synchronously (pg_stat_replication sync_state sync or quorum): 0 means an acknowledged write is on one node only. Null when the role may not read pg_stat_replication (grant pg_monitor).',
    }),
  },
  { description: 'The database as this process sees it.' },
);

export interface DatabaseState {
  writable: boolean;
  primary: { address: string | null; port: number | null; system_identifier: string; timeline: number };
  synchronous_standbys: number | null;
}

interface Row {
  recovery: boolean;
  read_only: string;
  address: string | null;
  port: number | null;
  system_identifier: string;
  timeline: number;
  standbys: number;
  hidden: number;
}

/**
 * One round trip: whether the node takes writes (pg_is_in_recovery, transaction_read_only: a
 * standby, a demoted primary, or `default_transaction_read_only`), who it is, and how many
 * standbys replicate synchronously. Rows of pg_stat_replication whose details this role may not
 * see have a null sync_state: counted apart, so "none" is never claimed from what is hidden.
 */
export async function databaseStatus(db: Db): Promise<DatabaseState> {
  const { rows } = await sql<Row>`SELECT pg_is_in_recovery() AS recovery, current_setting('transaction_read_only') AS read_only,
      host(inet_server_addr()) AS address, inet_server_port() AS port,
      (SELECT system_identifier::text FROM pg_control_system()) AS system_identifier,
      (SELECT timeline_id FROM pg_control_checkpoint()) AS timeline,
      (SELECT count(*) FILTER (WHERE sync_state IN ('sync', 'quorum'))::int FROM pg_stat_replication) AS standbys,
      (SELECT count(*) FILTER (WHERE sync_state IS NULL)::int FROM pg_stat_replication) AS hidden`.execute(db);
  const row = rows[0] as Row;
  return {
    writable: !row.recovery && row.read_only === 'off',
    primary: { address: row.address, port: row.port, system_identifier: row.system_identifier, timeline: row.timeline },
    synchronous_standbys: row.hidden > 0 && row.standbys === 0 ? null : row.standbys,
  };
}

/** /readyz's database check: the status of a writable primary, or 503 (counted by cause) while there is none. */
export async function writablePrimary(
  db: Db,
  metrics: Pick<Metrics, 'observeUnavailable' | 'observeDatabaseAvailable'>,
): Promise<DatabaseState> {
  const unready = (message: string, cause: string) => {
    metrics.observeUnavailable(cause);
    return new ApiError('service_unavailable', message, { headers: { 'retry-after': '2' } });
  };
  let database: DatabaseState;
  try {
    database = await databaseStatus(db);
  } catch (error) {
    throw unready('The database is not reachable.', unavailableCause(error) ?? 'unreachable');
  }
  if (!database.writable) throw unready('The database answers but takes no writes (a standby, or a failover under way).', 'read_only');
  metrics.observeDatabaseAvailable();
  return database;
}
