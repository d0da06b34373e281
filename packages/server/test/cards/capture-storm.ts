// The capture storm (docs/money-safety.md): concurrent captures of one card authorisation at
// the acquirer. Exactly one capture request may reach the acquirer: the claim recorded on the
// payment decides (charges/store/card-states.ts). Counted at the fake acquirer from the requests
// it received, not from its captures: the acquirer's own idempotency would hide a second request
// sent with the same key, and Purse must not rely on it.
import assert from 'node:assert/strict';
import type { FakeAcquirer } from '../fakes/acquirer.ts';

export interface CaptureStormFigures {
  captureRequests: number;
  capturesAtAcquirer: number;
  answers: Record<number, number>;
  status: string;
}

/** `request(method, path, body)` against a listening Purse (HTTP) as a live merchant allowed raw card data. */
export async function runCaptureStorm(
  request: (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<{ status: number; json: any }>,
  fake: FakeAcquirer,
  attempts = 20,
): Promise<CaptureStormFigures> {
  const created = await request('POST', '/v1/payments', {
    reference: `storm-${Date.now()}-${Math.random().toString(36).slice(2)}`,
    amount: '100.00',
    currency: 'KES',
    capture_method: 'manual',
    payment_method: { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2035, cvc: '123' } },
  });
  assert.equal(created.json.status, 'requires_capture', JSON.stringify(created.json));
  const intent: string = created.json.provider_reference;
  const before = fake.requests.length;
  const answers = await Promise.all(Array.from({ length: attempts }, () => request('POST', `/v1/payments/${created.json.id}/capture`, {})));
  const tally: Record<number, number> = {};
  for (const a of answers) tally[a.status] = (tally[a.status] ?? 0) + 1;
  const captureRequests = fake.requests.slice(before).filter((r) => r.endpoint === 'capture_intent' && r.path.includes(intent)).length;
  const status = (await request('GET', `/v1/payments/${created.json.id}`)).json.status;
  return { captureRequests, capturesAtAcquirer: fake.countsForIntent(intent).captures, answers: tally, status };
}
