/**
 * What every reader of the environment shares: config.ts for the service, and each provider's
 * connectors/<name>/config.ts for its own variables. Here, below both, so that a provider's
 * configuration needs nothing of the service to be read, and one ConfigError is refused at start
 * whoever found the problem.
 */
import { present } from './invariant.ts';

/** The environment as read: process.env, or the object a test passes. */
export type Env = Record<string, string | undefined>;

/** A variable that cannot be used: the process refuses to start, saying which and why (never its value). */
export class ConfigError extends Error {}

/** A provider's base URL or the public URL: absolute http(s), else start is refused naming the variable. */
export function requireHttpUrl(name: string, text: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError(`${name} must be an http(s) URL`);
}

/**
 * A provider's variables, all or none. None of its own set: null (the provider is off). All set:
 * a reader of each. Some: start is refused, naming what is missing and never a value. `alsoUsed`
 * are variables the service reads for other ends too (PURSE_PUBLIC_URL): set alone, they do not
 * turn the provider on.
 */
export function allOrNone<Name extends string>(
  env: Env,
  provider: string,
  names: readonly Name[],
  alsoUsed: readonly Name[] = [],
): ((name: Name) => string) | null {
  const given = names.filter((name) => (env[name] ?? '') !== '');
  if (given.every((name) => alsoUsed.includes(name))) return null;
  const missing = names.filter((name) => !given.includes(name));
  if (missing.length > 0) throw new ConfigError(`${provider} is partly configured: missing ${missing.join(', ')}`);
  return (name) => present(env[name], name);
}
