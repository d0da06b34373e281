import { userEntry } from '../audit/entry.ts';
import { appendAudit } from '../audit/store.ts';
import { inTransaction } from '../db/db.ts';
import { ApiError } from '../shared/errors.ts';
import { decryptSecret, encryptSecret, keyedHash } from '../shared/secrets.ts';
import type { Caller, Session, UsersContext } from './context.ts';
import { hashPassword } from './passwords.ts';
import { rotateSession } from './sessions.ts';
import * as store from './store.ts';
import { newRecoveryCodes, newTotpSecret, totpStep } from './totp.ts';

const totpEnabled = () => new ApiError('totp_already_enabled', 'Two-factor authentication is already enabled for this user.');
const sessionEnded = () => new ApiError('session_invalid', 'The session has ended; sign in again.');
const invitationInvalid = () =>
  new ApiError(
    'invitation_invalid',
    'This invitation link is invalid, expired (after 72 hours) or already used; ask an owner for a new one.',
  );

/** What a signed-in user does to their own account: TOTP enrolment, password change; and accepting an invitation. */
export function createAccount(ctx: UsersContext) {
  const { db, clock, secrets } = ctx;

  /** A new pending secret (replacing a pending one), shown as text and as an otpauth:// URI. */
  async function enrolTotp(session: Session) {
    const user = session.row;
    if (user.totp_enabled_at !== null) throw totpEnabled();
    const { secret, otpauthUri } = newTotpSecret(user.email);
    if (!(await store.setPendingTotp(db, user.id, encryptSecret(ctx.encryptionKey, secret), clock.now()))) throw totpEnabled();
    return { secret, otpauth_uri: otpauthUri };
  }

  /** The pending secret's first code turns TOTP on: ten recovery codes (shown once), and the session, active, gets a new id. */
  async function confirmTotp(session: Session, code: string, caller: Caller) {
    const sealed = session.row.totp_pending_secret_encrypted;
    if (session.row.totp_enabled_at !== null) throw totpEnabled();
    if (sealed === null) throw new ApiError('invalid_state', 'No TOTP enrolment is under way: call POST /dashboard/api/totp/enrol first.');
    const now = clock.now();
    const step = totpStep(decryptSecret(ctx.encryptionKey, sealed), code, now.getTime());
    if (step === null)
      throw new ApiError('parameter_invalid', 'The code does not match the secret; enter the current code of your authenticator app.', {
        param: 'code',
      });
    const codes = newRecoveryCodes();
    const value = secrets.newValue();
    await inTransaction(db, async (trx) => {
      if (!(await store.enableTotp(trx, session.row.id, sealed, step, now))) throw totpEnabled();
      await store.replaceRecoveryCodes(trx, session.row.id, codes.map(ctx.recoveryHash), now);
      const fresh = session.row.state !== 'active';
      const rotation = { from: session.id, to: secrets.idOf(value), state: 'active', now } as const;
      const rotated = await rotateSession(trx, fresh ? { ...rotation, expiresAt: new Date(now.getTime() + ctx.absoluteMs) } : rotation);
      if (!rotated) throw sessionEnded();
      await appendAudit(trx, [userEntry(session.row, 'user.totp_enabled', { origin: caller.origin })], now);
    });
    return { value, body: { recovery_codes: codes, csrf_token: secrets.csrfOf(value) } };
  }

  /** A new password: this session gets a new id; every other session of the user (and their tokens) ends. */
  async function changePassword(session: Session, input: { current_password: string; new_password: string }, caller: Caller) {
    const user = session.row;
    await ctx.throttle.check(user.email, caller.ip);
    if (!(await ctx.checkPassword(user.password_hash, input.current_password))) {
      const refusal = new ApiError('parameter_invalid', 'The current password is wrong.', { param: 'current_password' });
      throw await ctx.throttle.failed(user.email, caller.ip, refusal);
    }
    const passwordHash = await hashPassword(input.new_password);
    const now = clock.now();
    const value = secrets.newValue();
    await inTransaction(db, async (trx) => {
      if (!(await rotateSession(trx, { from: session.id, to: secrets.idOf(value), state: session.row.state, now }))) throw sessionEnded();
      await store.setPassword(trx, user.id, passwordHash, now);
      await store.revokeUserSessions(trx, user.id, now, secrets.idOf(value));
      await appendAudit(trx, [userEntry(user, 'user.password_changed', { origin: caller.origin })], now);
    });
    ctx.changed();
    return { value, body: { csrf_token: secrets.csrfOf(value) } };
  }

  return {
    enrolTotp,
    confirmTotp,
    changePassword,
    acceptInvitation: (input: { token: string; password: string }, caller: Caller) => acceptInvitation(ctx, input, caller),
  };
}

/** The invitation's one use: sets the password and activates the user. */
async function acceptInvitation(ctx: UsersContext, input: { token: string; password: string }, caller: Caller) {
  const { db, clock } = ctx;
  const tokenHash = keyedHash(ctx.hashKey, input.token);
  const now = clock.now();
  // Read first, so that a made-up token costs no password hashing.
  if (!(await store.findInvitation(db, tokenHash, now))) throw invitationInvalid();
  const passwordHash = await hashPassword(input.password);
  const user = await inTransaction(db, async (trx) => {
    const activated = await store.useInvitation(trx, tokenHash, passwordHash, clock.now());
    if (!activated) return null;
    await appendAudit(trx, [userEntry(activated, 'user.invitation_accepted', { origin: caller.origin })], now);
    return activated;
  });
  if (!user) throw invitationInvalid();
  return { email: user.email };
}
