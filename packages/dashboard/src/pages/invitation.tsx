import { useEffect, useState } from 'preact/hooks';
import { ErrorNotice } from '../components/error-notice.tsx';
import { checkNewPassword, NewPasswordFields } from '../components/new-password.tsx';
import { dashboardCall } from '../lib/dashboard-api.ts';
import { clearFields, onSubmitWith, text } from '../lib/forms.ts';
import { Link } from '../lib/router.tsx';
import { useAction } from '../lib/use-action.ts';

/** The token of /dashboard/invitation#<token>: a fragment, so it reached neither the server's logs nor a Referer. */
function tokenFromFragment(): string {
  try {
    return decodeURIComponent(location.hash.slice(1));
  } catch {
    return '';
  }
}

/** Accepting an invitation: the invited user chooses a password (twice), then signs in. */
export function Invitation() {
  const [token] = useState(tokenFromFragment);
  const [email, setEmail] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    // The one-time token leaves the address bar (and this tab's history) once read.
    if (location.hash) history.replaceState(null, '', location.pathname);
  }, []);
  const accept = useAction(async (password: string) => {
    const answer = await dashboardCall<{ email: string }>('POST', 'invitations/accept', { token, password });
    setEmail(answer.email);
  });
  const submit = onSubmitWith((form) => {
    const password = text(form, 'new_password');
    const wrong = checkNewPassword(password, text(form, 'repeat_password'));
    setProblem(wrong);
    if (wrong) return;
    clearFields(form, 'new_password', 'repeat_password');
    void accept.run(password);
  });
  return (
    <main id="main" class="sign-in">
      <h1>Accept your invitation</h1>
      {email ? (
        <div role="status" class="notice">
          <p>Your password is set for {email}.</p>
          <p>
            <Link to="">Now sign in</Link>
          </p>
        </div>
      ) : token === '' ? (
        <p class="error" role="alert">
          This link holds no invitation. Open the link exactly as you received it, or ask for a new one.
        </p>
      ) : (
        <>
          <p>Choose the password you will sign in to the Purse dashboard with.</p>
          <form class="stacked" onSubmit={submit}>
            <NewPasswordFields prefix="invite" />
            <button type="submit" disabled={accept.busy}>
              Set password
            </button>
          </form>
          {problem && (
            <p class="error" role="alert">
              {problem}
            </p>
          )}
          <ErrorNotice error={accept.error} />
        </>
      )}
    </main>
  );
}
