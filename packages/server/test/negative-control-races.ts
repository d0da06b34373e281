// The check-then-act controls of test/negative-control.ts (see its header): each runs a race's
// shared scenario against the one decision that keeps it safe, replaced by a read and then an
// unconditional write. Each returns true when the race broke the rule, as it must.

import { runCaptureStorm } from './cards/capture-storm.ts';
import { runCompletionStorm } from './checkout/completion-storm.ts';
import { fakeAcquirerEnv, startFakeAcquirer } from './fakes/acquirer.ts';
import { buildTestApp, createTestMerchant } from './helpers/app.ts';
import { checkThenActClaim } from './negative-controls/broken-claims.ts';
import { checkThenActCompletion } from './negative-controls/broken-completion.ts';
import { checkThenActOwnerRule } from './negative-controls/broken-owner-rule.ts';
import { runLastOwnerRace } from './users/last-owner-race.ts';

/** Merchants whose two owners race at once: 24 requests in flight against a pool of 16 connections (openTestDb). */
const LAST_OWNER_MERCHANTS = 12;

/** The capture storm with a check-then-act claim: true when more than one capture request reached the acquirer. */
export async function capturesControl(): Promise<boolean> {
  const fake = await startFakeAcquirer({ searchLagMs: 0 });
  const app = await buildTestApp(null, {
    env: { ...fakeAcquirerEnv(fake, 'http://127.0.0.1:9'), PURSE_WORKER: 'false' },
    wiring: { claimOperation: checkThenActClaim },
  });
  try {
    const merchant = await createTestMerchant(app, 'Negative control, captures', true);
    await app.deps.db.db.updateTable('merchants').set({ raw_card_data: true }).where('id', '=', merchant.merchantId).execute();
    const request = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
      const res = await app.inject({ method, url, headers: merchant.auth, ...(body === undefined ? {} : { payload: body as object }) });
      return { status: res.statusCode, json: res.json() };
    };
    const figures = await runCaptureStorm(request, fake);
    const broke = figures.captureRequests > 1;
    process.stdout.write(
      `negative control: captures ${broke ? 'FAILED AS EXPECTED' : 'DID NOT FAIL (proves nothing)'}: ${figures.captureRequests} capture requests ` +
        `reached the acquirer for one authorisation (its own idempotency kept captures at ${figures.capturesAtAcquirer}); answers ${JSON.stringify(figures.answers)}\n`,
    );
    return broke;
  } finally {
    await app.close();
    await app.deps.close();
    await fake.close();
  }
}

/** The checkout completion storm with a check-then-act completion: true when the session was completed (and announced) more than once. */
export async function completionControl(): Promise<boolean> {
  const app = await buildTestApp(null, { env: { PURSE_WORKER: 'false' }, wiring: { completeSession: checkThenActCompletion } });
  try {
    const figures = await runCompletionStorm(app, await createTestMerchant(app, 'Negative control, checkout'));
    const broke = figures.completedEvents > 1;
    process.stdout.write(
      `negative control: checkout completion ${broke ? 'FAILED AS EXPECTED' : 'DID NOT FAIL (proves nothing)'}: ` +
        `${figures.completedEvents} checkout_session.completed events for one session (payments: ${figures.payments})\n`,
    );
    return broke;
  } finally {
    await app.close();
    await app.deps.close();
  }
}

/** The last-owner race with a check-then-act rule: true when some merchant was left without an active owner. */
export async function lastOwnerControl(): Promise<boolean> {
  const app = await buildTestApp(null, { env: { PURSE_WORKER: 'false' }, wiring: { ownerRule: checkThenActOwnerRule } });
  try {
    const rounds = await runLastOwnerRace(app, LAST_OWNER_MERCHANTS);
    const ownerless = rounds.filter((round) => round.activeOwners === 0).length;
    const bothSucceeded = rounds.filter((round) => round.statuses.every((status) => status < 300)).length;
    const broke = ownerless > 0;
    process.stdout.write(
      `negative control: last owner ${broke ? 'FAILED AS EXPECTED' : 'DID NOT FAIL (proves nothing)'}: ${ownerless} of ${rounds.length} ` +
        `merchants left without an active owner (both acts succeeded on ${bothSucceeded}); answers ` +
        `${JSON.stringify(rounds.map((round) => `${round.act} ${round.statuses.join('/')}`))}\n`,
    );
    return broke;
  } finally {
    await app.close();
    await app.deps.close();
  }
}
