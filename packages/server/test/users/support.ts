// What the users tests share: invited users signed in through the real routes, their cookie and
// CSRF token, TOTP codes computed at the app's (manual) clock.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import type { UserRole } from '../../src/users/roles.ts';
import type { TestApp } from '../helpers/app.ts';

export const PASSWORD = 'correct horse battery staple';

export const uniqueEmail = (prefix = 'user') => `${prefix}-${randomBytes(6).toString('hex')}@shop.example`;

/** The code of `secret` at the app's clock, `steps` 30-second steps away. */
export function totpCode(app: TestApp, secret: string, steps = 0): string {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
  return totp.generate({ timestamp: app.deps.clock.now().getTime() + steps * 30_000 });
}

/** The session cookie's value set by a response, or undefined. */
export function sessionCookie(res: LightMyRequestResponse): string | undefined {
  const header = res.headers['set-cookie'];
  const all = Array.isArray(header) ? header : header === undefined ? [] : [String(header)];
  for (const line of all) {
    const match = /^purse_session=([^;]*)/.exec(line);
    if (match) return match[1];
  }
  return undefined;
}

export interface Browser {
  email: string;
  password: string;
  userId: string;
  cookie: string;
  csrf: string;
  totpSecret?: string;
  recoveryCodes?: string[];
}

/** A request with the browser's cookie and (for writes) its CSRF token. */
export function call(app: TestApp, b: Pick<Browser, 'cookie' | 'csrf'>, method: InjectOptions['method'], url: string, payload?: unknown) {
  const headers: Record<string, string> = { cookie: `purse_session=${b.cookie}` };
  if (method !== 'GET') headers['x-csrf-token'] = b.csrf;
  return app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
}

export function signIn(app: TestApp, email: string, password: string, remoteAddress = '127.0.0.1') {
  return app.inject({ method: 'POST', url: '/dashboard/api/sign-in', payload: { email, password }, remoteAddress });
}

/** Invites (as the operator) and returns the invitation token. */
export async function invite(app: TestApp, merchantId: string, email: string, role: UserRole): Promise<{ token: string; userId: string }> {
  const invited = await app.deps.services.users.team.invite(merchantId, { email, role }, 'http://127.0.0.1:8080', { operator: true });
  const token = invited.invitation_url.split('#')[1] ?? '';
  return { token, userId: invited.user.id };
}

export async function accept(app: TestApp, token: string, password = PASSWORD) {
  return app.inject({ method: 'POST', url: '/dashboard/api/invitations/accept', payload: { token, password } });
}

/** An invited user who accepted, signed in and (owner, admin) enrolled TOTP: an active session. */
export async function activeUser(app: TestApp, merchantId: string, role: UserRole, email = uniqueEmail(role)): Promise<Browser> {
  const { token, userId } = await invite(app, merchantId, email, role);
  assert.equal((await accept(app, token)).statusCode, 200);
  const res = await signIn(app, email, PASSWORD);
  assert.equal(res.statusCode, 200, res.body);
  const browser: Browser = { email, password: PASSWORD, userId, cookie: sessionCookie(res) ?? '', csrf: res.json().csrf_token };
  if (res.json().state === 'active') return browser;
  assert.equal(res.json().state, 'enrolment_required');
  return enrol(app, browser);
}

/** Enrols TOTP with the session: the browser's new cookie, CSRF token, secret and recovery codes. */
export async function enrol(app: TestApp, browser: Browser): Promise<Browser> {
  const enrolled = await call(app, browser, 'POST', '/dashboard/api/totp/enrol');
  assert.equal(enrolled.statusCode, 200, enrolled.body);
  const secret = enrolled.json().secret as string;
  const confirmed = await call(app, browser, 'POST', '/dashboard/api/totp/confirm', { code: totpCode(app, secret) });
  assert.equal(confirmed.statusCode, 200, confirmed.body);
  return {
    ...browser,
    cookie: sessionCookie(confirmed) ?? '',
    csrf: confirmed.json().csrf_token,
    totpSecret: secret,
    recoveryCodes: confirmed.json().recovery_codes,
  };
}

/** A session-bound access token, as the dashboard gets it. */
export async function sessionToken(app: TestApp, browser: Browser): Promise<string> {
  const res = await call(app, browser, 'POST', '/dashboard/api/session/token');
  assert.equal(res.statusCode, 200, res.body);
  return res.json().access_token;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
