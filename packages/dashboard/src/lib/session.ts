// The signed-in merchant's client. The token (and the secret the SDK renews it with) live only in
// this module's memory: never in localStorage, sessionStorage, a cookie or IndexedDB, so closing or
// reloading the tab signs out, and nothing is left on the machine.
import { type Merchant, Purse, PurseError } from '@purse/sdk';
import { useEffect, useState } from 'preact/hooks';

export interface Session {
  merchant: Merchant;
}

let client: Purse | null = null;
let session: Session | null = null;
let notice: string | null = null;
const listeners = new Set<() => void>();

function changed(): void {
  for (const listener of listeners) listener();
}

/** The signed-in client; pages are rendered only while signed in. */
export function api(): Purse {
  if (!client) throw new Error('not signed in');
  return client;
}

/**
 * Exchanges the credentials at /oauth/token (the SDK does it on its first call) and checks them by
 * reading the merchant. The SDK renews the token before it expires and once on a 401.
 */
export async function signIn(clientId: string, clientSecret: string): Promise<void> {
  const candidate = new Purse({ baseUrl: location.origin, clientId, clientSecret, maxRetries: 1 });
  const merchant = await candidate.merchant.retrieve();
  client = candidate;
  session = { merchant };
  notice = null;
  changed();
}

export function signOut(message: string | null = null): void {
  client = null;
  session = null;
  notice = message;
  changed();
}

/** A 401 that survived the SDK's renewal: the token expired for good or the secret was revoked. */
export function endsSession(error: unknown): boolean {
  return error instanceof PurseError && error.status === 401;
}

export function useSession(): { session: Session | null; notice: string | null } {
  const [, setVersion] = useState(0);
  useEffect(() => {
    const update = () => setVersion((v) => v + 1);
    listeners.add(update);
    return () => {
      listeners.delete(update);
    };
  }, []);
  return { session, notice };
}
