import { cardBrand, providerName, sentence } from '../lib/labels.ts';
import { Link } from '../lib/router.tsx';

/** A payment method, a top-up's source, or a refund's or payout's destination, as the API shows it (nothing secret). */
export interface MeansView {
  type: string;
  card?: { brand: string; last4: string; exp_month?: number; exp_year?: number; three_d_secure?: { result: string } | null };
  mobile_money?: { phone_number: string; provider: string | null };
  wallet?: { wallet_id: string };
}

export function isMeans(value: unknown): value is MeansView {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/** "Visa •••• 4242, expires 12/2030", "Mobile money +254712345678 (M-Pesa)", or a link to the wallet. */
export function Means({ means }: { means: MeansView }) {
  const { card, mobile_money: mobile, wallet } = means;
  if (means.type === 'card' && card)
    return (
      <span>
        {cardBrand(card.brand)} •••• {card.last4}
        {card.exp_month !== undefined && card.exp_year !== undefined && (
          <span class="muted">
            , expires {String(card.exp_month).padStart(2, '0')}/{card.exp_year}
          </span>
        )}
        {card.three_d_secure && <span class="muted">, 3-D Secure: {sentence(card.three_d_secure.result).toLowerCase()}</span>}
      </span>
    );
  if (means.type === 'mobile_money' && mobile)
    return (
      <span>
        Mobile money {mobile.phone_number}
        {mobile.provider && <span class="muted"> ({providerName(mobile.provider)})</span>}
      </span>
    );
  if (means.type === 'wallet' && wallet)
    return (
      <span>
        Wallet <Link to={`wallets/${wallet.wallet_id}`}>{wallet.wallet_id}</Link>
      </span>
    );
  return <span>{sentence(means.type)}</span>;
}

/** A customer or a wallet's holder: name, email and phone, each labelled, each when given. */
export function Party({ party }: { party: { name?: string | null; email?: string | null; phone_number?: string | null } }) {
  const given: [string, string | null | undefined][] = [
    ['Name', party.name],
    ['Email', party.email],
    ['Phone', party.phone_number],
  ];
  const parts = given.filter((part): part is [string, string] => Boolean(part[1]));
  if (parts.length === 0) return <span class="muted">—</span>;
  return (
    <dl class="meta">
      {parts.map(([label, value]) => (
        <div key={label}>
          <dt class="muted">{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
