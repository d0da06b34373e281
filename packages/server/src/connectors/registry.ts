import type { Connector } from './connector.ts';
import type { SandboxConnector } from './sandbox/connector.ts';

/**
 * Connectors by name, built explicitly in deps.ts. Sandbox merchants always use the sandbox;
 * live merchants use the operator's configured provider (none ships with Purse yet).
 */
export interface ConnectorRegistry {
  readonly sandbox: SandboxConnector;
  get(name: string): Connector | null;
  /** The provider name a new charge of this merchant goes to, or null when none is configured. */
  providerFor(livemode: boolean): string | null;
}

export function createConnectorRegistry(connectors: { sandbox: SandboxConnector; live?: Connector }): ConnectorRegistry {
  const byName = new Map<string, Connector>([[connectors.sandbox.name, connectors.sandbox]]);
  if (connectors.live) byName.set(connectors.live.name, connectors.live);
  return {
    sandbox: connectors.sandbox,
    get: (name) => byName.get(name) ?? null,
    providerFor: (livemode) => (livemode ? (connectors.live?.name ?? null) : connectors.sandbox.name),
  };
}
