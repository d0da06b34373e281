// `purse user invite`: the handler in-process (the operator's first owner, its link accepted and
// signed in with), its refusals, and one run of the real command.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { createApp } from '../../src/app.ts';
import { CliError } from '../../src/cli/errors.ts';
import { createMerchant, inviteUser } from '../../src/cli/handlers.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { buildDeps } from '../../src/deps.ts';
import { assertOk, purse } from '../cli/support.ts';
import { TEST_ENV } from '../helpers/app.ts';
import { migratedDataDir } from '../helpers/programs.ts';
import { PASSWORD, uniqueEmail } from './support.ts';

async function run(handler: typeof inviteUser, config: Config, values: Record<string, string | boolean>): Promise<string> {
  let out = '';
  await handler({ config, values, args: [], env: {}, write: (text) => (out += text) });
  return out;
}

describe('purse user invite', () => {
  const dataDir = migratedDataDir({ after }, 'purse-user-invite-');
  // On PostgreSQL runs, the run's database (the in-process handler and the spawned command alike).
  const database: Record<string, string> = process.env.TEST_DATABASE_URL ? { DATABASE_URL: process.env.TEST_DATABASE_URL } : {};
  const config = loadConfig({ ...TEST_ENV, DATA_DIR: dataDir, ...database });
  let merchantId = '';
  before(async () => {
    merchantId = JSON.parse(await run(createMerchant, config, { name: 'Invited Co', json: true })).merchant_id;
  });

  const ownerEmail = uniqueEmail('first-owner');

  test('prints a one-time link that sets the first owner’s password; the owner then signs in and must enrol TOTP', async () => {
    const email = ownerEmail;
    const printed = JSON.parse(
      await run(inviteUser, config, { merchant: merchantId, email, role: 'owner', 'base-url': 'https://pay.example', json: true }),
    );
    assert.equal(printed.email, email);
    assert.match(printed.invitation_url, /^https:\/\/pay\.example\/dashboard\/invitation#inv_[A-Za-z0-9_-]{43}$/);
    const deps = await buildDeps(config, { logger: pino({ level: 'silent' }) });
    const app = await createApp(deps);
    try {
      const token = printed.invitation_url.split('#')[1];
      const accepted = await app.inject({
        method: 'POST',
        url: '/dashboard/api/invitations/accept',
        payload: { token, password: PASSWORD },
      });
      assert.equal(accepted.statusCode, 200, accepted.body);
      const signedIn = await app.inject({ method: 'POST', url: '/dashboard/api/sign-in', payload: { email, password: PASSWORD } });
      assert.equal(signedIn.statusCode, 200, signedIn.body);
      assert.equal(signedIn.json().state, 'enrolment_required');
      assert.equal(signedIn.json().user.role, 'owner');
      const audit = await deps.db.db
        .selectFrom('audit_events')
        .select(['actor_type'])
        .where('action', '=', 'user.invited')
        .where('target_id', '=', printed.user_id)
        .execute();
      assert.deepEqual(audit, [{ actor_type: 'operator' }]);
    } finally {
      await app.close();
      await deps.close();
    }
  });

  test('refusals: missing options, an unknown role, merchant or email already in use', async () => {
    const email = uniqueEmail('twice');
    await assert.rejects(run(inviteUser, config, { merchant: merchantId, email }), CliError);
    await assert.rejects(run(inviteUser, config, { merchant: merchantId, email, role: 'king' }), /--role king: one of owner\|admin/);
    await assert.rejects(run(inviteUser, config, { merchant: 'mer_nope', email, role: 'viewer' }), /No merchant with id mer_nope/);
    await assert.rejects(run(inviteUser, config, { merchant: merchantId, email: 'not-an-email', role: 'viewer' }), /not an email/);
    await assert.rejects(run(inviteUser, config, { merchant: merchantId, email: ownerEmail, role: 'viewer' }), /already a user/);
  });

  test('the real command prints the link (base http://127.0.0.1:PORT without PURSE_PUBLIC_URL)', async () => {
    const email = uniqueEmail('spawned');
    const result = await purse(['user', 'invite', '--merchant', merchantId, '--email', email, '--role', 'viewer'], {
      DATA_DIR: dataDir,
      PORT: '8181',
      ...database,
    });
    assertOk(result);
    assert.match(result.stdout, new RegExp(`^Invited ${email.replace(/[.]/g, '\\.')} as viewer of merchant ${merchantId}\\.`));
    assert.match(result.stdout, /\n {2}http:\/\/127\.0\.0\.1:8181\/dashboard\/invitation#inv_[A-Za-z0-9_-]{43}\n$/);
  });
});
