/** A refusal the CLI reports as one line on stderr (exit 1), without a stack trace. */
export class CliError extends Error {}

/**
 * The one line a command prints when the embedded database it needs is held by a running server
 * (PGlite lets one process open a data folder; two would corrupt it).
 */
export function dataDirBusy(dataDir: string, pid: number, command = 'this command'): CliError {
  return new CliError(
    `${command} needs the embedded database in ${dataDir} to itself, and a running Purse server (pid ${pid}) has it open: ` +
      'stop that server (Ctrl-C) and run the command again. On PostgreSQL (DATABASE_URL) commands run alongside servers.',
  );
}
