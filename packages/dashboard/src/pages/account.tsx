import { useState } from 'preact/hooks';
import { ErrorNotice } from '../components/error-notice.tsx';
import { checkNewPassword, NewPasswordFields } from '../components/new-password.tsx';
import { TotpEnrolment } from '../components/totp-enrolment.tsx';
import type { User } from '../lib/dashboard-api.ts';
import { clearFields, onSubmitWith, text } from '../lib/forms.ts';
import { changePassword, currentSession, refreshSession, signOut } from '../lib/session.ts';
import { useAction } from '../lib/use-action.ts';

function PasswordForm() {
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const change = useAction(async (current: string, next: string) => {
    await changePassword(current, next);
    setDone(true);
  });
  const submit = onSubmitWith((form) => {
    const next = text(form, 'new_password');
    const wrong = checkNewPassword(next, text(form, 'repeat_password'));
    setProblem(wrong);
    setDone(false);
    if (wrong) return;
    const current = text(form, 'current_password');
    clearFields(form, 'current_password', 'new_password', 'repeat_password');
    void change.run(current, next);
  });
  return (
    <section aria-labelledby="password-heading" class="panel">
      <h2 id="password-heading">Change your password</h2>
      <form class="stacked" onSubmit={submit}>
        <label for="pw-current">Current password</label>
        <input id="pw-current" name="current_password" type="password" autoComplete="current-password" required />
        <NewPasswordFields prefix="pw" />
        <button type="submit" disabled={change.busy}>
          Change password
        </button>
      </form>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <ErrorNotice error={change.error} />
      {done && <p role="status">Password changed. Your other sessions were signed out.</p>}
    </section>
  );
}

function TwoFactor({ user }: { user: User }) {
  const [enrolling, setEnrolling] = useState(false);
  if (user.totp_enabled) return <p>Two-factor authentication is on.</p>;
  if (!enrolling)
    return (
      <>
        <p>Two-factor authentication is off.</p>
        <button type="button" onClick={() => setEnrolling(true)}>
          Turn on two-factor authentication
        </button>
      </>
    );
  return (
    <TotpEnrolment
      onDone={() => {
        setEnrolling(false);
        void refreshSession();
      }}
    />
  );
}

/** The signed-in user: who, which role, two-factor; change the password; sign out. */
export function Account() {
  const session = currentSession();
  const user = session?.user;
  if (!session || !user) return <h1 tabIndex={-1}>Account</h1>;
  return (
    <>
      <h1 tabIndex={-1}>Account</h1>
      <dl class="fields">
        <div>
          <dt>Email</dt>
          <dd>{user.email}</dd>
        </div>
        <div>
          <dt>Role</dt>
          <dd>{user.role}</dd>
        </div>
        <div>
          <dt>Two-factor authentication</dt>
          <dd>{user.totp_enabled ? 'On' : 'Off'}</dd>
        </div>
        <div>
          <dt>Merchant</dt>
          <dd>{session.merchant.name}</dd>
        </div>
      </dl>
      <section aria-labelledby="tf-heading">
        <h2 id="tf-heading">Two-factor authentication</h2>
        <TwoFactor user={user} />
      </section>
      <PasswordForm />
      <button type="button" class="secondary" onClick={() => void signOut()}>
        Sign out
      </button>
    </>
  );
}
