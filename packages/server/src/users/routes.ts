import { Type } from 'typebox';
import { IdParams } from '../http/params.ts';
import type { RouteApp } from '../http/route-app.ts';
import { ApiError } from '../shared/errors.ts';
import { callerOf, clearCookie, requireOwner, sameSiteOnly, sessionGuard, withCookie } from './guard.ts';
import * as s from './schemas.ts';
import type { UsersService } from './service.ts';

const tags = ['Dashboard sign-in'];
const ALL = ['active', 'second_factor_required', 'enrolment_required'] as const;
const ACTIVE = ['active'] as const;
/** The session cookie; writes add the X-CSRF-Token header. */
const READ = [{ dashboardSession: [] }];
const WRITE = [{ dashboardSession: [], csrfToken: [] }];

const ERRORS: Record<number, string> = {
  400: 'Invalid request: invalid_json, parameter_missing, parameter_invalid or parameter_unknown.',
  401: 'session_invalid: no live session (signed out, expired, revoked); the cookie is cleared.',
  403: 'csrf_token_invalid (missing or wrong X-CSRF-Token, or a cross-site request), or session_incomplete (the second factor or TOTP enrolment comes first).',
  404: 'resource_not_found: unknown user, or a user of another merchant (identical body).',
  409: 'A conflict; see the code.',
  415: 'unsupported_media_type: send application/json.',
  429: 'rate_limited; see Retry-After.',
};

/** Error responses with this route's own descriptions where given. */
function errors(statuses: number[], own: Record<number, string> = {}): Record<number, unknown> {
  return Object.fromEntries(statuses.map((status) => [status, { description: own[status] ?? ERRORS[status], $ref: 'Error#' }]));
}

/**
 * The dashboard's own routes (docs/users.md): sign-in, the session and its token, TOTP, the
 * password, invitations and the owner's users. Cookie-authenticated, outside /v1.
 */
export async function registerUserRoutes(app: RouteApp, deps: { users: UsersService; publicBaseUrl: string | null }): Promise<void> {
  await app.register(
    async (api) => {
      api.addSchema(s.UserView);
      // Every answer carries session secrets (CSRF tokens, recovery codes, links): never cached.
      api.addHook('onSend', async (_request, reply) => {
        void reply.header('cache-control', 'no-store');
      });
      registerSignInRoutes(api, deps);
      registerInvitationRoute(api, deps);
      registerSessionRoutes(api, deps);
      registerAccountRoutes(api, deps);
      registerTeamRoutes(api, deps);
      // Anything else under /dashboard/api is an unknown API route, not a page of the app.
      api.get('/*', { schema: { hide: true } }, async () => {
        throw new ApiError('route_not_found', 'No such dashboard API route.');
      });
    },
    { prefix: '/dashboard/api' },
  );
}

function registerSignInRoutes(api: RouteApp, deps: { users: UsersService; publicBaseUrl: string | null }): void {
  const { users } = deps;
  api.post(
    '/sign-in',
    {
      onRequest: sameSiteOnly(deps.publicBaseUrl),
      schema: {
        operationId: 'dashboardSignIn',
        tags,
        summary: 'Sign in to the dashboard with email and password',
        description:
          'Sets the HttpOnly, SameSite=Strict session cookie `purse_session` (Path=/dashboard; Secure over HTTPS) with a new value, ' +
          "and answers the session's CSRF token. A wrong email, a wrong password, a removed user and one that has not accepted its " +
          `invitation all answer the same 401 sign_in_failed, in the same time. ${s.THROTTLE_NOTE} ` +
          "Live and sandbox merchants' users sign in alike. Cross-site requests are refused (403 csrf_token_invalid).",
        security: [{}],
        body: s.SignInBody,
        response: {
          200: s.SignInReply,
          ...errors([400, 401, 403, 415, 429], { 401: 'sign_in_failed: wrong email or password, or the user is not active.' }),
        },
      },
    },
    async (request, reply) => {
      const { value, body } = await users.signIn(request.body, callerOf(request));
      return withCookie(request, reply, value, body);
    },
  );
  api.post(
    '/sign-in/second-factor',
    {
      onRequest: sessionGuard(users, ['second_factor_required']),
      schema: {
        operationId: 'dashboardSecondFactor',
        tags,
        summary: 'Complete sign-in with a TOTP code or a recovery code',
        description:
          'A code whose 30-second step was already used by this user (or an older one) is refused; a recovery code works once. ' +
          `The session gets a new cookie value and CSRF token, and lives PURSE_SESSION_ABSOLUTE_S from now. Failures are throttled like sign-in. ${s.THROTTLE_NOTE}`,
        security: WRITE,
        body: s.SecondFactorBody,
        response: {
          200: s.ActiveReply,
          ...errors([400, 401, 403, 409, 415, 429], { 401: 'second_factor_invalid (wrong, expired or used code), or session_invalid.' }),
        },
      },
    },
    async (request, reply) => {
      const { value, body } = await users.secondFactor(request.dashboardSession, request.body, callerOf(request));
      return withCookie(request, reply, value, body);
    },
  );
}

