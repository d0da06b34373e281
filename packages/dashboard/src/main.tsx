import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/preact-query';
import { render } from 'preact';
import { App } from './app.tsx';
import { endsSession, signOut } from './lib/session.ts';
import './styles.css';

const SESSION_ENDED = 'Your session ended: the token expired or was revoked. Sign in again.';

function onError(error: unknown): void {
  if (!endsSession(error)) return;
  // Nothing read under the old session stays on screen or in memory.
  queryClient.clear();
  signOut(SESSION_ENDED);
}

const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    // The SDK already retries network errors, 429 and 5xx with back-off; a 4xx will not change.
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 5_000 },
  },
});

const root = document.getElementById('app');
if (root)
  render(
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>,
    root,
  );
