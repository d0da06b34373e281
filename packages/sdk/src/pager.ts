// Lists: the query string, and a list that is both awaitable (one page) and async-iterable (every item).
import type { Page, PageIterator } from './types.js';

export type QueryValue = string | number | boolean | null | undefined;

/** `?a=1&b=x` from the parameters, skipping undefined and null; numbers (limit) written as decimal text. */
export function queryString(params: Record<string, QueryValue> | undefined): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value === undefined || value === null) continue;
    search.set(key, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * A list: `await` it for the first page ({data, has_more}), or `for await` over it for every item
 * of every page, each page fetched when the previous one is used up (newest first: each next page
 * starts after the last item of the one before).
 */
export function pager<T extends { id: string }, Q extends object>(fetchPage: (params: Q) => Promise<Page<T>>, params: Q): PageIterator<T> {
  return {
    // biome-ignore lint/suspicious/noThenProperty: a list is awaitable for its first page, like Stripe's
    then(onFulfilled, onRejected) {
      return fetchPage(params).then(onFulfilled, onRejected);
    },
    async *[Symbol.asyncIterator]() {
      let page = await fetchPage(params);
      for (;;) {
        for (const item of page.data) yield item;
        const last = page.data.at(-1);
        if (!page.has_more || last === undefined) return;
        page = await fetchPage({ ...params, ending_before: undefined, starting_after: last.id });
      }
    },
  };
}
