import { useState } from 'preact/hooks';

/**
 * An action started from a form (sign in, a code, a password): its error and whether it is under
 * way, without a query cache (nothing of it is data to keep).
 */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<void>) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async (...args: A): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await action(...args);
      return true;
    } catch (caught) {
      setError(caught);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { run, error, busy };
}
