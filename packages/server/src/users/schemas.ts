import { Type } from 'typebox';
import { PASSWORD_MAX, PASSWORD_MIN } from './passwords.ts';
import { USER_ROLES } from './roles.ts';
import { SIGN_IN_FAILURE_LIMIT, SIGN_IN_WINDOW_MS } from './throttle.ts';

const Email = Type.String({
  minLength: 3,
  maxLength: 254,
  pattern: '^[^@\\s]+@[^@\\s]+$',
  description: 'Compared without regard to case; an email belongs to at most one user that is not removed, across all merchants.',
  examples: ['ada@shop.example'],
});

const NewPassword = Type.String({
  minLength: PASSWORD_MIN,
  maxLength: PASSWORD_MAX,
  description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters, no control characters, no composition rules. Stored as an argon2id hash.`,
});

const Password = Type.String({ minLength: 1, maxLength: PASSWORD_MAX });

export const Role = Type.Union(
  USER_ROLES.map((r) => Type.Literal(r)),
  {
    description:
      'owner (everything, users and keys), admin (everything but users), developer (keys, webhooks, read), support (read, refund), viewer (read only).',
  },
);

const State = Type.Union([Type.Literal('active'), Type.Literal('second_factor_required'), Type.Literal('enrolment_required')], {
  description:
    'active; second_factor_required (TOTP on: POST /dashboard/api/sign-in/second-factor next); enrolment_required (owner or admin ' +
    'without TOTP: the session can only enrol TOTP, read the session and sign out).',
});

export const UserView = Type.Object(
  {
    id: Type.String({ examples: ['usr_01jd6x8v1ffq8v2k3m4n5p6q7r'] }),
    object: Type.Literal('user'),
    email: Type.String(),
    role: Role,
    status: Type.Union([Type.Literal('invited'), Type.Literal('active')]),
    totp_enabled: Type.Boolean(),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'User', additionalProperties: false },
);

const UserRef = Type.Unsafe<unknown>({ $ref: 'User#' });

const csrf = Type.String({ description: 'Send it as the X-CSRF-Token header with every POST, PATCH and DELETE of this session.' });

const strict = { additionalProperties: false } as const;

export const SignInBody = Type.Object({ email: Email, password: Password }, strict);
export const SignInReply = Type.Object({ state: State, csrf_token: csrf, user: UserRef }, strict);

export const SecondFactorBody = Type.Union(
  [
    Type.Object(
      { code: Type.String({ pattern: '^[0-9]{6}$', description: 'The current 6-digit code of the authenticator app.' }) },
      strict,
    ),
    Type.Object(
      { recovery_code: Type.String({ minLength: 14, maxLength: 20, description: 'An unused recovery code, xxxx-xxxx-xxxx.' }) },
      strict,
    ),
  ],
  { description: 'Either a TOTP code or a recovery code.' },
);
export const ActiveReply = Type.Object({ state: Type.Literal('active'), csrf_token: csrf }, strict);

export const SessionReply = Type.Object(
  {
    state: State,
    csrf_token: csrf,
    user: UserRef,
    merchant: Type.Object({ id: Type.String(), name: Type.String(), livemode: Type.Boolean() }, strict),
    expires_at: Type.String({ format: 'date-time', description: 'The absolute end (PURSE_SESSION_ABSOLUTE_S after sign-in).' }),
    idle_expires_at: Type.String({ format: 'date-time', description: 'The end if no request comes before (PURSE_SESSION_IDLE_S).' }),
  },
  strict,
);

export const TokenReply = Type.Object(
  { access_token: Type.String(), token_type: Type.Literal('Bearer'), expires_in: Type.Integer({ examples: [600] }) },
  strict,
);

export const EnrolReply = Type.Object(
  {
    secret: Type.String({ description: 'The TOTP secret, base32, to type into an authenticator app.' }),
    otpauth_uri: Type.String({ description: 'otpauth://totp/Purse:<email>?secret=…&issuer=Purse&algorithm=SHA1&digits=6&period=30' }),
  },
  strict,
);

export const CodeBody = Type.Object({ code: Type.String({ pattern: '^[0-9]{6}$' }) }, strict);
export const ConfirmReply = Type.Object(
  { recovery_codes: Type.Array(Type.String(), { description: 'Ten codes, shown once, each usable once.' }), csrf_token: csrf },
  strict,
);

export const PasswordBody = Type.Object({ current_password: Password, new_password: NewPassword }, strict);
export const CsrfReply = Type.Object({ csrf_token: csrf }, strict);

export const AcceptBody = Type.Object(
  {
    token: Type.String({ pattern: '^inv_[A-Za-z0-9_-]{43}$', description: 'The part after # in the invitation link.' }),
    password: NewPassword,
  },
  strict,
);
export const AcceptReply = Type.Object({ email: Type.String() }, strict);

export const InviteBody = Type.Object({ email: Email, role: Role }, strict);
export const InviteReply = Type.Object(
  {
    user: UserRef,
    invitation_url: Type.String({ description: '<base>/dashboard/invitation#<token>: shown once, works once, for 72 hours.' }),
    invitation_expires_at: Type.String({ format: 'date-time' }),
  },
  strict,
);
export const RoleBody = Type.Object({ role: Role }, strict);
export const UserList = Type.Object({ object: Type.Literal('list'), data: Type.Array(UserRef), has_more: Type.Boolean() }, strict);

/** How sign-in is throttled, said in the document. */
export const THROTTLE_NOTE =
  `After ${SIGN_IN_FAILURE_LIMIT} failures for one email from one address within ${SIGN_IN_WINDOW_MS / 60_000} minutes (fixed windows), ` +
  '429 rate_limited with Retry-After; the per-address limit of failed requests (PURSE_ADDRESS_FAILURE_LIMIT per minute) applies too. ' +
  'Failures from other addresses never block an account.';
