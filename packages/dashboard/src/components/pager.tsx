/** Where a cursor list stands: the first page, or the page after or before an id. */
export type Cursor = { starting_after?: string; ending_before?: string };

/**
 * Previous and next for a newest-first cursor list. `has_more` tells whether more lie in the
 * direction just travelled; the other direction has more whenever a cursor was used.
 */
export function Pager({
  cursor,
  page,
  onChange,
}: {
  cursor: Cursor;
  page: { data: { id: string }[]; has_more: boolean } | undefined;
  onChange: (cursor: Cursor) => void;
}) {
  if (!page) return null;
  const first = page.data[0]?.id;
  const last = page.data.at(-1)?.id;
  const backwards = cursor.ending_before !== undefined;
  const hasNext = backwards ? true : page.has_more;
  const hasPrevious = backwards ? page.has_more : cursor.starting_after !== undefined;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" class="secondary" disabled={!hasPrevious || !first} onClick={() => first && onChange({ ending_before: first })}>
        Previous page
      </button>
      <button type="button" class="secondary" disabled={!hasNext || !last} onClick={() => last && onChange({ starting_after: last })}>
        Next page
      </button>
    </nav>
  );
}
