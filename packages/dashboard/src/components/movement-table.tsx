import { useLayoutEffect } from 'preact/hooks';
import { KINDS, type MoneyMovement, type MovementKind, meansOf } from '../lib/kinds.ts';
import { meansName } from '../lib/labels.ts';
import { Link } from '../lib/router.tsx';
import { TableBox } from './table-box.tsx';
import { Money, Status, Time } from './values.tsx';

/**
 * A page of payments, top-ups, refunds or payouts. Each render is recorded as the performance
 * measure "purse:list-render" (from the start of the render to the DOM being updated, with the row
 * count as its detail), so the browser test can hold the 100-row page to its budget.
 */
export function MovementTable({ kind, rows, caption }: { kind: MovementKind; rows: MoneyMovement[]; caption: string }) {
  const started = performance.now();
  useLayoutEffect(() => {
    performance.measure('purse:list-render', { start: started, end: performance.now(), detail: { kind, rows: rows.length } });
  }, [rows]);
  if (rows.length === 0) return <p>No {KINDS[kind].title.toLowerCase()} match.</p>;
  return (
    <TableBox label={caption}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Reference</th>
            <th scope="col">Amount</th>
            <th scope="col">Status</th>
            <th scope="col">Means</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id}>
              <td>
                <Link to={`${kind}/${row.id}`}>{row.reference}</Link>
              </td>
              <td class="num">
                <Money amount={row.amount} currency={row.currency} />
              </td>
              <td>
                <Status status={row.status} />
              </td>
              <td>{meansName(meansOf(row))}</td>
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
