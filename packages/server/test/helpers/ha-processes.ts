// Process bookkeeping for the local PostgreSQL cluster (ha-cluster.ts): detached children started
// as the postgres user, process groups and sessions read from /proc, kills by pid, waits on
// specific pids, and the System V shared memory a killed postmaster leaves behind.
// Linux only (/proc, ipcrm); nothing here kills by name.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { sleep } from './processes.ts';

export const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** The postgres user's ids when running as root (PostgreSQL refuses to run as root); null otherwise. */
export function postgresUser(): { uid: number; gid: number; home: string } | null {
  if (!asRoot) return null;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root but there is no postgres user to run PostgreSQL as');
  const [, , uid, gid, , home] = line.split(':');
  return { uid: Number(uid), gid: Number(gid), home: home ?? '/tmp' };
}

/**
 * Starts `file args` detached (its own process group, whose id is its pid), stdout and stderr
 * appended to `logFile`, as the postgres user when root. The child is not waited for: it
 * outlives this process (`npm run ha:up`) and is stopped by pid.
 */
export function spawnDetached(file: string, args: string[], logFile: string, cwd: string): number {
  const user = postgresUser();
  const fd = openSync(logFile, 'a');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', HOME: cwd };
  try {
    const child = spawn(file, args, {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', fd, fd],
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
    });
    if (child.pid === undefined) throw new Error(`could not start ${file}`);
    child.unref();
    child.on('error', () => {});
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgid: number;
  sid: number;
}

function readStat(pid: number): ProcStat | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, state: f[0]!, ppid: Number(f[1]), pgid: Number(f[2]), sid: Number(f[3]) };
  } catch {
    return null;
  }
}

function allStats(): ProcStat[] {
  const out: ProcStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = readStat(Number(entry));
    if (s) out.push(s);
  }
  return out;
}

/** Alive: present in /proc and not a zombie. */
export function alive(pid: number): boolean {
  const s = readStat(pid);
  return s !== null && s.state !== 'Z' && s.state !== 'X';
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* gone already */
  }
}

/** Waits until every pid is gone (or a zombie); throws after `timeoutMs`. */
export async function waitGone(pids: number[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = pids.filter(alive);
    if (left.length === 0) return;
    if (Date.now() > deadline) throw new Error(`processes still running after ${timeoutMs} ms: ${left.join(', ')}`);
    await sleep(50);
  }
}

/** Alive and its command line contains `needle` (a pid from a file may have been reused by another process). */
export function aliveWith(pid: number, needle: string): boolean {
  if (!alive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle);
  } catch {
    return false;
  }
}

/**
 * From a data directory's postmaster.pid: the postmaster's pid if that process still runs on this
 * data directory (null otherwise), and its System V shared memory id. null without a pid file.
 */
export function postmasterOf(dataDir: string): { pid: number | null; shmid: number | null } | null {
  const file = `${dataDir}/postmaster.pid`;
  if (!existsSync(file)) return null;
  const lines = readFileSync(file, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const shm = (lines[6] ?? '').trim().split(/\s+/);
  const shmid = shm.length === 2 && /^\d+$/.test(shm[1]!) ? Number(shm[1]) : null;
  return { pid: Number.isInteger(pid) && pid > 1 && aliveWith(pid, dataDir) ? pid : null, shmid };
}

/**
 * Kills a whole node at once, like a machine that dies: the postmaster is stopped first (so it
 * forks nothing more), then SIGKILL to every process in the group `groupLeader` leads (Patroni and
 * what it runs: pg_ctl, pg_rewind, pg_basebackup), in the postmaster's session (Patroni starts the
 * postmaster in a session of its own: every backend, the WAL writer, the WAL senders and receiver)
 * and to the postmaster's children. Returns the pids killed, after they are gone.
 */
export async function killNodeProcesses(groupLeader: number | null, postmaster: number | null): Promise<number[]> {
  if (postmaster) signal(postmaster, 'SIGSTOP');
  // The postmaster's session is led by a process that may be gone already (Patroni's launcher).
  const own = readStat(process.pid)?.sid;
  const pmSid = postmaster ? readStat(postmaster)?.sid : undefined;
  const session = pmSid !== undefined && pmSid > 1 && pmSid !== own ? pmSid : null;
  const stats = allStats();
  const victims = stats.filter(
    (s) =>
      (groupLeader !== null && s.pgid === groupLeader) ||
      (postmaster !== null && (s.pid === postmaster || s.ppid === postmaster)) ||
      (session !== null && s.sid === session),
  );
  for (const v of victims) signal(v.pid, 'SIGKILL');
  const pids = victims.map((v) => v.pid);
  await waitGone(pids, 15_000);
  return pids;
}

/** The postmaster's children whose command line names `what` (e.g. "walsender", "walreceiver"). */
export function childrenNamed(postmaster: number, what: string): number[] {
  const out: number[] = [];
  for (const s of allStats()) {
    if (s.ppid !== postmaster) continue;
    try {
      if (readFileSync(`/proc/${s.pid}/cmdline`, 'utf8').includes(what)) out.push(s.pid);
    } catch {
      /* ended meanwhile */
    }
  }
  return out;
}

export function stopProcesses(pids: number[]): void {
  for (const pid of pids) signal(pid, 'SIGSTOP');
}

export function continueProcesses(pids: number[]): void {
  for (const pid of pids) signal(pid, 'SIGCONT');
}

/** SIGTERM to a process group, SIGKILL after `graceMs`; waits for its leader. */
export async function stopGroup(leader: number, graceMs: number): Promise<void> {
  const members = allStats()
    .filter((s) => s.pgid === leader)
    .map((s) => s.pid);
  if (members.length === 0) return;
  signal(-leader, 'SIGTERM');
  try {
    await waitGone(members, graceMs);
  } catch {
    signal(-leader, 'SIGKILL');
    await waitGone(members, 10_000);
  }
}

/**
 * Removes the System V shared memory segments with these ids that no process is attached to (a
 * postmaster killed outright leaves its segment; one that restarts on the same data directory
 * removes it itself). Only the ids given, never any other segment of the machine.
 */
export function removeOrphanSegments(shmids: number[]): number {
  let removed = 0;
  let table = '';
  try {
    table = readFileSync('/proc/sysvipc/shm', 'utf8');
  } catch {
    return 0;
  }
  const nattch = new Map<number, number>();
  for (const line of table.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length > 6) nattch.set(Number(f[1]), Number(f[6]));
  }
  for (const id of new Set(shmids)) {
    if (nattch.get(id) !== 0) continue;
    try {
      execFileSync('ipcrm', ['-m', String(id)], { stdio: 'ignore' });
      removed++;
    } catch {
      /* removed meanwhile */
    }
  }
  return removed;
}
