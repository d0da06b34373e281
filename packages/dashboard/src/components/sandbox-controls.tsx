import { useMutation, useQueryClient } from '@tanstack/preact-query';
import { KINDS, type MovementKind } from '../lib/kinds.ts';
import { api } from '../lib/session.ts';
import { ErrorNotice } from './error-notice.tsx';

/** Sandbox merchants force a pending object's outcome, as the sandbox helpers of the API do. */
export function SandboxControls({ kind, id }: { kind: MovementKind; id: string }) {
  const queryClient = useQueryClient();
  const force = useMutation({
    mutationFn: (outcome: 'succeed' | 'fail') => KINDS[kind].sandbox(api())[outcome](id),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: [kind] });
      void queryClient.invalidateQueries({ queryKey: ['events'] });
      void queryClient.invalidateQueries({ queryKey: ['balance'] });
    },
  });
  return (
    <fieldset class="actions">
      <legend>Sandbox</legend>
      <button type="button" disabled={force.isPending} onClick={() => force.mutate('succeed')}>
        Succeed
      </button>
      <button type="button" class="danger" disabled={force.isPending} onClick={() => force.mutate('fail')}>
        Fail
      </button>
      <ErrorNotice error={force.error} />
    </fieldset>
  );
}
