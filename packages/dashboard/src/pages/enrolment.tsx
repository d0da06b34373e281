import { TotpEnrolment } from '../components/totp-enrolment.tsx';
import type { User } from '../lib/dashboard-api.ts';
import { refreshSession, signOut } from '../lib/session.ts';

/** Owners and admins without TOTP: the session can do nothing else until they enrol. */
export function Enrolment({ user }: { user: User | null }) {
  return (
    <main id="main" class="sign-in enrol">
      <h1>Set up two-factor authentication</h1>
      <p>
        {user ? `${user.email}, as ${user.role === 'admin' ? 'an admin' : 'an owner'}` : 'As an owner or admin'}, you need a second factor
        to sign in: a six-digit code from an authenticator app (RFC 6238 TOTP).
      </p>
      <TotpEnrolment onDone={() => void refreshSession()} />
      <button type="button" class="secondary" onClick={() => void signOut(null)}>
        Cancel and sign out
      </button>
    </main>
  );
}
