import { useEffect, useState } from 'preact/hooks';
import { clearFields, onSubmitWith, text } from '../lib/forms.ts';
import { confirmTotp, startTotpEnrolment, type TotpSecret } from '../lib/session.ts';
import { useAction } from '../lib/use-action.ts';
import { ErrorNotice } from './error-notice.tsx';
import { QrCode } from './qr-code.tsx';

/** The ten recovery codes, shown this once; the user says they saved them before going on. */
function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <section aria-labelledby="recovery-heading" class="panel">
      <h2 id="recovery-heading">Your recovery codes</h2>
      <p>
        Each code signs you in once if you lose your authenticator. They are shown <strong>only now</strong>: save them somewhere safe (a
        password manager, a printed sheet).
      </p>
      <ol class="recovery-codes" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <button type="button" onClick={onDone}>
        I have saved them
      </button>
    </section>
  );
}

/** The secret three ways: a QR code for the app's camera, the otpauth:// URI and the base32 secret as text. */
function SecretShown({ secret }: { secret: TotpSecret }) {
  return (
    <div class="totp-secret">
      <QrCode text={secret.otpauth_uri} label="QR code of your authenticator secret" size={200} />
      <dl class="totp-fields">
        <dt>Secret (type it into the app)</dt>
        <dd>
          <code id="totp-secret">{secret.secret}</code>
        </dd>
        <dt>otpauth URI</dt>
        <dd>
          <code id="totp-uri">{secret.otpauth_uri}</code>
        </dd>
      </dl>
    </div>
  );
}

/**
 * TOTP enrolment: a new secret (shown as a QR code and as text), confirmed with a code from the
 * app, then the recovery codes once. `onDone` runs after "I have saved them".
 */
export function TotpEnrolment({ onDone }: { onDone: () => void }) {
  const [secret, setSecret] = useState<TotpSecret | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const start = useAction(async () => setSecret(await startTotpEnrolment()));
  const confirm = useAction(async (code: string) => setCodes(await confirmTotp(code)));
  const begin = start.run;
  // One secret per visit, asked for once.
  useEffect(() => {
    void begin();
  }, []);
  if (codes) return <RecoveryCodes codes={codes} onDone={onDone} />;
  const submit = onSubmitWith((form) => {
    const code = text(form, 'totp_code').replace(/\s+/g, '');
    clearFields(form, 'totp_code');
    void confirm.run(code);
  });
  return (
    <section aria-labelledby="enrol-heading" class="panel">
      <h2 id="enrol-heading">Add Purse to your authenticator app</h2>
      <ErrorNotice error={start.error} />
      {!secret && !start.error && <p>Preparing a secret…</p>}
      {secret && (
        <>
          <p>Scan the QR code with the app, or type the secret into it. Then enter the six-digit code the app shows.</p>
          <SecretShown secret={secret} />
          <form class="stacked" onSubmit={submit}>
            <label for="totp_code">Code from the app</label>
            <input
              id="totp_code"
              name="totp_code"
              inputMode="numeric"
              autoComplete="one-time-code"
              required
              pattern="[0-9 ]{6,7}"
              maxLength={7}
            />
            <button type="submit" disabled={confirm.busy}>
              Turn on two-factor authentication
            </button>
          </form>
          <ErrorNotice error={confirm.error} />
        </>
      )}
    </section>
  );
}
