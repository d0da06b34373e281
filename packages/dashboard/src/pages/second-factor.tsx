import { useState } from 'preact/hooks';
import { ErrorNotice } from '../components/error-notice.tsx';
import type { User } from '../lib/dashboard-api.ts';
import { clearFields, onSubmitWith, text } from '../lib/forms.ts';
import { signOut, submitSecondFactor } from '../lib/session.ts';
import { useAction } from '../lib/use-action.ts';

/** After the password: the six-digit code of the authenticator app, or one of the recovery codes. */
export function SecondFactor({ user }: { user: User | null }) {
  const [recovery, setRecovery] = useState(false);
  const step = useAction(submitSecondFactor);
  const submit = onSubmitWith((form) => {
    const value = text(form, 'code').replace(/\s+/g, '');
    clearFields(form, 'code');
    void step.run(recovery ? { recovery_code: value.toLowerCase() } : { code: value });
  });
  return (
    <main id="main" class="sign-in">
      <h1>Two-factor authentication</h1>
      {user && <p>Signing in as {user.email}.</p>}
      <form class="stacked" onSubmit={submit} key={recovery ? 'recovery' : 'totp'}>
        {recovery ? (
          <>
            <label for="code">Recovery code</label>
            <input id="code" name="code" autoComplete="off" required spellcheck={false} placeholder="xxxx-xxxx-xxxx" />
          </>
        ) : (
          <>
            <label for="code">Code from your authenticator app</label>
            <input id="code" name="code" inputMode="numeric" autoComplete="one-time-code" required pattern="[0-9 ]{6,7}" maxLength={7} />
          </>
        )}
        <button type="submit" disabled={step.busy}>
          Continue
        </button>
      </form>
      <ErrorNotice error={step.error} />
      <div class="actions">
        <button type="button" class="secondary" onClick={() => setRecovery(!recovery)}>
          {recovery ? 'Use a code from the app instead' : 'Use a recovery code instead'}
        </button>
        <button type="button" class="secondary" onClick={() => void signOut(null)}>
          Cancel and sign out
        </button>
      </div>
    </main>
  );
}
