import { useMutation, useQueryClient } from '@tanstack/preact-query';
import { KINDS, type MovementKind } from '../lib/kinds.ts';
import type { Right } from '../lib/rights.ts';
import { api } from '../lib/session.ts';
import { ErrorNotice } from './error-notice.tsx';

/** The right that forcing an outcome of each kind needs (the write scope of the object it settles). */
export const SANDBOX_RIGHT: Record<MovementKind, Right> = {
  payments: 'payments',
  topups: 'payments',
  refunds: 'refunds',
  payouts: 'payouts',
};

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