function registerInvitationRoute(api: RouteApp, deps: { users: UsersService; publicBaseUrl: string | null }): void {
  const { users } = deps;
  api.post(
    '/invitations/accept',
    {
      onRequest: sameSiteOnly(deps.publicBaseUrl),
      schema: {
        operationId: 'dashboardAcceptInvitation',
        tags,
        summary: 'Accept an invitation: set the password and activate the user',
        description:
          'The token is the part of the invitation link after `#`. It works once, for 72 hours; then sign in (owners and admins enrol TOTP next).',
        security: [{}],
        body: s.AcceptBody,
        response: {
          200: s.AcceptReply,
          ...errors([400, 403, 415], { 400: 'invitation_invalid (used, expired or unknown), or invalid input.' }),
        },
      },
    },
    async (request) => users.acceptInvitation(request.body, callerOf(request)),
  );
}

function registerSessionRoutes(api: RouteApp, { users }: { users: UsersService }): void {
  api.get(
    '/session',
    {
      onRequest: sessionGuard(users, ALL),
      schema: {
        operationId: 'dashboardSession',
        tags,
        summary: 'The current session: its state, CSRF token, user, merchant and ends',
        description:
          'Sessions end after PURSE_SESSION_IDLE_S (default 1800) without a request and PURSE_SESSION_ABSOLUTE_S (default 43200) after ' +
          'sign-in; a session waiting for its second factor or TOTP enrolment lives at most 600 s. Activity is written at most once a minute.',
        security: READ,
        response: { 200: s.SessionReply, ...errors([401]) },
      },
    },
    async (request) => users.view(request.dashboardSession),
  );
  api.post(
    '/session/token',
    {
      onRequest: sessionGuard(users, ACTIVE),
      schema: {
        operationId: 'dashboardSessionToken',
        tags,
        summary: 'An access token bound to the session, for /v1',
        description:
          'Use it as a Bearer token on /v1. Its rights are the user’s role’s, judged at each use (cached at most 2 s): a role change, ' +
          'the user’s removal, sign-out, expiry or a password change stop it within 5 s. It lives min(600 s, the session’s remaining ' +
          'absolute life); each use counts as activity of the session.',
        security: WRITE,
        response: { 200: s.TokenReply, ...errors([401, 403]) },
      },
    },
    async (request) => users.sessionToken(request.dashboardSession),
  );
  api.post(
    '/sign-out',
    {
      onRequest: sessionGuard(users, ALL),
      schema: {
        operationId: 'dashboardSignOut',
        tags,
        summary: 'Sign out: the session and its tokens end, the cookie is cleared',
        security: WRITE,
        response: { 204: Type.Null({ description: 'Signed out.' }), ...errors([401, 403]) },
      },
    },
    async (request, reply) => {
      await users.signOut(request.dashboardSession, callerOf(request));
      clearCookie(request, reply);
      return reply.code(204).send(null);
    },
  );
}

function registerAccountRoutes(api: RouteApp, { users }: { users: UsersService }): void {
  api.post(
    '/totp/enrol',
    {
      onRequest: sessionGuard(users, ['active', 'enrolment_required']),
      schema: {
        operationId: 'dashboardTotpEnrol',
        tags,
        summary: 'Start TOTP enrolment: a new secret, as base32 text and an otpauth:// URI',
        description:
          'RFC 6238: SHA-1, 6 digits, 30 s. The secret is kept encrypted and pending until confirmed; enrolling again replaces a pending one.',
        security: WRITE,
        response: { 200: s.EnrolReply, ...errors([401, 403, 409], { 409: 'totp_already_enabled.' }) },
      },
    },
    async (request) => users.enrolTotp(request.dashboardSession),
  );
  api.post(
    '/totp/confirm',
    {
      onRequest: sessionGuard(users, ['active', 'enrolment_required']),
      schema: {
        operationId: 'dashboardTotpConfirm',
        tags,
        summary: 'Confirm TOTP with a first code: recovery codes, shown once',
        description:
          'Ten recovery codes (xxxx-xxxx-xxxx, lowercase base32), each usable once instead of a code; only their keyed hashes are kept. ' +
          'The session becomes active with a new cookie value and CSRF token. A wrong code: 400 parameter_invalid (param code).',
        security: WRITE,
        body: s.CodeBody,
        response: {
          200: s.ConfirmReply,
          ...errors([400, 401, 403, 409, 415], { 409: 'totp_already_enabled, or invalid_state (no enrolment under way).' }),
        },
      },
    },
    async (request, reply) => {
      const { value, body } = await users.confirmTotp(request.dashboardSession, request.body.code, callerOf(request));
      return withCookie(request, reply, value, body);
    },
  );
  api.post(
    '/password',
    {
      onRequest: sessionGuard(users, ACTIVE),
      schema: {
        operationId: 'dashboardChangePassword',
        tags,
        summary: 'Change the password: every other session of the user ends',
        description:
          'This session gets a new cookie value and CSRF token; every other session of the user, and their tokens, end. A wrong current ' +
          `password: 400 parameter_invalid (param current_password), throttled like sign-in. ${s.THROTTLE_NOTE}`,
        security: WRITE,
        body: s.PasswordBody,
        response: { 200: s.CsrfReply, ...errors([400, 401, 403, 415, 429]) },
      },
    },
    async (request, reply) => {
      const { value, body } = await users.changePassword(request.dashboardSession, request.body, callerOf(request));
      return withCookie(request, reply, value, body);
    },
  );
}

