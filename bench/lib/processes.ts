// Child processes of the bench (Purse servers, the reference servers, wrk, pgbench, the operator command)
// and CPU accounting from /proc. Every child is tracked by pid and stopped by pid, never by name.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createWriteStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';

const children = new Map<number, Spawned>();

export interface Spawned {
  name: string;
  child: ChildProcess;
  pid: number;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  exited: Promise<number | string>;
}

/** Starts a child whose stdout and stderr go to `logFile`; it is killed by pid on cleanup. */
export function startChild(
  name: string,
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; logFile: string },
): Spawned {
  const log = createWriteStream(options.logFile, { flags: 'a' });
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  if (child.pid === undefined) throw new Error(`${name}: could not start ${command}`);
  const pid = child.pid;
  // 'exit' can come before the child's output has been read: its log is complete only once both
  // pipes have ended (a grandchild holding them open gets 2 s) and the file has been written.
  const drained = (stream: Readable) =>
    stream.readableEnded ? Promise.resolve() : new Promise<void>((resolve) => stream.once('end', resolve));
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      children.delete(pid);
      const outputs = Promise.all([drained(child.stdout!), drained(child.stderr!)]);
      const grace = new Promise<void>((done) => setTimeout(done, 2_000).unref());
      void Promise.race([outputs, grace]).then(() => log.end(() => resolve(code ?? signal ?? 'unknown')));
    });
  });
  const spawned = { name, child, pid, exited };
  children.set(pid, spawned);
  return spawned;
}

/** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
export async function stopChild(spawned: Spawned, graceMs = 5_000): Promise<void> {
  if (!children.has(spawned.pid)) return;
  try {
    process.kill(spawned.pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
  if ((await Promise.race([spawned.exited, timer])) === 'timeout') {
    try {
      process.kill(spawned.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
    await spawned.exited;
  }
}

/** Stops every child still running (cleanup after success, failure or SIGINT). */
export async function stopAllChildren(): Promise<void> {
  await Promise.all([...children.values()].map((spawned) => stopChild(spawned)));
}

/** Synchronous last resort for process.on('exit'): SIGKILL whatever is left, by pid. */
export function killAllChildrenNow(): void {
  for (const pid of children.keys()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

let clockTicks: number | null = null;
export function ticksPerSecond(): number {
  if (clockTicks === null) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** Fields of /proc/<pid>/stat after the command name; null if the process is gone. */
function statFields(pid: number | string): { comm: string; fields: string[] } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  return {
    comm: text.slice(open + 1, close),
    fields: text
      .slice(close + 2)
      .trim()
      .split(' '),
  };
}

// After ')': [0]=state … [11]=utime [12]=stime [13]=cutime [14]=cstime (proc(5) fields 14–17).
function ticksOf(fields: string[], withChildren: boolean): number {
  const own = Number(fields[11]) + Number(fields[12]);
  return withChildren ? own + Number(fields[13]) + Number(fields[14]) : own;
}

/** CPU seconds (user + system) of the given processes; processes that are gone count 0. */
export function cpuSecondsOf(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const stat = statFields(pid);
    if (stat) ticks += ticksOf(stat.fields, false);
  }
  return ticks / ticksPerSecond();
}

/** CPU seconds of every process of the given pid including its reaped children (cutime/cstime). */
export function cpuSecondsWithChildren(pid: number): number | null {
  const stat = statFields(pid);
  return stat ? ticksOf(stat.fields, true) / ticksPerSecond() : null;
}

/**
 * CPU seconds of all `postgres` processes on the machine. Backends that exit between two
 * samples are still counted: the postmaster reaps them, and their time lands in its
 * cutime/cstime, which is included.
 */
export function postgresCpuSeconds(): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statFields(entry);
    if (stat && stat.comm === 'postgres') ticks += ticksOf(stat.fields, true);
  }
  return ticks / ticksPerSecond();
}

/**
 * CPU seconds the whole machine spent busy (all cores, everything but idle and iowait), from
 * /proc/stat: compared with the processes measured, it shows what else ran on the machine.
 */
export function machineBusySeconds(): number {
  const first = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  const ticks = first.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already in user/nice)
  const busy = ticks.slice(0, 8).reduce((a, b) => a + b, 0) - ticks[3]! - ticks[4]!;
  return busy / ticksPerSecond();
}

/** The first existing pgbench: PATH, then Debian's versioned directories. */
export function findPgbench(): string | null {
  try {
    const found = execFileSync('sh', ['-c', 'command -v pgbench'], { encoding: 'utf8' }).trim();
    if (found) return found;
  } catch {
    /* not on PATH */
  }
  try {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    for (const v of versions) {
      const candidate = `/usr/lib/postgresql/${v}/bin/pgbench`;
      if (existsSync(candidate)) return candidate;
    }
  } catch {
    /* no Debian layout */
  }
  return null;
}

/**
 * CPU seconds of this process's children that have exited and been reaped (its own cutime +
 * cstime): a child's whole CPU time once it is gone, where /proc/<pid> no longer is. The load
 * generator (wrk) is measured this way: the bench reads it before and after a scenario, in which
 * wrk is the only child that exits.
 */
export function reapedChildrenCpuSeconds(): number {
  const stat = statFields(process.pid);
  return stat ? (Number(stat.fields[13]) + Number(stat.fields[14])) / ticksPerSecond() : 0;
}

/** Debian's wrk, if installed. */
export function findWrk(): string | null {
  return existsSync('/usr/bin/wrk') ? '/usr/bin/wrk' : null;
}
