import { useState } from 'preact/hooks';
import { ErrorNotice } from '../components/error-notice.tsx';
import { signIn } from '../lib/session.ts';

/**
 * The merchant's client credentials, exchanged at /oauth/token. The secret field is emptied as soon
 * as the exchange is under way, and the secret is never shown or logged again.
 */
export function SignIn({ notice }: { notice: string | null }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const clientId = String(data.get('client_id') ?? '').trim();
    const clientSecret = String(data.get('client_secret') ?? '');
    (form.elements.namedItem('client_secret') as HTMLInputElement).value = '';
    setBusy(true);
    setError(null);
    try {
      await signIn(clientId, clientSecret);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <h1>Purse dashboard</h1>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <form class="stacked" onSubmit={submit}>
        <label for="client_id">Client ID</label>
        <input id="client_id" name="client_id" autoComplete="username" required spellcheck={false} />
        <label for="client_secret">Client secret</label>
        <input id="client_secret" name="client_secret" type="password" autoComplete="current-password" required />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <ErrorNotice error={error} />
      <p class="muted">The token stays in this tab's memory only: reloading or closing the tab signs you out.</p>
    </main>
  );
}
