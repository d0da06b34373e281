import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { can, type Right } from '../lib/rights.ts';
import { Link } from '../lib/router.tsx';
import { type Session, signOut } from '../lib/session.ts';

/** The sections, each with the right it needs (none: every role reads it). */
const SECTIONS: [path: string, label: string, right?: Right][] = [
  ['', 'Overview'],
  ['payments', 'Payments'],
  ['topups', 'Top-ups'],
  ['refunds', 'Refunds'],
  ['payouts', 'Payouts'],
  ['transfers', 'Transfers'],
  ['wallets', 'Wallets'],
  ['events', 'Events'],
  ['webhooks', 'Webhooks', 'webhooks'],
  ['payment-links', 'Payment links'],
  ['audit', 'Audit log', 'audit'],
  ['users', 'Users', 'users'],
];

/** What the signed-in role may open: a section it has no right to is not offered (the server refuses it anyway). */
function sectionsFor(session: Session): [path: string, label: string][] {
  const shown: [string, string][] = SECTIONS.filter(([, , right]) => right === undefined || can(right)).map(([path, label]) => [
    path,
    label,
  ]);
  if (session.user) shown.push(['account', 'Account']);
  return shown;
}

/**
 * The header, the navigation and the page. On a narrow screen the navigation collapses behind the
 * Menu button (a real button: Enter and Space open it, Escape closes it and gives the focus back),
 * and following a link closes it again.
 */
export function Layout({ session, section, children }: { session: Session; section: string; children: ComponentChildren }) {
  const { merchant, user } = session;
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!menuOpen) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setMenuOpen(false);
      menuButton.current?.focus();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [menuOpen]);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <button
          ref={menuButton}
          type="button"
          class="menu secondary"
          aria-expanded={menuOpen}
          aria-controls="dashboard-nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <span class="brand">Purse</span>
        <span class="merchant">
          {merchant.name} {merchant.livemode ? <span class="badge live">live</span> : <span class="badge sandbox">sandbox</span>}
        </span>
        {user && (
          <span class="muted user">
            {user.email} ({user.role})
          </span>
        )}
        <button type="button" class="secondary sign-out" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <nav id="dashboard-nav" class={menuOpen ? 'side open' : 'side'} aria-label="Dashboard">
        <ul>
          {sectionsFor(session).map(([path, label]) => (
            <li key={path}>
              <Link to={path} aria-current={section === path ? 'page' : undefined} onClick={() => setMenuOpen(false)}>
                {label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main">{children}</main>
    </>
  );
}
