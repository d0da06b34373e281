/** A secret (a webhook signing secret, an invitation link), shown the one time the API returns it. */
export function SecretOnce({
  secret,
  label = 'Signing secret (shown only now; copy it to your receiver):',
}: {
  secret: string | undefined;
  label?: string;
}) {
  if (!secret) return null;
  return (
    <div class="secret" role="status">
      <p>{label}</p>
      <code>{secret}</code>
    </div>
  );
}
