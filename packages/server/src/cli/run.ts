import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { lockHolder } from '../ops/data-dir-lock.ts';
import { ConfigError } from '../shared/env.ts';
import { COMMANDS } from './commands.ts';
import { CliError, dataDirBusy } from './errors.ts';
import type { Command } from './types.ts';
import { PURSE, USAGE } from './usage.ts';

export interface CliIo {
  env: Record<string, string | undefined>;
  stdout(text: string): void;
  stderr(text: string): void;
}

const HELP_WORDS = new Set(['help', '--help', '-h']);

function findCommand(argv: readonly string[]): Command {
  const command = COMMANDS.find((c) => c.words.every((word, i) => argv[i] === word));
  if (command) return command;
  const words = argv.slice(0, argv[0] === 'merchant' || argv[0] === 'key' ? 2 : 1).join(' ');
  throw new CliError(`unknown command "${words}". Run "${PURSE} help" for the list of commands.`);
}

/** Runs one command line and returns the exit code; output goes through `io` only. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    if (argv.length === 0) {
      io.stderr(USAGE);
      return 1;
    }
    if (HELP_WORDS.has(argv[0] ?? '')) {
      io.stdout(USAGE);
      return 0;
    }
    const command = findCommand(argv);
    const { values, positionals } = parseArgs({
      args: argv.slice(command.words.length),
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      io.stdout(USAGE);
      return 0;
    }
    if (positionals.length !== command.args.length) {
      const usage = [PURSE, ...command.words, ...command.args].join(' ');
      throw new CliError(`usage: ${usage} [options]. Run "${PURSE} help" for the options.`);
    }
    const config = loadConfig(io.env, { keyOptional: command.keyOptional === true });
    // Refused before anything is loaded or opened, so the one line comes at once.
    const holder = command.opensDatabase === false || config.databaseUrl !== null ? null : lockHolder(config.dataDir);
    if (holder !== null) throw dataDirBusy(config.dataDir, holder, command.words.join(' '));
    await command.run({ config, values, args: positionals, write: io.stdout, env: io.env });
    return 0;
  } catch (error) {
    io.stderr(`purse: ${describeError(error)}\n`);
    return 1;
  }
}

function describeError(error: unknown): string {
  if (error instanceof CliError) return error.message;
  if (error instanceof ConfigError) return `invalid configuration: ${error.message}`;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) {
    // Node's message goes on about positionals after '--'; the first sentence is the point.
    return `${(error as Error).message.split('. To specify')[0]}. Run "${PURSE} help" for usage.`;
  }
  // Unexpected (database unreachable, a bug): the message, never the configuration it came from.
  return error instanceof Error ? error.message : String(error);
}
