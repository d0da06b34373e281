import type { PaymentLink } from '@purse/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { ErrorNotice } from '../components/error-notice.tsx';
import { QrCode } from '../components/qr-code.tsx';
import { firstPage } from '../lib/page.ts';
import { can } from '../lib/rights.ts';
import { api } from '../lib/session.ts';

type CreateParams = Parameters<ReturnType<typeof api>['paymentLinks']['create']>[0];

function CreateLink() {
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (data: FormData) => {
      const amount = String(data.get('amount')).trim();
      const params = {
        currency: String(data.get('currency')).trim().toUpperCase(),
        description: String(data.get('description')).trim(),
        amount: amount === '' ? null : amount,
      } as CreateParams;
      return api().paymentLinks.create(params);
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['payment-links'] }),
  });
  return (
    <section aria-labelledby="create-link-heading" class="panel">
      <h2 id="create-link-heading">Create a payment link</h2>
      <form
        class="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate(new FormData(event.currentTarget));
        }}
      >
        <label for="pl-description">What the payer buys</label>
        <input id="pl-description" name="description" required maxLength={255} />
        <label for="pl-amount">Amount (empty: the payer types it)</label>
        <input id="pl-amount" name="amount" inputMode="decimal" placeholder="1500.00" />
        <label for="pl-currency">Currency</label>
        <input id="pl-currency" name="currency" required maxLength={3} value="KES" />
        <button type="submit" disabled={create.isPending}>
          Create link
        </button>
      </form>
      <ErrorNotice error={create.error} />
      {create.data && (
        <div role="status">
          <p>
            Link created: <a href={create.data.url}>{create.data.url}</a>
          </p>
          <QrCode text={create.data.url} label={`QR code of the payment link for ${create.data.description}`} />
        </div>
      )}
    </section>
  );
}

function LinkRow({ link }: { link: PaymentLink }) {
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: () => api().paymentLinks.update(link.id, { active: !link.active }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['payment-links'] }),
  });
  return (
    <li class="panel">
      <h3>{link.description}</h3>
      <p>
        {link.amount === null ? 'The payer chooses the amount' : `${link.amount} ${link.currency}`} · {link.active ? 'Active' : 'Off'}
      </p>
      <p>
        <a href={link.url}>{link.url}</a>
      </p>
      <QrCode text={link.url} label={`QR code of the payment link for ${link.description}`} size={120} />
      {can('payments') && (
        <p>
          <button type="button" onClick={() => toggle.mutate()} disabled={toggle.isPending}>
            {link.active ? 'Turn off' : 'Turn on'}
          </button>
        </p>
      )}
      <ErrorNotice error={toggle.error} />
    </li>
  );
}

export function PaymentLinkList() {
  const links = useQuery({ queryKey: ['payment-links', 'list'], queryFn: () => firstPage(api().paymentLinks.list({ limit: 100 })) });
  return (
    <>
      <h1 tabIndex={-1}>Payment links</h1>
      <p>
        A link to share, or its QR code to print: each visit opens a hosted checkout page, where the payer pays by card or mobile money.
      </p>
      {can('payments') && <CreateLink />}
      <ErrorNotice error={links.error} />
      {links.data && links.data.data.length === 0 && <p>No payment links yet.</p>}
      {links.data && links.data.data.length > 0 && (
        <ul class="link-list" aria-label="Payment links">
          {links.data.data.map((link: PaymentLink) => (
            <LinkRow key={link.id} link={link} />
          ))}
        </ul>
      )}
    </>
  );
}
