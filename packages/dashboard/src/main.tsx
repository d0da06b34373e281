import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/preact-query';
import { render } from 'preact';
import { App } from './app.tsx';
import { refusedForRole } from './lib/rights.ts';
import { currentSession, endSession, endsSession, refreshSession, restore, SESSION_ENDED, subscribe } from './lib/session.ts';
import './styles.css';

function onError(error: unknown): void {
  if (endsSession(error)) endSession(SESSION_ENDED);
  // Refused for lack of rights: an owner may have changed this user's role since sign-in, so the
  // navigation and buttons follow the role the server has now.
  else if (refusedForRole(error) && currentSession()?.user) refreshSession().catch(() => undefined);
}

const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    // The SDK already retries network errors, 429 and 5xx with back-off; a 4xx will not change.
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 5_000 },
  },
});

// Nothing read under a session stays on screen or in memory once it ends.
subscribe(() => {
  if (!currentSession()) queryClient.clear();
});

const root = document.getElementById('app');
if (root)
  render(
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>,
    root,
  );
// A session cookie the browser still holds (a reload) signs in again.
void restore();
