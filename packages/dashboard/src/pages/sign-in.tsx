import { ErrorNotice } from '../components/error-notice.tsx';
import { clearFields, onSubmitWith, text } from '../lib/forms.ts';
import { signInWithClient, signInWithPassword } from '../lib/session.ts';
import { useAction } from '../lib/use-action.ts';

export function Notice({ notice }: { notice: string | null }) {
  if (!notice) return null;
  return (
    <p class="notice" role="status">
      {notice}
    </p>
  );
}

/** The secondary way in: an API key's client credentials, exchanged at /oauth/token; live merchants are refused. */
function ClientCredentials() {
  const signIn = useAction(signInWithClient);
  const submit = onSubmitWith((form) => {
    const clientId = text(form, 'client_id').trim();
    const clientSecret = text(form, 'client_secret');
    clearFields(form, 'client_secret');
    void signIn.run(clientId, clientSecret);
  });
  return (
    <details class="panel">
      <summary>Sign in with API client credentials — sandbox merchants only</summary>
      <form class="stacked" onSubmit={submit}>
        <label for="client_id">Client ID</label>
        <input id="client_id" name="client_id" autoComplete="off" required spellcheck={false} />
        <label for="client_secret">Client secret</label>
        <input id="client_secret" name="client_secret" type="password" autoComplete="off" required />
        <button type="submit" disabled={signIn.busy}>
          Sign in with client credentials
        </button>
      </form>
      <ErrorNotice error={signIn.error} />
      <p class="muted">The token stays in this tab's memory only: reloading or closing the tab signs you out.</p>
    </details>
  );
}

/**
 * Email and password (the usual way in); the password field is emptied as soon as the request is
 * under way. Then the second factor or the TOTP enrolment, when the server asks for one.
 */
export function SignIn({ notice }: { notice: string | null }) {
  const signIn = useAction(signInWithPassword);
  const submit = onSubmitWith((form) => {
    const email = text(form, 'email').trim();
    const password = text(form, 'password');
    clearFields(form, 'password');
    void signIn.run(email, password);
  });
  return (
    <main id="main" class="sign-in">
      <h1>Purse dashboard</h1>
      <Notice notice={notice} />
      <form class="stacked" onSubmit={submit} aria-label="Sign in">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autoComplete="username" required spellcheck={false} />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autoComplete="current-password" required />
        <button type="submit" disabled={signIn.busy}>
          Sign in
        </button>
      </form>
      <ErrorNotice error={signIn.error} />
      <ClientCredentials />
    </main>
  );
}
