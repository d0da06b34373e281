import type { Merchant } from '@purse/sdk';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Link } from '../lib/router.tsx';
import { signOut } from '../lib/session.ts';

const SECTIONS: [path: string, label: string][] = [
  ['', 'Overview'],
  ['payments', 'Payments'],
  ['topups', 'Top-ups'],
  ['refunds', 'Refunds'],
  ['payouts', 'Payouts'],
  ['transfers', 'Transfers'],
  ['wallets', 'Wallets'],
  ['events', 'Events'],
  ['webhooks', 'Webhooks'],
];

/**
 * The header, the navigation and the page. On a narrow screen the navigation collapses behind the
 * Menu button (a real button: Enter and Space open it, Escape closes it and gives the focus back),
 * and following a link closes it again.
 */
export function Layout({ merchant, section, children }: { merchant: Merchant; section: string; children: ComponentChildren }) {
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
        <button type="button" class="secondary sign-out" onClick={() => signOut('You signed out.')}>
          Sign out
        </button>
      </header>
      <nav id="dashboard-nav" class={menuOpen ? 'side open' : 'side'} aria-label="Dashboard">
        <ul>
          {SECTIONS.map(([path, label]) => (
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
