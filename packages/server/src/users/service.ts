import { userEntry } from '../audit/entry.ts';
import { appendAudit } from '../audit/store.ts';
import { type Db, inTransaction } from '../db/db.ts';
import { ACCESS_TOKEN_PREFIX, type IssuedToken } from '../oauth/service.ts';
import { insertAccessToken, touchSession } from '../oauth/store.ts';
import { ApiError } from '../shared/errors.ts';
import { decryptSecret, keyedHash, newSecret } from '../shared/secrets.ts';
import { createAccount } from './account.ts';
import { type Caller, type Session, type UsersContext, type UsersDeps, usersContext, userView } from './context.ts';
import { ROLES } from './roles.ts';
import {
  effectiveState,
  findSession,
  insertSession,
  PENDING_SESSION_S,
  revokeSession,
  rotateSession,
  type SessionState,
  sessionEnd,
} from './sessions.ts';
import * as store from './store.ts';
import { createTeam } from './team.ts';
import { normalRecoveryCode, totpStep } from './totp.ts';

/** A session-bound access token lives at most this long (and never past its session's absolute end). */
const SESSION_TOKEN_MAX_S = 600;
/** A session's activity is written at most this often. */
const TOUCH_MS = 60_000;

const signInFailed = () =>
  new ApiError('sign_in_failed', 'The email or password is wrong (or the account is not active yet: accept its invitation first).');
const secondFactorInvalid = () =>
  new ApiError(
    'second_factor_invalid',
    'The code is wrong, expired or already used; enter the current code of your authenticator app or an unused recovery code.',
  );

type SecondFactor = { code: string } | { recovery_code: string };

/** A TOTP code (its step used once, by a conditional update) or a recovery code (used once). */
async function acceptSecondFactor(
  ctx: UsersContext,
  trx: Db,
  session: Session,
  input: SecondFactor,
  now: Date,
): Promise<'totp' | 'recovery_code' | null> {
  const user = session.row;
  if ('code' in input) {
    if (user.totp_secret_encrypted === null) return null;
    const step = totpStep(decryptSecret(ctx.encryptionKey, user.totp_secret_encrypted), input.code, now.getTime());
    return step !== null && (await store.useTotpStep(trx, user.id, step)) ? 'totp' : null;
  }
  const code = normalRecoveryCode(input.recovery_code);
  return code !== null && (await store.useRecoveryCode(trx, user.id, ctx.recoveryHash(code), now)) ? 'recovery_code' : null;
}

/**
 * Signing in: the password, then the second factor when TOTP is on (docs/users.md). Each step
 * that raises what a session may do gives it a new id (and cookie value).
 */
export function createSignIn(ctx: UsersContext) {
  const { db, clock, secrets, throttle } = ctx;

  async function signIn(input: { email: string; password: string }, caller: Caller) {
    await throttle.check(input.email, caller.ip);
    const user = await store.findUserByEmail(db, input.email);
    const usable = user !== undefined && user.status === 'active' && user.merchant_status === 'active';
    const matches = await ctx.checkPassword(usable ? user.password_hash : null, input.password);
    const now = clock.now();
    if (!usable || !matches) {
      if (user) {
        const entry = userEntry(user, 'user.sign_in_failed', { origin: caller.origin });
        await appendAudit(db, [{ ...entry, actor: { type: 'user', id: null, email: user.email } }], now);
      }
      throw await throttle.failed(input.email, caller.ip, signInFailed());
    }
    await throttle.succeeded(input.email, caller.ip);
    const state: SessionState =
      user.totp_enabled_at !== null ? 'second_factor_required' : ROLES[user.role].totpRequired ? 'enrolment_required' : 'active';
    const value = secrets.newValue();
    const lifeMs = state === 'active' ? ctx.absoluteMs : PENDING_SESSION_S * 1000;
    await inTransaction(db, async (trx) => {
      const row = { id: secrets.idOf(value), userId: user.id, merchantId: user.merchant_id, state, now } as const;
      await insertSession(trx, { ...row, expiresAt: new Date(now.getTime() + lifeMs) });
      // Signed in once the password is all this session needs; with TOTP on, at the second factor.
      if (state !== 'second_factor_required')
        await appendAudit(trx, [userEntry(user, 'user.signed_in', { origin: caller.origin, changes: { state } })], now);
    });
    return { value, body: { state, csrf_token: secrets.csrfOf(value), user: userView(user) } };
  }

  async function secondFactor(session: Session, input: SecondFactor, caller: Caller) {
    const user = session.row;
    await throttle.check(user.email, caller.ip);
    const now = clock.now();
    const value = secrets.newValue();
    const how = await inTransaction(db, async (trx) => {
      const accepted = await acceptSecondFactor(ctx, trx, session, input, now);
      if (!accepted) return null;
      const rotation = { from: session.id, to: secrets.idOf(value), state: 'active', now } as const;
      if (!(await rotateSession(trx, { ...rotation, expiresAt: new Date(now.getTime() + ctx.absoluteMs) }))) return null;
      const entries = [userEntry(user, 'user.signed_in', { origin: caller.origin, changes: { state: 'active', second_factor: accepted } })];
      if (accepted === 'recovery_code') entries.unshift(userEntry(user, 'user.recovery_code_used', { origin: caller.origin }));
      await appendAudit(trx, entries, now);
      return accepted;
    });
    if (!how) {
      await appendAudit(db, [userEntry(user, 'user.second_factor_failed', { origin: caller.origin })], now);
      throw await throttle.failed(user.email, caller.ip, secondFactorInvalid());
    }
    await throttle.succeeded(user.email, caller.ip);
    return { value, body: { state: 'active' as const, csrf_token: secrets.csrfOf(value) } };
  }

  return { signIn, secondFactor };
}

