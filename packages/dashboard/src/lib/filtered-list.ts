import type { PageIterator } from '@purse/sdk';
import { keepPreviousData, useQuery } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import type { Cursor } from '../components/pager.tsx';
import { firstPage } from './page.ts';

/**
 * A list page searched by a form of text filters: the filters the form last submitted (empty
 * fields left out), the cursor, and the page of 25 they select. Submitting starts again at page one.
 */
export function useFilteredList<T>(name: string, list: (params: Record<string, string>) => PageIterator<T>) {
  const [filters, setFilters] = useState<Record<string, string>>({});
  const [cursor, setCursor] = useState<Cursor>({});
  const page = useQuery({
    queryKey: [name, 'list', filters, cursor],
    queryFn: () => firstPage(list({ limit: '25', ...filters, ...cursor } as Record<string, string>)),
    placeholderData: keepPreviousData,
  });
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const next: Record<string, string> = {};
    for (const [key, value] of new FormData(event.currentTarget as HTMLFormElement))
      if (String(value).trim()) next[key] = String(value).trim();
    setFilters(next);
    setCursor({});
  };
  return { page, cursor, setCursor, submit };
}
