import { useMutation } from '@tanstack/preact-query';
import { api } from '../lib/session.ts';
import { dayBoundary, today } from '../lib/time.ts';
import { ErrorNotice } from './error-notice.tsx';

/** Hands text to the browser as a file download; the object URL is released once the click is dispatched. */
function saveFile(text: string, name: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** The balance transactions of a date range (the browser's days) as the API's CSV statement. */
export function CsvDownload() {
  const download = useMutation({
    mutationFn: async (range: { from: string; to: string; currency: string }) => {
      const params: Record<string, string> = { created_gte: dayBoundary(range.from, false), created_lte: dayBoundary(range.to, true) };
      if (range.currency) params.currency = range.currency;
      const csv = await api().balanceTransactions.csv(params);
      saveFile(csv, `balance-transactions-${range.from}-to-${range.to}${range.currency ? `-${range.currency}` : ''}.csv`);
    },
  });
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    download.mutate({
      from: String(data.get('from')),
      to: String(data.get('to')),
      currency: String(data.get('currency') ?? '')
        .trim()
        .toUpperCase(),
    });
  };
  return (
    <form class="inline" onSubmit={submit}>
      <div>
        <label for="csv-from">From</label>
        <input id="csv-from" name="from" type="date" required value={today()} />
      </div>
      <div>
        <label for="csv-to">To</label>
        <input id="csv-to" name="to" type="date" required value={today()} />
      </div>
      <div>
        <label for="csv-currency">Currency (optional)</label>
        <input id="csv-currency" name="currency" maxLength={3} size={4} />
      </div>
      <button type="submit" disabled={download.isPending}>
        Download CSV of balance transactions
      </button>
      <ErrorNotice error={download.error} />
    </form>
  );
}
