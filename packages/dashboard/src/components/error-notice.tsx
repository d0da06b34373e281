import { PurseError } from '@purse/sdk';
import { refusedForRole } from '../lib/rights.ts';
import { currentSession } from '../lib/session.ts';

/** An API error as the API put it: its message and the request id to quote to the operator. */
export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const requestId = error instanceof PurseError ? error.requestId : null;
  const role = currentSession()?.user?.role;
  return (
    <div class="error" role="alert">
      {refusedForRole(error) && (
        <p>
          <strong>Not allowed{role ? ` for the ${role} role` : ' for this API key'}.</strong> An owner of this merchant can change that.
        </p>
      )}
      <p>{message}</p>
      {requestId && (
        <p class="request-id">
          Request id: <code>{requestId}</code>
        </p>
      )}
    </div>
  );
}
