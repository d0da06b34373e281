import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * PGlite may be opened by one process only; two would corrupt the data folder. The server
 * writes its pid to DATA_DIR/purse.pid; the CLI and a second server refuse while that pid lives.
 */
export class DataDirBusyError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by a running Purse server (pid ${pid}). ` +
        'Stop that server first (Ctrl-C or kill -TERM), or run Purse on PostgreSQL with DATABASE_URL, where the command works alongside running servers.',
    );
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function lockHolder(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(join(dataDir, 'purse.pid'), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid) ? pid : null;
  } catch {
    return null;
  }
}

export function acquireDataDirLock(dataDir: string): { release(): void } {
  const holder = lockHolder(dataDir);
  if (holder !== null) throw new DataDirBusyError(dataDir, holder);
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'purse.pid');
  try {
    // Exclusive create: of two processes starting at once, only one gets the file.
    writeFileSync(file, String(process.pid), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const again = lockHolder(dataDir);
    if (again !== null) throw new DataDirBusyError(dataDir, again);
    // A stale file from a process that died without cleaning up.
    rmSync(file, { force: true });
    writeFileSync(file, String(process.pid), { flag: 'wx' });
  }
  return {
    release() {
      try {
        if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file);
      } catch {
        /* already gone */
      }
    },
  };
}
