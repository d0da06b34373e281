import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { ErrorNotice } from '../components/error-notice.tsx';
import { SecretOnce } from '../components/secret-once.tsx';
import { TableBox } from '../components/table-box.tsx';
import { Time } from '../components/values.tsx';
import { dashboardCall, ROLES, type Role, type User } from '../lib/dashboard-api.ts';
import { onSubmitWith, text } from '../lib/forms.ts';
import { currentSession } from '../lib/session.ts';

const USERS = ['dashboard-users'];

const ROLE_WORDS: Record<Role, string> = {
  owner: 'owner — everything, users and keys',
  admin: 'admin — everything but users',
  developer: 'developer — keys, webhooks, reading',
  support: 'support — reading, refunds',
  viewer: 'viewer — reading only',
};

/** The roles; with what each may do (the invitation form), or the bare names (a row of the table). */
function RoleOptions({ explained = false }: { explained?: boolean }) {
  return (
    <>
      {ROLES.map((role) => (
        <option key={role} value={role}>
          {explained ? ROLE_WORDS[role] : role}
        </option>
      ))}
    </>
  );
}

interface Invited {
  user: User;
  invitation_url: string;
  invitation_expires_at: string;
}

/** Invite a user by email with a role; the invitation link is shown once, to send them. */
function InviteForm() {
  const queryClient = useQueryClient();
  const [role, setRole] = useState<Role>('viewer');
  const invite = useMutation({
    mutationFn: (body: { email: string; role: Role }) => dashboardCall<Invited>('POST', 'users', body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: USERS }),
  });
  const submit = onSubmitWith((form) => {
    invite.mutate({ email: text(form, 'email').trim(), role });
    form.reset();
  });
  const invited = invite.data;
  return (
    <section aria-labelledby="invite-heading" class="panel">
      <h2 id="invite-heading">Invite a user</h2>
      <form class="stacked" onSubmit={submit}>
        <label for="invite-email">Email</label>
        <input id="invite-email" name="email" type="email" required spellcheck={false} autoComplete="off" />
        <label for="invite-role">Role</label>
        <select id="invite-role" name="role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
          <RoleOptions explained />
        </select>
        <button type="submit" disabled={invite.isPending}>
          Invite
        </button>
      </form>
      <ErrorNotice error={invite.error} />
      {invited && (
        <SecretOnce
          secret={invited.invitation_url}
          label={`Invitation link for ${invited.user.email} (${invited.user.role}). Shown only now: send it to them. It works once, until ${new Date(invited.invitation_expires_at).toLocaleString()}.`}
        />
      )}
    </section>
  );
}

/** One user: change the role, or remove (after a confirmation). */
function UserRow({ user, me }: { user: User; me: boolean }) {
  const queryClient = useQueryClient();
  const [role, setRole] = useState<Role>(user.role);
  const [confirming, setConfirming] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: USERS });
  const changeRole = useMutation({
    mutationFn: () => dashboardCall<User>('PATCH', `users/${encodeURIComponent(user.id)}`, { role }),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: () => dashboardCall<void>('DELETE', `users/${encodeURIComponent(user.id)}`),
    onSuccess: refresh,
  });
  return (
    <tr>
      <th scope="row">
        {user.email}
        {me && <span class="muted"> (you)</span>}
      </th>
      <td>
        <div class="actions">
          <select aria-label={`Role of ${user.email}`} value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
            <RoleOptions />
          </select>
          <button type="button" disabled={role === user.role || changeRole.isPending} onClick={() => changeRole.mutate()}>
            Change role
          </button>
        </div>
        <ErrorNotice error={changeRole.error} />
      </td>
      <td>{user.totp_enabled ? 'On' : 'Off'}</td>
      <td>{user.status}</td>
      <td>
        <Time iso={user.created_at} />
      </td>
      <td>
        {confirming ? (
          <div class="actions">
            <span role="status">Remove {user.email}? Their sessions end now.</span>
            <button type="button" class="danger" disabled={remove.isPending} onClick={() => remove.mutate()}>
              Confirm removal
            </button>
            <button type="button" class="secondary" onClick={() => setConfirming(false)}>
              Keep
            </button>
          </div>
        ) : (
          <button type="button" class="danger" onClick={() => setConfirming(true)}>
            Remove
          </button>
        )}
        <ErrorNotice error={remove.error} />
      </td>
    </tr>
  );
}

/** The merchant's users (owner only; the server answers 403 insufficient_role to anyone else). */
export function UserList() {
  const users = useQuery({ queryKey: USERS, queryFn: () => dashboardCall<{ data: User[] }>('GET', 'users') });
  const myId = currentSession()?.user?.id;
  return (
    <>
      <h1 tabIndex={-1}>Users</h1>
      <InviteForm />
      <ErrorNotice error={users.error} />
      {users.data && (
        <TableBox label="Users of this merchant">
          <table>
            <caption>Users of this merchant</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Two-factor</th>
                <th scope="col">Status</th>
                <th scope="col">Invited</th>
                <th scope="col">Remove</th>
              </tr>
            </thead>
            <tbody>
              {users.data.data.map((user) => (
                <UserRow key={`${user.id}-${user.role}`} user={user} me={user.id === myId} />
              ))}
            </tbody>
          </table>
        </TableBox>
      )}
    </>
  );
}
