// The claim of a capture or cancel broken on purpose for the capture storm's negative control
// (test/negative-control.ts): it reads the payment, decides, then writes, so concurrent captures
// all see no operation recorded and all go to the acquirer. Wired through buildDeps'
// `claimOperation` option; production code has no way to choose it.
import type { claimOperation } from '../../src/charges/store/card-states.ts';
import { findChargeById } from '../../src/charges/store/read.ts';

export const checkThenActClaim: typeof claimOperation = async (db, p) => {
  // WRONG ON PURPOSE: a check on a read, then an unconditional write.
  const row = await findChargeById(db, p.id);
  if (!row || row.merchant_id !== p.merchantId || row.pending_operation !== null) return undefined;
  if (p.operation === 'capture' && row.status !== 'requires_capture') return undefined;
  await new Promise((resolve) => setTimeout(resolve, 5));
  return db
    .updateTable('charges')
    .set({
      pending_operation: p.operation,
      operation_amount: p.amountMinor?.toString() ?? null,
      cancellation_reason: p.cancellationReason,
      lease_until: p.leaseUntil,
      updated_at: p.now,
    })
    .where('id', '=', p.id)
    .returningAll()
    .executeTakeFirst();
};
