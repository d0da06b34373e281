import { ErrorNotice } from '../components/error-notice.tsx';
import { Pager } from '../components/pager.tsx';
import { TableBox } from '../components/table-box.tsx';
import { Time } from '../components/values.tsx';
import { useFilteredList } from '../lib/filtered-list.ts';
import { api } from '../lib/session.ts';

/** The merchant's audit log (GET /v1/audit_events, scope all): who did what, from where. */
export function AuditList() {
  const { page, cursor, setCursor, submit } = useFilteredList('audit', (params) => api().auditEvents.list(params));
  return (
    <>
      <h1 tabIndex={-1}>Audit log</h1>
      <form class="filters" onSubmit={submit} aria-label="Search the audit log">
        <div>
          <label for="a-action">Action</label>
          <input id="a-action" name="action" placeholder="refund.created" />
        </div>
        <div>
          <label for="a-actor">Actor id</label>
          <input id="a-actor" name="actor_id" />
        </div>
        <button type="submit">Search</button>
      </form>
      <ErrorNotice error={page.error} />
      {page.data && page.data.data.length === 0 && <p>No records match.</p>}
      {page.data && page.data.data.length > 0 && (
        <TableBox label="Audit records, newest first">
          <table>
            <caption>Audit records, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Action</th>
                <th scope="col">Actor</th>
                <th scope="col">Target</th>
                <th scope="col">Address</th>
                <th scope="col">When</th>
              </tr>
            </thead>
            <tbody>
              {page.data.data.map((record) => (
                <tr key={record.id}>
                  <td>{record.action}</td>
                  <td>
                    {record.actor.type} {record.actor.email ?? record.actor.id ?? ''}
                  </td>
                  <td>
                    {record.target.type} {record.target.id}
                  </td>
                  <td>{record.ip_address ?? ''}</td>
                  <td>
                    <Time iso={record.created_at} />
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
