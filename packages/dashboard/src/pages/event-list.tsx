import { ErrorNotice } from '../components/error-notice.tsx';
import { Pager } from '../components/pager.tsx';
import { TableBox } from '../components/table-box.tsx';
import { Time } from '../components/values.tsx';
import { useFilteredList } from '../lib/filtered-list.ts';
import { Link } from '../lib/router.tsx';
import { api } from '../lib/session.ts';

export function EventList() {
  const { page, cursor, setCursor, submit } = useFilteredList('events', (params) => api().events.list(params));
  return (
    <>
      <h1 tabIndex={-1}>Events</h1>
      <form class="filters" onSubmit={submit} aria-label="Search events">
        <div>
          <label for="e-type">Type</label>
          <input id="e-type" name="type" placeholder="payment.succeeded" />
        </div>
        <div>
          <label for="e-object">Object id</label>
          <input id="e-object" name="object_id" />
        </div>
        <button type="submit">Search</button>
      </form>
      <ErrorNotice error={page.error} />
      {page.data && page.data.data.length === 0 && <p>No events match.</p>}
      {page.data && page.data.data.length > 0 && (
        <TableBox label="Events, newest first">
          <table>
            <caption>Events, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Type</th>
                <th scope="col">Object</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {page.data.data.map((event) => (
                <tr key={event.id}>
                  <td>
                    <Link to={`events/${event.id}`}>{event.id}</Link>
                  </td>
                  <td>{event.type}</td>
                  <td>{(event.data.object as { id?: string }).id ?? ''}</td>
                  <td>
                    <Time iso={event.created_at} />
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
