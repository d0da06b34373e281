import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { ErrorNotice } from '../components/error-notice.tsx';
import { type Cursor, Pager } from '../components/pager.tsx';
import { TableBox } from '../components/table-box.tsx';
import { Money, Status, Time } from '../components/values.tsx';
import { firstPage } from '../lib/page.ts';
import { can } from '../lib/rights.ts';
import { Link } from '../lib/router.tsx';
import { api } from '../lib/session.ts';

function CreateWallet() {
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (data: FormData) => {
      const name = String(data.get('holder_name')).trim();
      const reference = String(data.get('reference')).trim();
      return api().wallets.create({
        currency: String(data.get('currency')).trim().toUpperCase(),
        ...(name ? { holder: { name } } : {}),
        ...(reference ? { reference } : {}),
      });
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['wallets'] }),
  });
  return (
    <details class="panel">
      <summary>Create a wallet</summary>
      <form
        class="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate(new FormData(event.currentTarget));
        }}
      >
        <label for="w-currency">Currency</label>
        <input id="w-currency" name="currency" required maxLength={3} />
        <label for="w-holder">Holder name (optional)</label>
        <input id="w-holder" name="holder_name" />
        <label for="w-reference">Reference (optional)</label>
        <input id="w-reference" name="reference" />
        <button type="submit" disabled={create.isPending}>
          Create wallet
        </button>
      </form>
      <ErrorNotice error={create.error} />
      {create.data && (
        <p role="status">
          Wallet <Link to={`wallets/${create.data.id}`}>{create.data.id}</Link> created.
        </p>
      )}
    </details>
  );
}

export function WalletList() {
  const [cursor, setCursor] = useState<Cursor>({});
  const page = useQuery({
    queryKey: ['wallets', 'list', cursor],
    queryFn: () => firstPage(api().wallets.list({ limit: 25, ...cursor })),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <h1 tabIndex={-1}>Wallets</h1>
      {can('wallets') && <CreateWallet />}
      <ErrorNotice error={page.error} />
      {page.data && page.data.data.length === 0 && <p>No wallets yet.</p>}
      {page.data && page.data.data.length > 0 && (
        <TableBox label="Wallets, newest first">
          <table>
            <caption>Wallets, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Wallet</th>
                <th scope="col">Holder</th>
                <th scope="col">Balance</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {page.data.data.map((wallet) => (
                <tr key={wallet.id}>
                  <td>
                    <Link to={`wallets/${wallet.id}`}>{wallet.id}</Link>
                  </td>
                  <td>{wallet.holder?.name ?? ''}</td>
                  <td class="num">
                    <Money amount={wallet.balance} currency={wallet.currency} />
                  </td>
                  <td>
                    <Status status={wallet.status} />
                  </td>
                  <td>
                    <Time iso={wallet.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
      )}
      <Pager cursor={cursor} page={page.data} onChange={setCursor} />
    </>
  );
}
