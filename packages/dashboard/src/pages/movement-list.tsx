import { keepPreviousData, useQuery } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { ErrorNotice } from '../components/error-notice.tsx';
import { MovementTable } from '../components/movement-table.tsx';
import { type Cursor, Pager } from '../components/pager.tsx';
import { PayoutForm } from '../components/payout-form.tsx';
import { type Filters, readFilters } from '../lib/filters.ts';
import { KINDS, type MovementKind } from '../lib/kinds.ts';
import { firstPage } from '../lib/page.ts';
import { can } from '../lib/rights.ts';
import { api } from '../lib/session.ts';

function FilterForm({ kind, onApply }: { kind: MovementKind; onApply: (filters: Filters) => void }) {
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    onApply(readFilters(event.currentTarget as HTMLFormElement));
  };
  return (
    <form class="filters" onSubmit={submit} aria-label={`Search ${KINDS[kind].title.toLowerCase()}`}>
      <div>
        <label for="f-reference">Reference</label>
        <input id="f-reference" name="reference" type="search" />
      </div>
      <div>
        <label for="f-status">Status</label>
        <select id="f-status" name="status">
          <option value="">Any</option>
          {KINDS[kind].statuses.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
      </div>
      {KINDS[kind].meansFilter && (
        <div>
          <label for="f-means">Means</label>
          <select id="f-means" name="payment_method_type">
            <option value="">Any</option>
            <option value="mobile_money">mobile money</option>
            <option value="card">card</option>
            <option value="wallet">wallet</option>
          </select>
        </div>
      )}
      {kind === 'refunds' && (
        <div>
          <label for="f-payment">Payment id</label>
          <input id="f-payment" name="payment_id" />
        </div>
      )}
      <div>
        <label for="f-from">Created from</label>
        <input id="f-from" name="from" type="date" />
      </div>
      <div>
        <label for="f-to">Created to</label>
        <input id="f-to" name="to" type="date" />
      </div>
      <div>
        <label for="f-limit">Per page</label>
        <select id="f-limit" name="limit">
          <option value="25">25</option>
          <option value="50">50</option>
          <option value="100">100</option>
        </select>
      </div>
      <button type="submit">Search</button>
    </form>
  );
}

export function MovementList({ kind }: { kind: MovementKind }) {
  const info = KINDS[kind];
  const [filters, setFilters] = useState<Filters>({ limit: '25' });
  const [cursor, setCursor] = useState<Cursor>({});
  const page = useQuery({
    queryKey: [kind, 'list', filters, cursor],
    queryFn: () => firstPage(info.resource(api()).list({ ...filters, ...cursor })),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <h1 tabIndex={-1}>{info.title}</h1>
      {kind === 'payouts' && can('payouts') && <PayoutForm />}
      <FilterForm
        kind={kind}
        onApply={(next) => {
          setFilters(next);
          setCursor({});
        }}
      />
      <ErrorNotice error={page.error} />
      {page.data && <MovementTable kind={kind} rows={page.data.data} caption={`${info.title}, newest first`} />}
      <Pager cursor={cursor} page={page.data} onChange={setCursor} />
    </>
  );
}
