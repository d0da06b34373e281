/** Passwords: 12 to 200 characters, no composition rules (the server checks the same). */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 200;

/** The two fields of a new password (checkNewPassword says what is wrong with them). */
export function NewPasswordFields({ prefix }: { prefix: string }) {
  return (
    <>
      <label for={`${prefix}-new`}>New password</label>
      <input
        id={`${prefix}-new`}
        name="new_password"
        type="password"
        autoComplete="new-password"
        required
        minLength={PASSWORD_MIN}
        maxLength={PASSWORD_MAX}
        aria-describedby={`${prefix}-hint`}
      />
      <p id={`${prefix}-hint`} class="hint">
        At least {PASSWORD_MIN} characters. A long phrase is easier to remember than symbols.
      </p>
      <label for={`${prefix}-repeat`}>New password, again</label>
      <input
        id={`${prefix}-repeat`}
        name="repeat_password"
        type="password"
        autoComplete="new-password"
        required
        minLength={PASSWORD_MIN}
        maxLength={PASSWORD_MAX}
      />
    </>
  );
}

/** What is wrong with the two values, before anything is sent; null when they will do. */
export function checkNewPassword(password: string, repeated: string): string | null {
  if ([...password].length < PASSWORD_MIN) return `The password needs at least ${PASSWORD_MIN} characters.`;
  if ([...password].length > PASSWORD_MAX) return `The password can have at most ${PASSWORD_MAX} characters.`;
  if (password !== repeated) return 'The two passwords differ: type the same one twice.';
  return null;
}
