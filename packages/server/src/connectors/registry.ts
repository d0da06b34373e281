import type { Connector, Means, ProviderMethod, Route } from './connector.ts';

/** Names a charge's provider column may hold that are not connectors. */
const RESERVED_NAMES = new Set(['purse', 'unconfigured']);

const routeKey = (route: Route) => `${route.livemode ? 'live' : 'test'}/${route.means}/${route.network ?? '*'}`;

/**
 * Connectors by name, and the routing table (means, network, livemode) → connector, both built
 * once in deps.ts from the list of connectors and what each declares it serves. A charge keeps
 * the name it was routed to, so a later change of the table never moves a charge in flight.
 */
export interface ConnectorRegistry {
  get(name: string): Connector | null;
  /** The connector a new charge goes to: the route naming its network, else the means' default; null when none. */
  route(route: Route): Connector | null;
  readonly connectors: readonly Connector[];
}

export function createConnectorRegistry(connectors: readonly Connector[]): ConnectorRegistry {
  const byName = new Map<string, Connector>();
  const byRoute = new Map<string, Connector>();
  for (const connector of connectors) {
    // Refused at start-up: a name or route claimed twice would send charges to whichever came last.
    if (RESERVED_NAMES.has(connector.name) || byName.has(connector.name)) throw new Error(`connector name taken: ${connector.name}`);
    byName.set(connector.name, connector);
    for (const route of connector.serves) {
      const key = routeKey(route);
      const taken = byRoute.get(key);
      if (taken) throw new Error(`route ${key} is served by both ${taken.name} and ${connector.name}`);
      byRoute.set(key, connector);
    }
  }
  return {
    get: (name) => byName.get(name) ?? null,
    route(route) {
      const exact = route.network === null ? undefined : byRoute.get(routeKey(route));
      return exact ?? byRoute.get(routeKey({ ...route, network: null })) ?? null;
    },
    connectors: [...connectors],
  };
}

/** Country calling code → mobile-money network, for a number whose operator the merchant did not name. */
export type CountryRoutes = readonly (readonly [callingCode: string, network: string])[];

/**
 * The route of a charge: its means, and for mobile money the operator the merchant named (any
 * case: 'MTN' is 'mtn'), else the network of the number's country calling code (the longest match
 * of `countryRoutes`), else none.
 */
export function routeOf(method: ProviderMethod, livemode: boolean, countryRoutes: CountryRoutes = []): Route {
  const means: Means = method.type;
  let network: string | null = null;
  if (method.type === 'mobile_money') {
    network = method.provider?.toLowerCase() ?? null;
    if (network === null) {
      const digits = method.phoneNumber.replace(/^\+/, '');
      let best = '';
      for (const [code, net] of countryRoutes) {
        if (digits.startsWith(code) && code.length > best.length) {
          best = code;
          network = net;
        }
      }
    }
  }
  return { means, network, livemode };
}