function registerTeamRoutes(api: RouteApp, deps: { users: UsersService; publicBaseUrl: string | null }): void {
  const { team } = deps.users;
  const owner = sessionGuard(deps.users, ACTIVE);
  const ownerOnly = { 403: 'csrf_token_invalid, session_incomplete, or insufficient_role (only owners manage users).' };
  api.get(
    '/users',
    {
      onRequest: owner,
      schema: {
        operationId: 'dashboardListUsers',
        tags,
        summary: "List the merchant's users (removed ones excluded); owners only",
        security: READ,
        response: { 200: s.UserList, ...errors([401, 403], ownerOnly) },
      },
    },
    async (request) => {
      requireOwner(request.dashboardSession);
      return team.list(request.dashboardSession.row.merchant_id);
    },
  );
  api.post(
    '/users',
    {
      onRequest: owner,
      schema: {
        operationId: 'dashboardInviteUser',
        tags,
        summary: 'Invite a user: a one-time link, valid 72 hours; owners only',
        description:
          'The link is `<base>/dashboard/invitation#<token>` (PURSE_PUBLIC_URL, else this request’s origin), shown once. An email already ' +
          'used by a user that is not removed, of any merchant: 409 user_exists (one message, whichever merchant).',
        security: WRITE,
        body: s.InviteBody,
        response: { 201: s.InviteReply, ...errors([400, 401, 403, 409, 415], { ...ownerOnly, 409: 'user_exists.' }) },
      },
    },
    async (request, reply) => {
      const session = request.dashboardSession;
      requireOwner(session);
      const base = deps.publicBaseUrl ?? `${request.protocol}://${request.host}`;
      const invited = await team.invite(session.row.merchant_id, request.body, base, { session, caller: callerOf(request) });
      return reply.code(201).send(invited);
    },
  );
  registerUserChangeRoutes(api, deps, ownerOnly);
}

function registerUserChangeRoutes(api: RouteApp, deps: { users: UsersService }, ownerOnly: Record<number, string>): void {
  const { team } = deps.users;
  const owner = sessionGuard(deps.users, ACTIVE);
  const lastOwner = { 409: 'last_owner: the merchant’s last active owner cannot be demoted or removed.' };
  api.patch(
    '/users/:id',
    {
      onRequest: owner,
      schema: {
        operationId: 'dashboardChangeUserRole',
        tags,
        summary: "Change a user's role; owners only",
        description: 'Takes effect on the user’s sessions and session tokens within 5 s.',
        security: WRITE,
        params: IdParams,
        body: s.RoleBody,
        response: { 200: { $ref: 'User#' }, ...errors([400, 401, 403, 404, 409, 415], { ...ownerOnly, ...lastOwner }) },
      },
    },
    async (request) => {
      requireOwner(request.dashboardSession);
      return team.changeRole(request.dashboardSession, request.params.id, request.body.role, callerOf(request));
    },
  );
  api.delete(
    '/users/:id',
    {
      onRequest: owner,
      schema: {
        operationId: 'dashboardRemoveUser',
        tags,
        summary: 'Remove a user: its sessions and tokens end; owners only',
        description: 'The user stays in the audit log; its email is free again.',
        security: WRITE,
        params: IdParams,
        response: { 204: Type.Null({ description: 'Removed.' }), ...errors([401, 403, 404, 409], { ...ownerOnly, ...lastOwner }) },
      },
    },
    async (request, reply) => {
      requireOwner(request.dashboardSession);
      await team.remove(request.dashboardSession, request.params.id, callerOf(request));
      return reply.code(204).send(null);
    },
  );
}
