// The card-acquirer scenario's parts: the fake acquirer started as a child process
// (bench/acquirer-fake.ts) and the check that the payments it took all succeeded.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Spawned, startChild } from './processes.ts';

interface Payment {
  status: string;
  livemode: boolean;
  payment_method?: { type?: string };
}

export interface AcquirerFake {
  child: Spawned;
  /** PURSE_CARD_ACQUIRER_BASE_URL, _SECRET_KEY and _WEBHOOK_SECRET: for Purse's environment only, never printed. */
  env: Record<string, string>;
}

/** Starts the fake in its own process and waits (at most 30 s) for the environment it writes. */
export async function startAcquirerFake(options: { benchDir: string; cwd: string; logFile: string }): Promise<AcquirerFake> {
  const dir = mkdtempSync(join(tmpdir(), 'purse-bench-acquirer-'));
  const envFile = join(dir, 'env.json');
  try {
    const child = startChild('acquirer-fake', process.execPath, ['--import', 'tsx', join(options.benchDir, 'acquirer-fake.ts')], {
      cwd: options.cwd,
      env: { ...process.env, BENCH_ACQUIRER_ENV_FILE: envFile },
      logFile: options.logFile,
    });
    let exitCode: number | string | null = null;
    child.exited.then((code) => (exitCode = code));
    const deadline = Date.now() + 30_000;
    while (!existsSync(envFile)) {
      if (exitCode !== null) throw new Error(`acquirer fake exited (${exitCode}) before it was ready; see bench/results/logs/`);
      if (Date.now() > deadline) throw new Error('acquirer fake not ready after 30 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    return { child, env: JSON.parse(readFileSync(envFile, 'utf8')) as Record<string, string> };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What the scenario's answers and a sample of its payments show: every answer 201, and the
 * merchant's 100 newest payments (read back through the API) succeeded card payments.
 */
export async function acquirerCheck(base: string, token: string, statusCodes: Record<string, number>): Promise<string> {
  const others = Object.entries(statusCodes).filter(([code]) => code !== '201');
  const answers = others.length === 0 ? 'every answer 201' : `NOT every answer 201: ${others.map(([c, n]) => `${c}×${n}`).join(' ')}`;
  const list = async (query: string): Promise<Payment[]> => {
    const response = await fetch(`${base}/v1/payments?${query}`, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    });
    if (!response.ok) throw new Error(`GET /v1/payments?${query}: HTTP ${response.status}`);
    return ((await response.json()) as { data: Payment[] }).data;
  };
  // Requests the load generator gave up on at its deadline are still being answered: wait (at
  // most 30 s) until none of the merchant's payments is pending before reading the sample.
  const deadline = Date.now() + 30_000;
  while ((await list('status=pending&limit=1')).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
  const page = { data: await list('limit=100') };
  const bad = page.data.filter((p) => p.status !== 'succeeded' || !p.livemode || p.payment_method?.type !== 'card');
  const sample =
    bad.length === 0
      ? `the ${page.data.length} newest payments read back all succeeded live card payments`
      : `${bad.length} of the ${page.data.length} newest payments NOT succeeded live card payments (${[...new Set(bad.map((p) => p.status))].join(', ')})`;
  return `${answers}; ${sample}`;
}
