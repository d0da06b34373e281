// The load generator: autocannon, in this process, one instance per target port, bounded in
// time. Latencies of every response (2xx or not) are collected here so that percentiles are
// exact over all instances (autocannon itself reports no p95 and only 2xx latencies).
import autocannon from 'autocannon';

/** The parts of autocannon's result used here (the package ships no types). */
interface AutocannonResult {
  requests: { average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count: number }>;
}
type AutocannonRequest = Record<string, unknown>;

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Called before every request: returns what changes (a fresh body or path, other headers). */
  next?: () => { body?: string; path?: string; headers?: Record<string, string> };
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
  loadgenCpuPct: number;
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function latencySummary(values: Float64Array) {
  const sorted = values.slice().sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1]! : NaN,
    mean: sorted.length ? sum / sorted.length : NaN,
  };
}

/** Growable Float64Array: 100k+ samples without boxing. */
class Samples {
  private data = new Float64Array(1 << 16);
  length = 0;
  push(v: number) {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = v;
  }
  values() {
    return this.data.subarray(0, this.length);
  }
}

/**
 * Runs `connections` connections for `durationS` seconds, spread over `baseUrls` (one
 * autocannon instance per URL, in parallel). Only 127.0.0.1 URLs are accepted.
 */
export async function runLoad(options: {
  baseUrls: string[];
  connections: number;
  durationS: number;
  request: RequestSpec;
}): Promise<LoadResult> {
  const { baseUrls, connections, durationS, request } = options;
  for (const url of baseUrls) {
    if (new URL(url).hostname !== '127.0.0.1') throw new Error(`refusing to send load anywhere but 127.0.0.1: ${url}`);
  }
  const samples = new Samples();
  const cpuBefore = process.cpuUsage();
  const wallStart = process.hrtime.bigint();
  const perTarget = baseUrls.map((_, i) => Math.floor(connections / baseUrls.length) + (i < connections % baseUrls.length ? 1 : 0));
  const runs = baseUrls
    .map((url, i) => ({ url, connections: perTarget[i]! }))
    .filter((t) => t.connections > 0)
    .map(
      (target) =>
        new Promise<AutocannonResult>((resolve, reject) => {
          const instance = autocannon(
            {
              url: target.url,
              connections: target.connections,
              duration: durationS,
              pipelining: 1,
              timeout: 10,
              requests: [
                {
                  method: request.method,
                  path: request.path,
                  headers: request.headers,
                  body: request.body,
                  ...(request.next
                    ? {
                        setupRequest: (req: AutocannonRequest) => {
                          const change = request.next!();
                          return { ...req, ...change };
                        },
                      }
                    : {}),
                },
              ],
            },
            (error: Error | null, result: AutocannonResult) => (error ? reject(error) : resolve(result)),
          );
          instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => samples.push(responseTime));
        }),
    );
  const results = await Promise.all(runs);
  const wallS = Number(process.hrtime.bigint() - wallStart) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  const statusCodes: Record<string, number> = {};
  for (const r of results) {
    for (const [code, { count }] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  }
  const total = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  return {
    durationS: wallS,
    requestsPerS: results.reduce((sum, r) => sum + r.requests.average, 0),
    total,
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    timeouts: results.reduce((sum, r) => sum + r.timeouts, 0),
    statusCodes,
    latencyMs: latencySummary(samples.values()),
    loadgenCpuPct: ((cpu.user + cpu.system) / 1e6 / wallS) * 100,
  };
}
