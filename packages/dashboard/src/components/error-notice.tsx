import { PurseError } from '@purse/sdk';

/** An API error as the API put it: its message and the request id to quote to the operator. */
export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const requestId = error instanceof PurseError ? error.requestId : null;
  return (
    <div class="error" role="alert">
      <p>{message}</p>
      {requestId && (
        <p class="request-id">
          Request id: <code>{requestId}</code>
        </p>
      )}
    </div>
  );
}
