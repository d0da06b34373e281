// The dashboard's own routes under /dashboard/api/ (sign-in, session, TOTP, users): the session
// cookie is HttpOnly, so the page never sees it and the browser sends it; the CSRF token the server
// returns is kept here, in memory only, and sent as X-CSRF-Token on every state-changing call.
import { PurseError } from '@purse/sdk';

export type Role = 'owner' | 'admin' | 'developer' | 'support' | 'viewer';
export const ROLES: readonly Role[] = ['owner', 'admin', 'developer', 'support', 'viewer'];

export interface User {
  id: string;
  object: 'user';
  email: string;
  role: Role;
  status: string;
  totp_enabled: boolean;
  created_at: string;
}

export type SessionState = 'active' | 'second_factor_required' | 'enrolment_required';

export interface SessionAnswer {
  state: SessionState;
  csrf_token: string;
  user: User;
  merchant: { id: string; name: string; livemode: boolean };
  expires_at: string;
  idle_expires_at: string;
}

let csrfToken: string | null = null;
let onSessionInvalid: (() => void) | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** What to do when the server says the session is gone (401 session_invalid): set once by session.ts. */
export function whenSessionInvalid(handler: () => void): void {
  onSessionInvalid = handler;
}

async function errorOf(response: Response): Promise<PurseError> {
  let body: { error?: { message?: string; type?: string; code?: string; param?: string; request_id?: string } } = {};
  try {
    body = await response.json();
  } catch {
    // Not the API's envelope (a proxy's page): the status says enough.
  }
  const e = body.error ?? {};
  return new PurseError({
    message: e.message ?? `HTTP ${response.status}`,
    status: response.status,
    type: e.type,
    code: e.code,
    param: e.param ?? null,
    requestId: e.request_id ?? response.headers.get('request-id'),
  });
}

/**
 * One call to /dashboard/api/<path>: JSON in and out, the CSRF header on writes, errors as
 * PurseError (so the pages show them like the API's). A 401 session_invalid also ends the session.
 */
export async function dashboardCall<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: object): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(`/dashboard/api/${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (cause) {
    throw new PurseError({ message: 'Purse could not be reached. Check the connection and try again.', type: 'network_error', cause });
  }
  if (!response.ok) {
    const error = await errorOf(response);
    if (error.status === 401 && error.code === 'session_invalid') onSessionInvalid?.();
    throw error;
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** A token bound to the session, for the SDK's `accessToken` (asked again after a 401). */
export async function sessionToken(): Promise<string> {
  const answer = await dashboardCall<{ access_token: string }>('POST', 'session/token');
  return answer.access_token;
}
