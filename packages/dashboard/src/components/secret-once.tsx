/** A webhook signing secret, shown the one time the API returns it. */
export function SecretOnce({ secret }: { secret: string | undefined }) {
  if (!secret) return null;
  return (
    <div class="secret" role="status">
      <p>Signing secret (shown only now; copy it to your receiver):</p>
      <code>{secret}</code>
    </div>
  );
}