/** A live session: its reads, its token and signing out. */
export function createSessions(ctx: UsersContext) {
  const { db, clock, secrets } = ctx;

  /** The live session of a cookie value, or null; a request counts as activity (written at most once a minute). */
  async function resolve(value: string): Promise<Session | null> {
    const id = secrets.idOf(value);
    const row = await findSession(db, id);
    const nowMs = clock.now().getTime();
    const end = row ? sessionEnd(row, nowMs, ctx.idleMs) : null;
    if (!row || !end) return null;
    if (nowMs - row.last_seen_at.getTime() >= TOUCH_MS) {
      await touchSession(db, id, new Date(nowMs), new Date(nowMs - TOUCH_MS));
      end.idleMs = nowMs + ctx.idleMs;
    }
    return { value, id, row, state: effectiveState(row), end };
  }

  function view(session: Session) {
    const { row } = session;
    return {
      state: session.state,
      csrf_token: secrets.csrfOf(session.value),
      user: userView(row),
      merchant: { id: row.merchant_id, name: row.merchant_name, livemode: row.livemode },
      expires_at: new Date(session.end.absoluteMs).toISOString(),
      idle_expires_at: new Date(session.end.idleMs).toISOString(),
    };
  }

  /** An access token bound to the session: the role's rights, judged at each use; it stops with the session. */
  async function sessionToken(session: Session): Promise<IssuedToken> {
    const now = clock.now();
    const expiresIn = Math.min(SESSION_TOKEN_MAX_S, Math.floor((session.end.absoluteMs - now.getTime()) / 1000));
    if (expiresIn < 1) throw new ApiError('session_invalid', 'The session has ended; sign in again.');
    const token = newSecret(ACCESS_TOKEN_PREFIX);
    await insertAccessToken(db, {
      tokenHash: keyedHash(ctx.hashKey, token),
      merchantId: session.row.merchant_id,
      credentialVersion: session.row.credential_version,
      apiKeyId: null,
      keyVersion: null,
      sessionId: session.id,
      createdAt: now,
      expiresAt: new Date(now.getTime() + expiresIn * 1000),
    });
    return { access_token: token, token_type: 'Bearer', expires_in: expiresIn };
  }

  async function signOut(session: Session, caller: Caller): Promise<void> {
    const now = clock.now();
    await inTransaction(db, async (trx) => {
      if (await revokeSession(trx, session.id, now))
        await appendAudit(trx, [userEntry(session.row, 'user.signed_out', { origin: caller.origin })], now);
    });
    ctx.changed();
  }

  return { resolve, view, sessionToken, signOut };
}

/** Every users service, on one context (deps.ts builds it once). */
export function createUsersService(deps: UsersDeps) {
  const ctx = usersContext(deps);
  return {
    ...createSignIn(ctx),
    ...createSessions(ctx),
    ...createAccount(ctx),
    team: createTeam(ctx),
    csrfMatches: ctx.secrets.csrfMatches,
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
