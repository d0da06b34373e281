import type { Transfer } from '@purse/sdk';
import { keepPreviousData, useQuery } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { ErrorNotice } from '../components/error-notice.tsx';
import { type Cursor, Pager } from '../components/pager.tsx';
import { TableBox } from '../components/table-box.tsx';
import { Money, Status, Time } from '../components/values.tsx';
import { type Filters, readFilters } from '../lib/filters.ts';
import { firstPage } from '../lib/page.ts';
import { Link } from '../lib/router.tsx';
import { api } from '../lib/session.ts';

function TransferFilters({ onApply }: { onApply: (filters: Filters) => void }) {
  return (
    <form
      class="filters"
      aria-label="Search transfers"
      onSubmit={(event) => {
        event.preventDefault();
        onApply(readFilters(event.currentTarget));
      }}
    >
      <div>
        <label for="t-reference">Reference</label>
        <input id="t-reference" name="reference" type="search" />
      </div>
      <div>
        <label for="t-status">Status</label>
        <select id="t-status" name="status">
          <option value="">Any</option>
          <option value="succeeded">succeeded</option>
          <option value="failed">failed</option>
        </select>
      </div>
      <div>
        <label for="t-wallet">Wallet id (from or to)</label>
        <input id="t-wallet" name="wallet_id" />
      </div>
      <div>
        <label for="t-from">Created from</label>
        <input id="t-from" name="from" type="date" />
      </div>
      <div>
        <label for="t-to">Created to</label>
        <input id="t-to" name="to" type="date" />
      </div>
      <div>
        <label for="t-limit">Per page</label>
        <select id="t-limit" name="limit">
          <option value="25">25</option>
          <option value="50">50</option>
          <option value="100">100</option>
        </select>
      </div>
      <button type="submit">Search</button>
    </form>
  );
}

export function TransferTable({ rows, caption }: { rows: Transfer[]; caption: string }) {
  if (rows.length === 0) return <p>No transfers match.</p>;
  return (
    <TableBox label={caption}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Reference</th>
            <th scope="col">Amount</th>
            <th scope="col">Status</th>
            <th scope="col">From wallet</th>
            <th scope="col">To wallet</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id}>
              <td>
                <Link to={`transfers/${row.id}`}>{row.reference}</Link>
              </td>
              <td class="num">
                <Money amount={row.amount} currency={row.currency} />
              </td>
              <td>
                <Status status={row.status} />
              </td>
              <td>
                <Link to={`wallets/${row.source_wallet_id}`}>{row.source_wallet_id}</Link>
              </td>
              <td>
                <Link to={`wallets/${row.destination_wallet_id}`}>{row.destination_wallet_id}</Link>
              </td>
              <td>
                <Time iso={row.created_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableBox>
  );
}

/** Transfers between the merchant's wallets, newest first (GET /v1/transfers). */
export function TransferList() {
  const [filters, setFilters] = useState<Filters>({ limit: '25' });
  const [cursor, setCursor] = useState<Cursor>({});
  const page = useQuery({
    queryKey: ['transfers', 'list', filters, cursor],
    queryFn: () => firstPage(api().transfers.list({ ...filters, ...cursor })),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <h1 tabIndex={-1}>Transfers</h1>
      <p class="muted">Money moved between two of your wallets. A transfer is final at once: succeeded, or failed with nothing moved.</p>
      <TransferFilters
        onApply={(next) => {
          setFilters(next);
          setCursor({});
        }}
      />
      <ErrorNotice error={page.error} />
      {page.data && <TransferTable rows={page.data.data} caption="Transfers, newest first" />}
      <Pager cursor={cursor} page={page.data} onChange={setCursor} />
    </>
  );
}
