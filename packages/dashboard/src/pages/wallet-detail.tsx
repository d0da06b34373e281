import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { ErrorNotice } from '../components/error-notice.tsx';
import { Fields, RawJson } from '../components/fields.tsx';
import { type Cursor, Pager } from '../components/pager.tsx';
import { TableBox } from '../components/table-box.tsx';
import { Money, Status, Time } from '../components/values.tsx';
import { isMovementKind } from '../lib/kinds.ts';
import { objectName } from '../lib/labels.ts';
import { firstPage } from '../lib/page.ts';
import { can } from '../lib/rights.ts';
import { Link } from '../lib/router.tsx';
import { api } from '../lib/session.ts';

function Transactions({ walletId }: { walletId: string }) {
  const [cursor, setCursor] = useState<Cursor>({});
  const page = useQuery({
    queryKey: ['wallets', 'transactions', walletId, cursor],
    queryFn: () => firstPage(api().wallets.transactions(walletId, { limit: 25, ...cursor })),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="transactions-heading">
      <h2 id="transactions-heading">Transactions</h2>
      <ErrorNotice error={page.error} />
      {page.data && page.data.data.length === 0 && <p>No transactions yet.</p>}
      {page.data && page.data.data.length > 0 && (
        <TableBox label="The wallet's ledger lines, newest first">
          <table>
            <caption>The wallet's ledger lines, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Amount</th>
                <th scope="col">Balance after</th>
                <th scope="col">Source</th>
              </tr>
            </thead>
            <tbody>
              {page.data.data.map((line) => {
                const section = `${line.source_type}s`;
                const linked = isMovementKind(section) || section === 'transfers';
                return (
                  <tr key={line.id}>
                    <td>
                      <Time iso={line.created_at} />
                    </td>
                    <td class="num">
                      <Money amount={line.amount} currency={line.currency} />
                    </td>
                    <td class="num">
                      <Money amount={line.balance_after} currency={line.currency} />
                    </td>
                    <td>
                      {objectName(line.source_type)}{' '}
                      {linked ? <Link to={`${section}/${line.source_id}`}>{line.source_id}</Link> : line.source_id}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableBox>
      )}
      <Pager cursor={cursor} page={page.data} onChange={setCursor} />
    </section>
  );
}

export function WalletDetail({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const wallet = useQuery({ queryKey: ['wallets', 'one', id], queryFn: () => api().wallets.retrieve(id) });
  const toggle = useMutation({
    mutationFn: (action: 'freeze' | 'unfreeze') => api().wallets[action](id),
    onSuccess: (updated) => {
      queryClient.setQueryData(['wallets', 'one', id], updated);
      void queryClient.invalidateQueries({ queryKey: ['wallets', 'list'] });
    },
  });
  const object = wallet.data;
  return (
    <>
      <h1 tabIndex={-1}>Wallet {object?.holder?.name ?? id}</h1>
      <ErrorNotice error={wallet.error} />
      {object && (
        <>
          <p class="headline">
            <Money amount={object.balance} currency={object.currency} /> <Status status={object.status} />
          </p>
          {can('wallets') && (
            <div class="actions">
              {object.status === 'active' ? (
                <button type="button" disabled={toggle.isPending} onClick={() => toggle.mutate('freeze')}>
                  Freeze
                </button>
              ) : (
                <button type="button" disabled={toggle.isPending} onClick={() => toggle.mutate('unfreeze')}>
                  Unfreeze
                </button>
              )}
            </div>
          )}
          <ErrorNotice error={toggle.error} />
          <p class="muted">
            Created <Time iso={object.created_at} />. A frozen wallet refuses payments and top-ups.
          </p>
          <section aria-labelledby="fields-heading">
            <h2 id="fields-heading">Fields</h2>
            <Fields object={object as unknown as Record<string, unknown>} />
          </section>
          <Transactions walletId={id} />
          <RawJson object={object} />
        </>
      )}
    </>
  );
}
