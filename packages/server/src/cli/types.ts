import type { ParseArgsConfig } from 'node:util';
import type { Config } from '../config.ts';

export interface CommandInput {
  config: Config;
  /** Parsed options: strings for valued options, booleans for flags. */
  values: Record<string, string | boolean | undefined>;
  /** Positional arguments after the command words. */
  args: string[];
  write(text: string): void;
  /** The command's environment (the merchant commands read their credentials from it). */
  env: Record<string, string | undefined>;
}

export interface Command {
  /** The words that name the command, e.g. ['merchant', 'create']. */
  words: string[];
  /** Names of the positional arguments, in order; all required. */
  args: string[];
  options: NonNullable<ParseArgsConfig['options']>;
  run(input: CommandInput): Promise<void>;
  /** Runs without a service key on PostgreSQL (only `key export-legacy`, which reads the old one). */
  keyOptional?: boolean;
  /** false: never opens the database (listen, which uses the HTTP API), so a running server is no obstacle. */
  opensDatabase?: boolean;
}
