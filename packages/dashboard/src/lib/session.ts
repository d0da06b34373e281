// Who is signed in, and the client the pages call /v1 with. Two ways in:
// - a user (email, password, then TOTP): the server keeps the session behind an HttpOnly cookie the
//   page never sees; GET /dashboard/api/session restores it after a reload, and the SDK asks the
//   session for short tokens (POST /dashboard/api/session/token);
// - API client credentials, sandbox merchants only: the token and the secret live only in this
//   module's memory (never in any browser storage), so a reload signs out.
import { Purse, PurseError } from '@purse/sdk';
import { useEffect, useState } from 'preact/hooks';
import {
  dashboardCall,
  type SessionAnswer,
  type SessionState,
  sessionToken,
  setCsrfToken,
  type User,
  whenSessionInvalid,
} from './dashboard-api.ts';

export type Stage = 'loading' | 'signed-out' | 'second-factor' | 'enrolment' | 'active';

export interface Session {
  merchant: { id: string; name: string; livemode: boolean };
  /** The signed-in user; null when signed in with API client credentials. */
  user: User | null;
}

export const SESSION_ENDED = 'Your session ended (signed out elsewhere, expired or revoked). Sign in again.';
export const LIVE_REFUSED = 'Live merchants sign in with a user account.';

let stage: Stage = 'loading';
let client: Purse | null = null;
let session: Session | null = null;
/** The user between the password and the second factor (or TOTP enrolment). */
let pendingUser: User | null = null;
let notice: string | null = null;
const listeners = new Set<() => void>();

function changed(): void {
  for (const listener of listeners) listener();
}

/** The signed-in client; pages are rendered only while signed in. */
export function api(): Purse {
  if (!client) throw new Error('not signed in');
  return client;
}

export function currentSession(): Session | null {
  return session;
}

/** Forgets everything of the session on this side (the server's side is the caller's business). */
export function endSession(message: string | null): void {
  client = null;
  session = null;
  pendingUser = null;
  setCsrfToken(null);
  stage = 'signed-out';
  notice = message;
  changed();
}

whenSessionInvalid(() => {
  // On the first load, no session is the normal case, not news.
  endSession(stage === 'loading' ? null : SESSION_ENDED);
});

const STAGES: Record<SessionState, Stage> = {
  active: 'active',
  second_factor_required: 'second-factor',
  enrolment_required: 'enrolment',
};

/** Reads the cookie's session and moves to the stage it is in; an active one gets its client. */
async function followSession(): Promise<void> {
  const answer = await dashboardCall<SessionAnswer>('GET', 'session');
  setCsrfToken(answer.csrf_token);
  stage = STAGES[answer.state];
  if (stage === 'active') {
    client ??= new Purse({ baseUrl: location.origin, accessToken: sessionToken, maxRetries: 1 });
    session = { merchant: answer.merchant, user: answer.user };
    pendingUser = null;
  } else {
    pendingUser = answer.user;
  }
  notice = null;
  changed();
}

/** On load: a session cookie the browser still holds signs in again (a reload keeps the session). */
export async function restore(): Promise<void> {
  try {
    await followSession();
  } catch (error) {
    if (stage !== 'loading') return;
    const unreachable = !(error instanceof PurseError && error.status === 401);
    endSession(unreachable ? 'Purse could not be reached to check your session. Sign in, or reload the page.' : null);
  }
}

export async function signInWithPassword(email: string, password: string): Promise<void> {
  const answer = await dashboardCall<{ csrf_token: string }>('POST', 'sign-in', { email, password });
  setCsrfToken(answer.csrf_token);
  await followSession();
}

export async function submitSecondFactor(input: { code: string } | { recovery_code: string }): Promise<void> {
  const answer = await dashboardCall<{ csrf_token: string }>('POST', 'sign-in/second-factor', input);
  setCsrfToken(answer.csrf_token);
  await followSession();
}

export interface TotpSecret {
  secret: string;
  otpauth_uri: string;
}

export function startTotpEnrolment(): Promise<TotpSecret> {
  return dashboardCall<TotpSecret>('POST', 'totp/enrol');
}

/** The code from the app confirms the secret: the ten recovery codes, shown once by the caller. */
export async function confirmTotp(code: string): Promise<string[]> {
  const answer = await dashboardCall<{ recovery_codes: string[]; csrf_token: string }>('POST', 'totp/confirm', { code });
  setCsrfToken(answer.csrf_token);
  return answer.recovery_codes;
}

/** After the recovery codes were saved (or the account changed): the session as the server has it now. */
export function refreshSession(): Promise<void> {
  return followSession();
}

export async function changePassword(currentPassword: string, newPassword: string): Promise<void> {
  const answer = await dashboardCall<{ csrf_token: string }>('POST', 'password', {
    current_password: currentPassword,
    new_password: newPassword,
  });
  setCsrfToken(answer.csrf_token);
}

/**
 * API client credentials, exchanged at /oauth/token (the SDK does it on its first call), checked by
 * reading the merchant. A live merchant is refused and nothing is kept: live merchants have users.
 */
export async function signInWithClient(clientId: string, clientSecret: string): Promise<void> {
  const candidate = new Purse({ baseUrl: location.origin, clientId, clientSecret, maxRetries: 1 });
  const merchant = await candidate.merchant.retrieve();
  if (merchant.livemode)
    throw new PurseError({ message: LIVE_REFUSED, status: null, type: 'invalid_request_error', code: 'live_merchant' });
  setCsrfToken(null);
  client = candidate;
  session = { merchant, user: null };
  stage = 'active';
  notice = null;
  changed();
}

/** Ends the session at the server (a user's: the cookie and its tokens stop working), then here. */
export async function signOut(message: string | null = 'You signed out.'): Promise<void> {
  if (session?.user || pendingUser) {
    try {
      await dashboardCall<void>('POST', 'sign-out');
    } catch {
      // Already ended there (session_invalid) or unreachable: this side forgets it all the same.
    }
  }
  endSession(message);
}

/** A 401 that survived the SDK's renewal: the token expired for good, the session ended or the secret was revoked. */
export function endsSession(error: unknown): boolean {
  return error instanceof PurseError && error.status === 401;
}

/** Calls `listener` after every change of the session (main.tsx drops the cached pages when it ends). */
export function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

export function useSession(): { stage: Stage; session: Session | null; pendingUser: User | null; notice: string | null } {
  const [, setVersion] = useState(0);
  useEffect(() => subscribe(() => setVersion((v) => v + 1)), []);
  return { stage, session, pendingUser, notice };
}
