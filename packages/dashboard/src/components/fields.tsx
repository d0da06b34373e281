import type { ComponentChildren } from 'preact';
import { Money, Status, Time } from './values.tsx';

type Value = unknown;

const TIMES = /_at$/;
const AMOUNTS = new Set(['amount', 'amount_refunded', 'balance', 'balance_after']);

function show(key: string, value: Value, currency: string | undefined): ComponentChildren {
  if (value === null || value === undefined) return <span class="muted">—</span>;
  if (key === 'status' && typeof value === 'string') return <Status status={value} />;
  if (TIMES.test(key) && typeof value === 'string') return <Time iso={value} />;
  if (AMOUNTS.has(key) && typeof value === 'string' && currency) return <Money amount={value} currency={currency} />;
  if (typeof value === 'object') {
    const text = JSON.stringify(value, null, 2);
    return text === '{}' ? <span class="muted">{'{}'}</span> : <pre>{text}</pre>;
  }
  return String(value);
}

/** Every field of an API object, in the API's order, formatted by what its name says it is. */
export function Fields({ object }: { object: Record<string, Value> }) {
  const currency = typeof object.currency === 'string' ? object.currency : undefined;
  return (
    <dl class="fields">
      {Object.entries(object).map(([key, value]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>{show(key, value, currency)}</dd>
        </div>
      ))}
    </dl>
  );
}
