import type { Balance } from '@purse/sdk';
import { useQuery } from '@tanstack/preact-query';
import { CsvDownload } from '../components/csv-download.tsx';
import { ErrorNotice } from '../components/error-notice.tsx';
import { MovementTable } from '../components/movement-table.tsx';
import { TableBox } from '../components/table-box.tsx';
import { Money } from '../components/values.tsx';
import { firstPage } from '../lib/page.ts';
import { api } from '../lib/session.ts';
import { readTodayStats } from '../lib/today-stats.ts';

function BalanceTable({ balance }: { balance: Balance }) {
  const currencies = [...new Set([...balance.available, ...balance.reserved].map((b) => b.currency))].sort();
  if (currencies.length === 0) return <p>No money has moved yet.</p>;
  const amountIn = (list: { currency: string; amount: string }[], currency: string) =>
    list.find((b) => b.currency === currency)?.amount ?? '0';
  return (
    <TableBox label="Balance per currency">
      <table>
        <caption>Balance per currency</caption>
        <thead>
          <tr>
            <th scope="col">Currency</th>
            <th scope="col">Available</th>
            <th scope="col">Reserved</th>
          </tr>
        </thead>
        <tbody>
          {currencies.map((currency) => (
            <tr key={currency}>
              <th scope="row">{currency}</th>
              <td>
                <Money amount={amountIn(balance.available, currency)} currency={currency} />
              </td>
              <td>
                <Money amount={amountIn(balance.reserved, currency)} currency={currency} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableBox>
  );
}

function Today() {
  const stats = useQuery({ queryKey: ['today-stats'], queryFn: () => readTodayStats(api()) });
  if (stats.error) return <ErrorNotice error={stats.error} />;
  if (!stats.data) return <p>Loading…</p>;
  const { volume, succeeded, failed, pending, partial } = stats.data;
  const settled = succeeded + failed;
  return (
    <dl class="figures">
      <div>
        <dt>Volume today{partial ? ' (first 1000 payments)' : ''}</dt>
        <dd>
          {volume.length === 0
            ? 'None yet'
            : volume.map((v) => (
                <div key={v.currency}>
                  <Money amount={v.amount} currency={v.currency} />
                </div>
              ))}
        </dd>
      </div>
      <div>
        <dt>Success rate today</dt>
        <dd>
          {settled === 0 ? '—' : `${Math.round((succeeded / settled) * 1000) / 10} %`}{' '}
          <span class="muted">
            ({succeeded} succeeded, {failed} failed, {pending} pending)
          </span>
        </dd>
      </div>
    </dl>
  );
}

export function Overview() {
  const balance = useQuery({ queryKey: ['balance'], queryFn: () => api().balance.retrieve() });
  const failures = useQuery({
    queryKey: ['payments', 'latest-failures'],
    queryFn: () => firstPage(api().payments.list({ status: 'failed', limit: 5 })),
  });
  return (
    <>
      <h1 tabIndex={-1}>Overview</h1>
      <section aria-labelledby="balance-heading">
        <h2 id="balance-heading">Balance</h2>
        <ErrorNotice error={balance.error} />
        {balance.data ? <BalanceTable balance={balance.data} /> : !balance.error && <p>Loading…</p>}
      </section>
      <section aria-labelledby="today-heading">
        <h2 id="today-heading">Today</h2>
        <Today />
      </section>
      <section aria-labelledby="failures-heading">
        <h2 id="failures-heading">Latest failures</h2>
        <ErrorNotice error={failures.error} />
        {failures.data && <MovementTable kind="payments" rows={failures.data.data} caption="The five latest failed payments" />}
      </section>
      <section aria-labelledby="csv-heading">
        <h2 id="csv-heading">Statement</h2>
        <CsvDownload />
      </section>
    </>
  );
}
