import type { Messages } from './i18n.ts';

/**
 * The hosted page's HTML, server-rendered: no inline script or style (the CSP allows only this
 * origin's /pay/assets files), every control labelled, the language in <html lang>. Nothing a
 * payer typed is ever written back into a page, except the phone number on the waiting screen.
 */

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What every state of the page shows at the top: the amount and what it is for. */
export interface PageFrame {
  m: Messages;
  title: string;
  amount: string;
  currency: string;
  description: string | null;
  /** The page's own path, for the language links. */
  selfPath: string | null;
  /** Where pay.js takes the browser after a moment (the receipt's success_url); the page links it too. */
  next?: string;
  /** Polls /status while a payment is under way (pay.js). */
  pollUrl?: string;
}

export function layout(frame: PageFrame, content: string): string {
  const { m } = frame;
  const poll =
    (frame.pollUrl ? ` data-poll="${escapeHtml(frame.pollUrl)}"` : '') + (frame.next ? ` data-next="${escapeHtml(frame.next)}"` : '');
  const langs = frame.selfPath
    ? `<nav aria-label="${m.t('language')}"><a href="${escapeHtml(frame.selfPath)}?lang=en" lang="en"${m.lang === 'en' ? ' aria-current="true"' : ''}>English</a> · <a href="${escapeHtml(frame.selfPath)}?lang=fr" lang="fr"${m.lang === 'fr' ? ' aria-current="true"' : ''}>Français</a></nav>`
    : '';
  const due = frame.amount
    ? `<p class="amount"><span class="label">${m.t('amountDue')}</span> <strong>${escapeHtml(m.money(frame.amount, frame.currency))}</strong></p>`
    : '';
  const what = frame.description ? `<p class="description">${escapeHtml(frame.description)}</p>` : '';
  return `<!doctype html><html lang="${m.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(frame.title)}</title><link rel="icon" href="/pay/assets/icon.svg"><link rel="stylesheet" href="/pay/assets/pay.css"><script src="/pay/assets/pay.js" defer></script></head><body${poll}><header>${langs}<p class="brand">Purse</p></header><main><h1>${escapeHtml(frame.title)}</h1>${due}${what}${content}</main></body></html>`;
}

/** The payment form: card and mobile money, as the session offers them. */
export interface FormView {
  action: string;
  csrf: string;
  methods: string[];
  /** The means the form opens on (the last one tried). */
  selected: string;
  error: string | null;
  payLabel: string;
  cancelUrl: string | null;
}

function cardFields(m: Messages): string {
  return `<fieldset id="card-fields" data-method="card"><legend>${m.t('card')}</legend>
<div class="field"><label for="number">${m.t('cardNumber')}</label><input id="number" name="number" inputmode="numeric" autocomplete="cc-number" maxlength="23" spellcheck="false" aria-describedby="brand"><span id="brand" class="hint" aria-live="polite"></span></div>
<div class="row"><div class="field"><label for="expiry">${m.t('expiry')} <span class="hint">(${m.t('expiryHint')})</span></label><input id="expiry" name="expiry" inputmode="numeric" autocomplete="cc-exp" maxlength="7" placeholder="${m.t('expiryHint')}"></div>
<div class="field"><label for="cvc">${m.t('cvc')}</label><input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" maxlength="4"></div></div>
<div class="field"><label for="holder">${m.t('nameOnCard')}</label><input id="holder" name="holder_name" autocomplete="cc-name" maxlength="100"></div>
<p class="hint">${m.t('secured')}</p></fieldset>`;
}

function mobileFields(m: Messages): string {
  return `<fieldset id="mm-fields" data-method="mobile_money"><legend>${m.t('mobileMoney')}</legend>
<div class="field"><label for="phone">${m.t('phoneNumber')}</label><input id="phone" name="phone_number" type="tel" inputmode="tel" autocomplete="tel" maxlength="16" aria-describedby="phone-hint"><span id="phone-hint" class="hint">${m.t('phoneHint')}</span></div>
<div class="field"><label for="provider">${m.t('provider')}</label><select id="provider" name="provider"><option value="">${m.t('providerAuto')}</option><option value="mtn">MTN MoMo</option><option value="mpesa">M-Pesa</option></select></div></fieldset>`;
}

export function paymentForm(m: Messages, view: FormView): string {
  const choice = (value: string, label: string) =>
    `<label class="choice"><input type="radio" name="method" value="${value}"${view.selected === value ? ' checked' : ''}> ${label}</label>`;
  const choices =
    view.methods.length > 1
      ? `<fieldset class="choices"><legend>${m.t('choose')}</legend>${view.methods.map((t) => choice(t, t === 'card' ? m.t('card') : m.t('mobileMoney'))).join('')}</fieldset>`
      : `<input type="hidden" name="method" value="${escapeHtml(view.methods[0] ?? 'card')}">`;
  const error = view.error ? `<div class="error" role="alert" id="error">${escapeHtml(view.error)}</div>` : '';
  const fields = view.methods.map((t) => (t === 'card' ? cardFields(m) : mobileFields(m))).join('');
  return `${error}<form method="post" action="${escapeHtml(view.action)}" id="pay-form"><input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">${choices}${fields}<button type="submit" class="primary">${escapeHtml(view.payLabel)}</button></form>${cancelLink(m, view.cancelUrl)}`;
}

export function cancelLink(m: Messages, url: string | null): string {
  return url ? `<p><a class="cancel" href="${escapeHtml(url)}">${m.t('cancel')}</a></p>` : '';
}

/** After a failed attempt: why, and a way to try again (a GET to the form). */
export function failurePanel(m: Messages, reason: string, retryAction: string, lang: string, cancelUrl: string | null): string {
  return `<div class="error" role="alert"><h2>${m.t('failedTitle')}</h2><p>${escapeHtml(reason)}</p></div><form method="get" action="${escapeHtml(retryAction)}"><input type="hidden" name="retry" value="1"><input type="hidden" name="lang" value="${lang}"><button type="submit" class="primary">${m.t('tryAgain')}</button></form>${cancelLink(m, cancelUrl)}`;
}

export function waitingPanel(m: Messages, phone: string, amount: string): string {
  return `<section aria-labelledby="wait-title"><h2 id="wait-title">${m.t('approveOnPhone')}</h2><p>${escapeHtml(m.t('approveHint', { phone, amount }))}</p><p class="status" role="status" aria-live="polite"><span class="spinner" aria-hidden="true"></span>${m.t('waiting')}</p></section>`;
}

export function actionPanel(m: Messages, url: string): string {
  return `<section><h2>${m.t('authenticate')}</h2><p>${m.t('authenticateHint')}</p><p><a class="button primary" href="${escapeHtml(url)}">${m.t('continue')}</a></p></section>`;
}

export function receiptPanel(m: Messages, rows: Array<[string, string]>, next: string | null): string {
  const list = rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('');
  const onward = next
    ? `<p>${m.t('receiptHint')}</p><p><a class="button primary" href="${escapeHtml(next)}">${m.t('continue')}</a></p>`
    : `<p>${m.t('receiptStay')}</p>`;
  return `<section class="receipt" role="status"><dl>${list}</dl>${onward}</section>`;
}

export function messagePanel(text: string, link: { url: string; label: string } | null): string {
  const a = link ? `<p><a class="button" href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p>` : '';
  return `<p>${escapeHtml(text)}</p>${a}`;
}
