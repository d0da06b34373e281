import type { Page, PageIterator } from '@purse/sdk';

/** The first page of an SDK list, as the Promise TanStack Query expects (the SDK's list is a thenable). */
export async function firstPage<T>(list: PageIterator<T>): Promise<Page<T>> {
  return await list;
}
