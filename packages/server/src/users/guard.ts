import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditOrigin } from '../audit/types.ts';
import { ApiError } from '../shared/errors.ts';
import type { Caller, Session } from './context.ts';
import { ROLES } from './roles.ts';
import type { UsersService } from './service.ts';
import { clearSessionCookie, type SessionState, sessionCookieOf, setSessionCookie } from './sessions.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The dashboard session of a /dashboard/api route that needs one (set by sessionGuard). */
    dashboardSession: Session;
  }
}

const csrfInvalid = () =>
  new ApiError(
    'csrf_token_invalid',
    'The X-CSRF-Token header is missing or is not this session’s token (GET /dashboard/api/session gives it).',
  );

const isHttps = (request: FastifyRequest) => request.protocol === 'https';

export function callerOf(request: FastifyRequest): Caller {
  const userAgent = request.headers['user-agent'];
  const origin: AuditOrigin = {
    ip: request.ip,
    userAgent: userAgent === undefined ? null : userAgent.slice(0, 512),
    requestId: request.id,
  };
  return { ip: request.ip, origin };
}

/** Sends the session's new cookie (a new id at each step) with `body`. */
export function withCookie<T>(request: FastifyRequest, reply: FastifyReply, value: string, body: T): T {
  void reply.header('set-cookie', setSessionCookie(value, isHttps(request)));
  return body;
}

export function clearCookie(request: FastifyRequest, reply: FastifyReply): void {
  void reply.header('set-cookie', clearSessionCookie(isHttps(request)));
}

/** What a session in each state may not do yet, said to the caller. */
const NOT_YET: Record<SessionState, string> = {
  active: 'This session has completed its sign-in; this step is not needed.',
  second_factor_required: 'This session needs its second factor first: POST /dashboard/api/sign-in/second-factor.',
  enrolment_required: 'This role needs two-factor authentication: enrol it first (POST /dashboard/api/totp/enrol, then /totp/confirm).',
};

/**
 * onRequest hook of a route that uses the session cookie: a live session (else 401
 * session_invalid and the cookie cleared), the CSRF header on every write, and a state the route
 * allows. Runs before the body is read.
 */
export function sessionGuard(users: UsersService, states: readonly SessionState[]) {
  return async function guard(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const value = sessionCookieOf(request.headers.cookie);
    const session = value === undefined ? null : await users.resolve(value);
    if (!session) {
      throw new ApiError('session_invalid', 'No live session (signed out, expired or revoked): sign in at POST /dashboard/api/sign-in.', {
        headers: { 'set-cookie': clearSessionCookie(isHttps(request)) },
      });
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const sent = request.headers['x-csrf-token'];
      if (typeof sent !== 'string' || !users.csrfMatches(session.value, sent)) throw csrfInvalid();
    }
    if (!states.includes(session.state)) {
      const code = session.state === 'active' ? 'invalid_state' : 'session_incomplete';
      throw new ApiError(code, NOT_YET[session.state]);
    }
    request.dashboardSession = session;
  };
}

/**
 * onRequest hook of the two routes without a session (sign-in, accepting an invitation): a
 * cross-site request is refused (Sec-Fetch-Site, or an Origin other than this service's). Their
 * bodies are JSON only, which a cross-site form cannot send without a preflight.
 */
export function sameSiteOnly(publicBaseUrl: string | null) {
  const publicOrigin = publicBaseUrl === null ? null : new URL(publicBaseUrl).origin;
  return async function sameSite(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    if (request.headers['sec-fetch-site'] === 'cross-site') throw csrfInvalid();
    const origin = request.headers.origin;
    if (origin === undefined) return;
    if (origin !== `${request.protocol}://${request.host}` && origin !== publicOrigin) throw csrfInvalid();
  };
}

/** The users routes are the owner's. */
export function requireOwner(session: Session): void {
  if (!ROLES[session.row.role].managesUsers)
    throw new ApiError('insufficient_role', `Only owners manage users; this user is ${session.row.role}.`);
}
