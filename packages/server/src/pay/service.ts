import { createHmac, randomBytes } from 'node:crypto';
import type { ChargeRow } from '../charges/view.ts';
import type { AttemptMethod, CheckoutAttempts } from '../checkout/attempts.ts';
import type { CheckoutService } from '../checkout/service.ts';
import type { SessionRow } from '../checkout/view.ts';
import { ApiError } from '../shared/errors.ts';
import { constantTimeEqual } from '../shared/secrets.ts';

/** What the page shows for a session, decided from the server-side state of it and its payments. */
export type PageState =
  | { kind: 'unknown' }
  | { kind: 'expired'; session: SessionRow }
  | { kind: 'complete'; session: SessionRow; payment: ChargeRow | undefined }
  | { kind: 'waiting'; session: SessionRow; payment: ChargeRow }
  | { kind: 'action'; session: SessionRow; url: string }
  | { kind: 'failed'; session: SessionRow; code: string; method: string }
  | { kind: 'form'; session: SessionRow; method: string };

/** The form as posted (application/x-www-form-urlencoded); every field optional, all strings. */
export type PayForm = Partial<
  Record<'csrf' | 'method' | 'number' | 'expiry' | 'cvc' | 'holder_name' | 'phone_number' | 'provider', string>
>;

export type SubmitOutcome = { ok: true } | { ok: false; code: string; method: string; session: SessionRow };

const nextActionUrl = (payment: ChargeRow) => (payment.next_action as { redirect_to_url?: { url?: string } } | null)?.redirect_to_url?.url;

/** A card's expiry as typed (MM/YY or MM/YYYY), or null. */
function parseExpiry(text: string): { month: number; year: number } | null {
  const m = /^(\d{1,2})\s*\/\s*(\d{2}|\d{4})$/.exec(text.trim());
  if (!m) return null;
  const year = (m[2] as string).length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  return { month: Number(m[1]), year };
}

/** The form's means, or the code of what is wrong with it (the page words it). */
function readMethod(form: PayForm): AttemptMethod | string {
  if (form.method === 'mobile_money') {
    const phone = (form.phone_number ?? '').replace(/[\s-]/g, '');
    if (!/^\+[1-9]\d{6,14}$/.test(phone)) return 'invalid_phone';
    const provider = form.provider === 'mtn' || form.provider === 'mpesa' ? form.provider : undefined;
    return { type: 'mobile_money', mobile_money: { phone_number: phone, ...(provider ? { provider } : {}) } };
  }
  const number = (form.number ?? '').replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number)) return 'invalid_number';
  const expiry = parseExpiry(form.expiry ?? '');
  if (!expiry || expiry.month < 1 || expiry.month > 12) return 'invalid_expiry';
  const cvc = (form.cvc ?? '').trim();
  if (!/^\d{3,4}$/.test(cvc)) return 'invalid_cvc';
  const holder = (form.holder_name ?? '').trim().slice(0, 100);
  return {
    type: 'card',
    card: { number, exp_month: expiry.month, exp_year: expiry.year, cvc, ...(holder ? { holder_name: holder } : {}) },
  };
}

/** The payments' own refusal of a field, in the page's words. */
function reasonOfRefusal(error: ApiError): string {
  const param = error.param ?? '';
  if (param.endsWith('.number')) return 'invalid_number';
  if (param.endsWith('exp_month') || param.endsWith('exp_year') || /expir/.test(error.message)) return 'invalid_expiry';
  if (param.endsWith('.cvc')) return 'invalid_cvc';
  if (param.includes('phone_number')) return 'invalid_phone';
  return 'default';
}

export function createPayPages(deps: { checkout: CheckoutService; attempts: CheckoutAttempts; hashKey: Buffer }) {
  const { checkout } = deps;
  const csrfKey = createHmac('sha256', deps.hashKey).update('purse hosted page csrf v1').digest();
  const csrfOf = (cookie: string, sessionId: string) => createHmac('sha256', csrfKey).update(`${cookie}|${sessionId}`).digest('base64url');

  async function state(token: string, retry: boolean): Promise<PageState> {
    const session = await checkout.findByToken(token);
    if (!session) return { kind: 'unknown' };
    if (session.status === 'expired') return { kind: 'expired', session };
    if (session.status === 'complete') {
      return {
        kind: 'complete',
        session,
        payment: session.payment_id ? await checkout.attemptPayment(session, session.failed_attempts + 1) : undefined,
      };
    }
    const current = await checkout.currentAttempt(session);
    if (current?.status === 'requires_action') {
      const url = nextActionUrl(current);
      if (url) return { kind: 'action', session, url };
    }
    if (current && current.completed_at === null) return { kind: 'waiting', session, payment: current };
    const last = session.failed_attempts > 0 ? await checkout.attemptPayment(session, session.failed_attempts) : undefined;
    const method = last?.method_type ?? (session.payment_method_types[0] as string);
    if (last && !retry) return { kind: 'failed', session, code: last.failure_code ?? 'default', method };
    return { kind: 'form', session, method };
  }

  return {
    state,
    /** A fresh random value for the page's cookie (the double-submit pair of the form's csrf field). */
    newCookie: () => randomBytes(24).toString('base64url'),
    csrfOf,
    csrfValid: (cookie: string | undefined, sessionId: string, given: string | undefined) =>
      cookie !== undefined && given !== undefined && constantTimeEqual(csrfOf(cookie, sessionId), given),

    /** One attempt from the form. The card lives in this call's memory only. */
    async submit(session: SessionRow, form: PayForm, address: string): Promise<SubmitOutcome> {
      const method = form.method === 'mobile_money' ? 'mobile_money' : 'card';
      const read = readMethod(form);
      if (typeof read === 'string') return { ok: false, code: read, method, session };
      try {
        const result = await deps.attempts.pay(session, read, address);
        return result.ok ? { ok: true } : { ok: false, code: result.refusal, method, session: result.session };
      } catch (error) {
        if (error instanceof ApiError && error.status === 400) return { ok: false, code: reasonOfRefusal(error), method, session };
        throw error;
      }
    },
  };
}

export type PayPages = ReturnType<typeof createPayPages>;
