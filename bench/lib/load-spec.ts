// What a load is and what it gives back, shared by the two load generators (bench/lib/load.ts
// runs autocannon and picks the generator, bench/lib/wrk.ts runs wrk): the request spec, the
// options and result of one scenario's load, and how connections are spread over the targets.
// In a module of its own so that load.ts and wrk.ts both import it and not each other.

/** In a body, replaced by a reference unique in the run: `<refPrefix><instance>-<counter>`. */
export const REF = '{{reference}}';

/** What one request changes from the spec's defaults; the variants are taken in turn. */
export interface RequestVariant {
  path?: string;
  /** Merged over the spec's headers. */
  headers?: Record<string, string>;
  body?: string;
}

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** One per request, in turn (round-robin over wallets, payment ids, merchants). */
  variants?: RequestVariant[];
  /** Prefix of the fresh reference put where a body says REF; must be unique in the run. */
  refPrefix?: string;
}

/** One scenario's load: where, how many connections, how long, what each request is. */
export interface LoadOptions {
  scenario: string;
  baseUrls: string[];
  connections: number;
  durationS: number;
  request: RequestSpec;
  /** Where the load generator's output is kept (wrk). */
  logDir: string;
}

export interface LoadResult {
  durationS: number;
  requestsPerS: number;
  total: number;
  non2xx: number;
  /** Connection errors and timeouts (autocannon counts a timeout as an error too). */
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  latencyMs: { p50: number; p95: number; p99: number; max: number; mean: number };
  /** CPU seconds of load-generator processes other than the bench process (wrk); 0 with autocannon. */
  childLoadgenCpuS: number;
  /** The load generator's pids (wrk), for the record. */
  loadgenPids: number[];
}

/** `connections` spread over the URLs (the first ones get one more when it does not divide). */
export function spread(baseUrls: string[], connections: number): { url: string; connections: number; instance: number }[] {
  return baseUrls
    .map((url, i) => ({
      url,
      instance: i,
      connections: Math.floor(connections / baseUrls.length) + (i < connections % baseUrls.length ? 1 : 0),
    }))
    .filter((t) => t.connections > 0);
}
