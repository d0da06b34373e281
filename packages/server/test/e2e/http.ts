import type { TestContext } from 'node:test';
import { buildTestApp, createTestMerchant, type TestApp, type TestAppOptions, type TestMerchant } from '../helpers/app.ts';

/** A listening app with its settlement worker running, driven over real HTTP with fetch. */
export async function startHttpApp(t: TestContext, options: TestAppOptions = {}) {
  const app = await buildTestApp(t, options);
  await app.listen({ port: 0, host: '127.0.0.1' });
  app.deps.worker.start();
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  return { app, base };
}

export interface HttpResult {
  status: number;
  headers: Headers;
  body: any;
}

export function client(base: string, merchant: TestMerchant) {
  async function call(method: string, path: string, payload?: unknown): Promise<HttpResult> {
    const res = await fetch(base + path, {
      method,
      headers: { ...merchant.auth, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  }
  return {
    get: (path: string) => call('GET', path),
    post: (path: string, payload?: unknown) => call('POST', path, payload),
    raw: call,
    /** Polls until the object is no longer pending. */
    async settled(path: string, timeoutMs = 5_000): Promise<any> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const res = await call('GET', path);
        if (res.body.status !== 'pending') return res.body;
        if (Date.now() > deadline) throw new Error(`${path} still pending after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

export async function merchantClient(app: TestApp, base: string, name = 'E2E merchant') {
  const merchant = await createTestMerchant(app, name);
  return { merchant, api: client(base, merchant) };
}
