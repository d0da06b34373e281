import { Layout } from './components/layout.tsx';
import { isMovementKind } from './lib/kinds.ts';
import { usePath } from './lib/router.tsx';
import { useSession } from './lib/session.ts';
import { EventDetail } from './pages/event-detail.tsx';
import { EventList } from './pages/event-list.tsx';
import { MovementDetail } from './pages/movement-detail.tsx';
import { MovementList } from './pages/movement-list.tsx';
import { NotFound } from './pages/not-found.tsx';
import { Overview } from './pages/overview.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { TransferDetail } from './pages/transfer-detail.tsx';
import { TransferList } from './pages/transfer-list.tsx';
import { WalletDetail } from './pages/wallet-detail.tsx';
import { WalletList } from './pages/wallet-list.tsx';
import { WebhookDetail } from './pages/webhook-detail.tsx';
import { WebhookList } from './pages/webhook-list.tsx';

function Page({ path }: { path: string[] }) {
  const [section, id] = path;
  if (section === undefined) return <Overview />;
  if (isMovementKind(section)) return id ? <MovementDetail kind={section} id={id} /> : <MovementList kind={section} />;
  if (section === 'transfers') return id ? <TransferDetail id={id} /> : <TransferList />;
  if (section === 'wallets') return id ? <WalletDetail id={id} /> : <WalletList />;
  if (section === 'events') return id ? <EventDetail id={id} /> : <EventList />;
  if (section === 'webhooks') return id ? <WebhookDetail id={id} /> : <WebhookList />;
  return <NotFound />;
}

export function App() {
  const { session, notice } = useSession();
  const path = usePath();
  if (!session) return <SignIn notice={notice} />;
  return (
    <Layout merchant={session.merchant} section={path[0] ?? ''}>
      {/* A new key per path: each page starts with fresh state (filters, cursors, forms). */}
      <Page key={path.join('/')} path={path} />
    </Layout>
  );
}
