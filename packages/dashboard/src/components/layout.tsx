import type { Merchant } from '@purse/sdk';
import type { ComponentChildren } from 'preact';
import { Link } from '../lib/router.tsx';
import { signOut } from '../lib/session.ts';

const SECTIONS: [path: string, label: string][] = [
  ['', 'Overview'],
  ['payments', 'Payments'],
  ['topups', 'Top-ups'],
  ['refunds', 'Refunds'],
  ['payouts', 'Payouts'],
  ['wallets', 'Wallets'],
  ['events', 'Events'],
  ['webhooks', 'Webhooks'],
];

export function Layout({ merchant, section, children }: { merchant: Merchant; section: string; children: ComponentChildren }) {
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Purse</span>
        <span class="merchant">
          {merchant.name} {merchant.livemode ? <span class="badge live">live</span> : <span class="badge sandbox">sandbox</span>}
        </span>
        <button type="button" onClick={() => signOut('You signed out.')}>
          Sign out
        </button>
      </header>
      <nav class="side" aria-label="Dashboard">
        <ul>
          {SECTIONS.map(([path, label]) => (
            <li key={path}>
              <Link to={path} aria-current={section === path ? 'page' : undefined}>
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
