import type { FailureCode } from '../../shared/failures.ts';

/**
 * The sandbox's deterministic outcomes, by test phone number and card number. Pure
 * functions, so tests and the documentation can list them.
 */

export type SandboxRule =
  | { outcome: 'succeeded' | 'failed'; failureCode: FailureCode | null; after: 'delay' | 'slow' | 'expiry' }
  | { outcome: 'pending'; failureCode: null; after: 'never' };

const MOBILE_MONEY: Record<string, SandboxRule> = {
  '001': { outcome: 'failed', failureCode: 'insufficient_funds', after: 'delay' },
  '002': { outcome: 'failed', failureCode: 'payer_declined', after: 'delay' },
  '003': { outcome: 'failed', failureCode: 'expired', after: 'expiry' },
  '004': { outcome: 'failed', failureCode: 'payer_not_found', after: 'delay' },
  '005': { outcome: 'pending', failureCode: null, after: 'never' },
  '006': { outcome: 'succeeded', failureCode: null, after: 'slow' },
  '007': { outcome: 'failed', failureCode: 'provider_error', after: 'delay' },
  '008': { outcome: 'failed', failureCode: 'limit_exceeded', after: 'delay' },
};

/**
 * Provider faults, only when PURSE_SANDBOX_FAULTS=true (the fault suite); otherwise these
 * numbers are ordinary successes. The provider writes its books first, then:
 * - `answer_lost`: never answers the initiate call (the caller's timeout fires);
 * - `connection_reset`: the call fails at once, as if the connection dropped.
 */
export type SandboxFault = 'answer_lost' | 'connection_reset';

const FAULTS: Record<string, { rule: SandboxRule; fault: SandboxFault }> = {
  // Processed, succeeds after the delay, but the answer is lost: only a status query finds out.
  '090': { rule: { outcome: 'succeeded', failureCode: null, after: 'delay' }, fault: 'answer_lost' },
  // Processed, the answer is lost, and it never settles nor calls back: only expiry ends it.
  '091': { rule: { outcome: 'pending', failureCode: null, after: 'never' }, fault: 'answer_lost' },
  // Processed, succeeds after the delay, but the connection drops before the answer.
  '092': { rule: { outcome: 'succeeded', failureCode: null, after: 'delay' }, fault: 'connection_reset' },
};

export function mobileMoneyRule(phoneNumber: string, faults = false): SandboxRule & { fault: SandboxFault | null } {
  const suffix = phoneNumber.slice(-3);
  const faulty = faults ? FAULTS[suffix] : undefined;
  if (faulty) return { ...faulty.rule, fault: faulty.fault };
  return { ...(MOBILE_MONEY[suffix] ?? { outcome: 'succeeded', failureCode: null, after: 'delay' }), fault: null };
}

/**
 * Money out to a phone number: the same numbers as payments, read from the payee's side. `004`
 * is payee_not_found; nobody has to approve, so nothing expires (`003` fails after the delay).
 */
export function outboundRule(phoneNumber: string, faults = false): SandboxRule & { fault: SandboxFault | null } {
  const rule = mobileMoneyRule(phoneNumber, faults);
  if (rule.outcome === 'pending') return rule;
  return {
    ...rule,
    failureCode: rule.failureCode === 'payer_not_found' ? 'payee_not_found' : rule.failureCode,
    after: rule.after === 'expiry' ? 'delay' : rule.after,
  };
}

/** The slow mobile-money number waits this many times the configured delay. */
export const SLOW_FACTOR = 15;
