import type { ComponentChildren } from 'preact';
import { labelFor, sentence } from '../lib/labels.ts';
import { Link } from '../lib/router.tsx';
import { isMeans, Means, Party } from './means.tsx';
import { Money, Status, Time } from './values.tsx';

type Value = unknown;
type Fields = Record<string, Value>;

const TIMES = /_at$|^capture_before$/;
const AMOUNTS = new Set(['amount', 'amount_refunded', 'amount_received', 'amount_capturable', 'balance', 'balance_after']);
/** Codes shown as words ("requested_by_customer" → "Requested by customer"). */
const CODES = new Set(['reason', 'capture_method', 'cancellation_reason']);
const MEANS = new Set(['payment_method', 'source', 'destination']);
const PARTIES = new Set(['customer', 'holder']);
/** Fields naming another object, shown as a link to that object's page. */
const LINKS: Record<string, string> = {
  payment_id: 'payments',
  wallet_id: 'wallets',
  source_wallet_id: 'wallets',
  destination_wallet_id: 'wallets',
};
/** Said by the page's heading already. */
const HIDDEN = new Set(['object']);
/** What a merchant looks for first, in this order; every other field follows in the API's order. */
const FIRST = [
  'id',
  'reference',
  'status',
  'amount',
  'amount_refunded',
  'amount_received',
  'currency',
  'payment_method',
  'source',
  'destination',
  'customer',
  'holder',
  'payment_id',
  'wallet_id',
  'source_wallet_id',
  'destination_wallet_id',
  'failure',
  'late_outcome',
  'description',
];
const rank = (key: string) => {
  const at = FIRST.indexOf(key);
  return at === -1 ? FIRST.length : at;
};

function Metadata({ metadata }: { metadata: Fields }) {
  const entries = Object.entries(metadata);
  if (entries.length === 0) return <span class="muted">None</span>;
  return (
    <dl class="meta">
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt>
            <code>{key}</code>
          </dt>
          <dd>{String(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

function LateOutcome({
  late,
}: {
  late: { status: string; provider_reference: string | null; failure_code: string | null; received_at: string };
}) {
  return (
    <span>
      The provider reported <Status status={late.status} />
      {late.failure_code && ` (${sentence(late.failure_code)})`} on <Time iso={late.received_at} />, after the outcome was final; it was not
      applied.
    </span>
  );
}

interface NextActionView {
  type: string;
  redirect_to_url?: { url: string };
  expires_at?: string;
}

/** What the payer must do now: complete 3-D Secure at a URL before it expires. */
function NextAction({ action }: { action: NextActionView }) {
  if (action.type !== 'redirect_to_url' || !action.redirect_to_url) return <pre>{JSON.stringify(action, null, 2)}</pre>;
  return (
    <span>
      The payer completes 3-D Secure at <a href={action.redirect_to_url.url}>the challenge page</a>
      {action.expires_at && (
        <>
          {' '}
          before <Time iso={action.expires_at} />
        </>
      )}
    </span>
  );
}

/** The value of a field the page knows by name; null when its name says nothing special. */
function showKnown(key: string, value: Value, currency: string | undefined): ComponentChildren | null {
  if (key === 'status' && typeof value === 'string') return <Status status={value} />;
  if (key === 'id' && typeof value === 'string') return <code>{value}</code>;
  if (key === 'livemode') return value ? 'Live' : 'Sandbox';
  if (CODES.has(key) && typeof value === 'string') return sentence(value);
  if (TIMES.test(key) && typeof value === 'string') return <Time iso={value} />;
  if (AMOUNTS.has(key) && typeof value === 'string' && currency) return <Money amount={value} currency={currency} />;
  if (LINKS[key] && typeof value === 'string') return <Link to={`${LINKS[key]}/${value}`}>{value}</Link>;
  if (MEANS.has(key) && isMeans(value)) return <Means means={value} />;
  if (PARTIES.has(key) && typeof value === 'object') return <Party party={value as Fields} />;
  if (key === 'metadata' && typeof value === 'object') return <Metadata metadata={value as Fields} />;
  if (key === 'failure' && typeof value === 'object') {
    const failure = value as { code: string; message: string };
    return (
      <span>
        {failure.message} <code>{failure.code}</code>
      </span>
    );
  }
  if (key === 'next_action' && typeof value === 'object') return <NextAction action={value as NextActionView} />;
  if (key === 'late_outcome' && typeof value === 'object') return <LateOutcome late={value as Parameters<typeof LateOutcome>[0]['late']} />;
  if (key === 'events' && Array.isArray(value)) return value.includes('*') ? 'Every event' : value.join(', ');
  return null;
}

function show(key: string, value: Value, currency: string | undefined): ComponentChildren {
  if (value === null || value === undefined || value === '') return <span class="muted">—</span>;
  const known = showKnown(key, value, currency);
  if (known !== null) return known;
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  // A field this page does not know yet (a newer API): shown as it came, never dropped.
  if (typeof value === 'object') return <pre>{JSON.stringify(value, null, 2)}</pre>;
  return String(value);
}

/**
 * Every field of an API object, labelled in words and formatted by what its name says it is: the
 * ones a merchant looks for first, then the others in the API's order.
 */
export function Fields({ object }: { object: Fields }) {
  const currency = typeof object.currency === 'string' ? object.currency : undefined;
  return (
    <dl class="fields">
      {Object.entries(object)
        .filter(([key]) => !HIDDEN.has(key))
        .sort(([a], [b]) => rank(a) - rank(b))
        .map(([key, value]) => (
          <div key={key}>
            <dt>{labelFor(key)}</dt>
            <dd>{show(key, value, currency)}</dd>
          </div>
        ))}
    </dl>
  );
}

/** The object exactly as the API answered it, folded away at the bottom of the page for developers. */
export function RawJson({ object }: { object: unknown }) {
  return (
    <details class="raw">
      <summary>Raw JSON</summary>
      <pre>{JSON.stringify(object, null, 2)}</pre>
    </details>
  );
}
