import { Layout } from './components/layout.tsx';
import { isMovementKind } from './lib/kinds.ts';
import { usePath } from './lib/router.tsx';
import { useSession } from './lib/session.ts';
import { Account } from './pages/account.tsx';
import { AuditList } from './pages/audit-list.tsx';
import { Enrolment } from './pages/enrolment.tsx';
import { EventDetail } from './pages/event-detail.tsx';
import { EventList } from './pages/event-list.tsx';
import { Invitation } from './pages/invitation.tsx';
import { MovementDetail } from './pages/movement-detail.tsx';
import { MovementList } from './pages/movement-list.tsx';
import { NotFound } from './pages/not-found.tsx';
import { Overview } from './pages/overview.tsx';
import { PaymentLinkList } from './pages/payment-links.tsx';
import { SecondFactor } from './pages/second-factor.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { TransferDetail } from './pages/transfer-detail.tsx';
import { TransferList } from './pages/transfer-list.tsx';
import { UserList } from './pages/users.tsx';
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
  if (section === 'payment-links') return <PaymentLinkList />;
  if (section === 'webhooks') return id ? <WebhookDetail id={id} /> : <WebhookList />;
  if (section === 'audit' && !id) return <AuditList />;
  if (section === 'users' && !id) return <UserList />;
  if (section === 'account' && !id) return <Account />;
  return <NotFound />;
}

export function App() {
  const { stage, session, pendingUser, notice } = useSession();
  const path = usePath();
  // An invitation is accepted without a session (and whatever session this browser holds).
  if (path[0] === 'invitation') return <Invitation />;
  if (stage === 'loading')
    return (
      <main id="main" class="sign-in">
        <p role="status">Loading…</p>
      </main>
    );
  if (stage === 'second-factor') return <SecondFactor user={pendingUser} />;
  if (stage === 'enrolment') return <Enrolment user={pendingUser} />;
  if (stage !== 'active' || !session) return <SignIn notice={notice} />;
  return (
    <Layout session={session} section={path[0] ?? ''}>
      {/* A new key per path: each page starts with fresh state (filters, cursors, forms). */}
      <Page key={path.join('/')} path={path} />
    </Layout>
  );
}
