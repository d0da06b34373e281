// The load generators: wrk (Debian's, in its own process, one per target port) or autocannon (in
// the bench process, one instance per target port), bounded in time. A request is described as
// data (RequestSpec, in bench/lib/load-spec.ts), so that both can send it: autocannon through
// setupRequest, wrk through a Lua script generated per scenario (bench/lib/wrk.ts). With
// autocannon, latencies of every response (2xx or not) are collected here so that percentiles are
// exact over all instances (autocannon itself reports no p95 and only 2xx latencies); wrk reports
// its own (every completed response).
import autocannon from 'autocannon';
import { type LoadOptions, type LoadResult, REF, type RequestSpec, spread } from './load-spec.ts';
import { runWrk } from './wrk.ts';

/** The parts of autocannon's result used here (the package ships no types). */
interface AutocannonResult {
  requests: { average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count: number }>;
}
type AutocannonRequest = Record<string, unknown>;

export type Loadgen = 'wrk' | 'autocannon';

/** The requests of one load-generator instance, in order: the i-th request is `requestAt(i)`. */
export function requestAt(
  spec: RequestSpec,
  instance: number,
  i: number,
): { path: string; headers: Record<string, string>; body?: string } {
  const variant = spec.variants?.length ? spec.variants[i % spec.variants.length]! : {};
  const body = variant.body ?? spec.body;
  return {
    path: variant.path ?? spec.path,
    headers: variant.headers ? { ...spec.headers, ...variant.headers } : spec.headers,
    body: body !== undefined && spec.refPrefix !== undefined ? body.replace(REF, `${spec.refPrefix}${instance}-${i}`) : body,
  };
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
 * Runs `connections` connections for `durationS` seconds, spread over `baseUrls` (one load
 * generator instance per URL, in parallel). Only 127.0.0.1 URLs are accepted.
 */
export async function runLoad(options: LoadOptions & { loadgen: Loadgen }): Promise<LoadResult> {
  for (const url of options.baseUrls) {
    if (new URL(url).hostname !== '127.0.0.1') throw new Error(`refusing to send load anywhere but 127.0.0.1: ${url}`);
  }
  return options.loadgen === 'wrk' ? runWrk(options) : runAutocannon(options);
}

async function runAutocannon(options: LoadOptions): Promise<LoadResult> {
  const { baseUrls, connections, durationS, request } = options;
  const samples = new Samples();
  const wallStart = process.hrtime.bigint();
  const dynamic = Boolean(request.variants?.length || request.refPrefix !== undefined);
  const runs = spread(baseUrls, connections).map(
    (target) =>
      new Promise<AutocannonResult>((resolve, reject) => {
        let sent = 0;
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
                ...(dynamic
                  ? {
                      setupRequest: (req: AutocannonRequest) => ({ ...req, ...requestAt(request, target.instance, sent++) }),
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
    childLoadgenCpuS: 0,
    loadgenPids: [process.pid],
  };
}
