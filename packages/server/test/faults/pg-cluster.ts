// A private PostgreSQL cluster for one fault scenario: its own data directory under /tmp, its own
// port on 127.0.0.1, its own socket directory. The machine's shared cluster is never touched.
// initdb and pg_ctl refuse to run as root, so as root they run as the postgres user (runuser).
import { execFile } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, sleep } from '../helpers/processes.ts';

export interface PgCluster {
  port: number;
  /** postgres://postgres@127.0.0.1:PORT/NAME */
  url(database?: string): string;
  dataDir: string;
  /** `pg_ctl stop -m immediate`: every backend dies at once, nothing is flushed on the way out. */
  stopImmediate(): Promise<void>;
  /**
   * SIGSTOP to the cluster's WAL writer (by its pid, a child of this cluster's postmaster):
   * from now on WAL reaches the kernel only when a backend flushes it itself, which a commit
   * does with synchronous_commit on and does not with it off. The next immediate stop kills it
   * (the postmaster SIGKILLs children that ignore SIGQUIT after 5 s). Returns the pid.
   */
  pauseWalWriter(): number;
  start(): Promise<void>;
  /** The tail of the cluster's log, for a report. */
  log(): string;
  /** Stops the cluster (if it runs) and deletes its directory. */
  destroy(): Promise<void>;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  if (versions.length === 0) throw new Error(`no PostgreSQL binaries under ${root}/*/bin (initdb, pg_ctl)`);
  versions.sort((a, b) => Number(b) - Number(a));
  return join(root, versions[0]!, 'bin');
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function run(cmd: string, args: string[], timeoutMs: number): Promise<string> {
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  return new Promise((resolve, reject) => {
    execFile(file, argv, { timeout: timeoutMs, killSignal: 'SIGKILL', cwd: '/tmp' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${cmd} ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
      else resolve(stdout + stderr);
    });
  });
}

function postgresIds(): { uid: number; gid: number } | null {
  if (!asRoot) return null;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root but there is no postgres user to run initdb as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/**
 * initdb, settings appended to postgresql.conf, start. `settings` override the defaults
 * (fsync on, synchronous_commit on, full_page_writes on).
 */
export async function createPgCluster(settings: Record<string, string> = {}): Promise<PgCluster> {
  const bin = binDir();
  const root = mkdtempSync('/tmp/purse-faults-pg-');
  const ids = postgresIds();
  if (ids) chownSync(root, ids.uid, ids.gid);
  const dataDir = join(root, 'data');
  const logFile = join(root, 'postgres.log');
  const port = await freePort();
  let running = false;
  const pgCtl = (args: string[], timeoutMs = 60_000) => run(join(bin, 'pg_ctl'), ['-D', dataDir, ...args], timeoutMs);

  const cluster: PgCluster = {
    port,
    dataDir,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async stopImmediate() {
      await pgCtl(['stop', '-m', 'immediate', '-w', '-t', '30']);
      running = false;
    },
    pauseWalWriter() {
      const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        try {
          const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
          const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
          if (ppid !== postmaster) continue;
          if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('walwriter')) continue;
          process.kill(Number(entry), 'SIGSTOP');
          return Number(entry);
        } catch {
          /* the process ended meanwhile */
        }
      }
      throw new Error(`no walwriter child of postmaster ${postmaster}`);
    },
    async start() {
      await pgCtl(['start', '-w', '-t', '60', '-l', logFile]);
      running = true;
    },
    log() {
      try {
        return readFileSync(logFile, 'utf8').slice(-4000);
      } catch {
        return '';
      }
    },
    async destroy() {
      if (running || existsSync(join(dataDir, 'postmaster.pid'))) {
        try {
          await pgCtl(['stop', '-m', 'immediate', '-w', '-t', '30']);
        } catch {
          // pg_ctl could not stop it: the postmaster's own pid, from its pid file.
          try {
            const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
            if (pid > 1) process.kill(pid, 'SIGQUIT');
            await sleep(1000);
          } catch {
            /* gone already */
          }
        }
        running = false;
      }
      rmSync(root, { recursive: true, force: true });
    },
  };

  try {
    await run(join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8'], 120_000);
    const all: Record<string, string> = {
      port: String(port),
      listen_addresses: "'127.0.0.1'",
      unix_socket_directories: `'${root}'`,
      fsync: 'on',
      synchronous_commit: 'on',
      full_page_writes: 'on',
      max_connections: '100',
      ...settings,
    };
    appendFileSync(
      join(dataDir, 'postgresql.conf'),
      `\n# purse fault suite\n${Object.entries(all)
        .map(([k, v]) => `${k} = ${v}`)
        .join('\n')}\n`,
    );
    await cluster.start();
    return cluster;
  } catch (error) {
    await cluster.destroy().catch(() => {});
    throw error;
  }
}

/** Creates a database on a cluster (or on the machine's PostgreSQL) through an admin URL. */
export async function createDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
