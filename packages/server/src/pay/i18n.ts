/** The hosted page's words, in English and French. Keys are what the page shows; {amount} is filled in. */
const EN = {
  title: 'Pay {merchant}',
  payTo: 'Payment',
  amountDue: 'Amount due',
  choose: 'How do you want to pay?',
  card: 'Card',
  mobileMoney: 'Mobile money',
  cardNumber: 'Card number',
  expiry: 'Expiry',
  expiryHint: 'MM/YY',
  cvc: 'CVC',
  nameOnCard: 'Name on card',
  phoneNumber: 'Phone number',
  phoneHint: 'With the country code, e.g. +254712345678',
  provider: 'Provider',
  providerAuto: 'Detect from the number',
  pay: 'Pay {amount}',
  tryAgain: 'Try again',
  cancel: 'Cancel',
  secured: 'Your card details go only to Purse; the shop never sees them.',
  approveOnPhone: 'Approve the payment on your phone',
  approveHint: 'We sent a request to {phone}. Enter your PIN on the phone to pay {amount}. This page updates by itself.',
  waiting: 'Waiting for your approval…',
  authenticate: 'Confirm with your bank',
  authenticateHint: 'Your bank asks you to confirm this payment.',
  continue: 'Continue',
  paid: 'Payment received',
  authorized: 'Payment authorised',
  receiptHint: 'Thank you. You are being taken back to the shop.',
  receiptStay: 'Thank you. You can close this page.',
  reference: 'Reference',
  paidWith: 'Paid with',
  failedTitle: 'The payment did not go through',
  expiredTitle: 'This payment page has expired',
  expiredHint: 'No money was taken. Go back to the shop to start again.',
  backToShop: 'Back to the shop',
  notFound: 'Payment page not found',
  notFoundHint: 'This link is not valid. Check it with the shop.',
  language: 'Language',
  badForm: 'The form expired. Please try again.',
  amount: 'Amount',
  amountHint: 'In {currency}, e.g. 1500 or 10.50',
  linkInactive: 'This payment link is no longer active',
  linkInactiveHint: 'Ask the shop for a new link.',
} as const;

export type MessageKey = keyof typeof EN;

const FR: Record<MessageKey, string> = {
  title: 'Payer {merchant}',
  payTo: 'Paiement',
  amountDue: 'Montant dû',
  choose: 'Comment voulez-vous payer ?',
  card: 'Carte',
  mobileMoney: 'Mobile money',
  cardNumber: 'Numéro de carte',
  expiry: 'Expiration',
  expiryHint: 'MM/AA',
  cvc: 'CVC',
  nameOnCard: 'Nom sur la carte',
  phoneNumber: 'Numéro de téléphone',
  phoneHint: 'Avec l’indicatif du pays, par ex. +22507123456',
  provider: 'Opérateur',
  providerAuto: 'Déduit du numéro',
  pay: 'Payer {amount}',
  tryAgain: 'Réessayer',
  cancel: 'Annuler',
  secured: 'Vos données de carte vont seulement à Purse ; la boutique ne les voit jamais.',
  approveOnPhone: 'Validez le paiement sur votre téléphone',
  approveHint:
    'Une demande a été envoyée au {phone}. Saisissez votre code sur le téléphone pour payer {amount}. Cette page se met à jour seule.',
  waiting: 'En attente de votre validation…',
  authenticate: 'Confirmez auprès de votre banque',
  authenticateHint: 'Votre banque vous demande de confirmer ce paiement.',
  continue: 'Continuer',
  paid: 'Paiement reçu',
  authorized: 'Paiement autorisé',
  receiptHint: 'Merci. Vous allez être renvoyé vers la boutique.',
  receiptStay: 'Merci. Vous pouvez fermer cette page.',
  reference: 'Référence',
  paidWith: 'Payé avec',
  failedTitle: 'Le paiement n’a pas abouti',
  expiredTitle: 'Cette page de paiement a expiré',
  expiredHint: 'Aucun montant n’a été prélevé. Retournez à la boutique pour recommencer.',
  backToShop: 'Retour à la boutique',
  notFound: 'Page de paiement introuvable',
  notFoundHint: 'Ce lien n’est pas valide. Vérifiez-le auprès de la boutique.',
  language: 'Langue',
  badForm: 'Le formulaire a expiré. Veuillez réessayer.',
  amount: 'Montant',
  amountHint: 'En {currency}, par ex. 1500 ou 10,50',
  linkInactive: 'Ce lien de paiement n’est plus actif',
  linkInactiveHint: 'Demandez un nouveau lien à la boutique.',
};

/** Why a payment failed, in the payer's words (failure codes of the payments, refusals of the page). */
const REASONS_EN: Record<string, string> = {
  card_declined: 'Your card was declined. Try another card or pay by mobile money.',
  insufficient_funds: 'There is not enough money on this card or account.',
  expired_card: 'This card has expired.',
  incorrect_cvc: 'The CVC is not right. Check the 3 or 4 digits on your card.',
  processing_error: 'The card could not be processed. Try again in a moment.',
  authentication_failed: 'Your bank could not confirm the payment.',
  lost_or_stolen_card: 'Your card was declined. Try another card.',
  fraudulent: 'Your card was declined. Try another card.',
  payer_declined: 'The payment was declined on the phone.',
  expired: 'The request on your phone expired before it was approved.',
  payer_not_found: 'No mobile money account was found for this number.',
  limit_exceeded: 'This amount is above the account’s limit.',
  provider_error: 'The payment service could not be reached. Try again in a moment.',
  too_many_attempts: 'Too many attempts from this connection. Wait a few minutes and try again.',
  card_blocked: 'This card cannot be used here right now. Try another card.',
  in_progress: 'A payment is already under way for this page.',
  method_not_offered: 'This way of paying is not offered for this payment.',
  invalid_number: 'The card number is not valid.',
  invalid_expiry: 'Enter the expiry date as MM/YY, in the future.',
  invalid_cvc: 'The CVC is 3 or 4 digits.',
  invalid_phone: 'Enter the phone number with its country code, e.g. +254712345678.',
  bad_form: 'The form expired. Please try again.',
  invalid_amount: 'Enter an amount above zero, with at most the currency’s decimals.',
  default: 'The payment did not go through. Try again.',
};

const REASONS_FR: Record<string, string> = {
  card_declined: 'Votre carte a été refusée. Essayez une autre carte ou le mobile money.',
  insufficient_funds: 'Le solde de cette carte ou de ce compte est insuffisant.',
  expired_card: 'Cette carte a expiré.',
  incorrect_cvc: 'Le CVC est incorrect. Vérifiez les 3 ou 4 chiffres de votre carte.',
  processing_error: 'La carte n’a pas pu être traitée. Réessayez dans un instant.',
  authentication_failed: 'Votre banque n’a pas pu confirmer le paiement.',
  lost_or_stolen_card: 'Votre carte a été refusée. Essayez une autre carte.',
  fraudulent: 'Votre carte a été refusée. Essayez une autre carte.',
  payer_declined: 'Le paiement a été refusé sur le téléphone.',
  expired: 'La demande sur votre téléphone a expiré avant d’être validée.',
  payer_not_found: 'Aucun compte mobile money ne correspond à ce numéro.',
  limit_exceeded: 'Ce montant dépasse la limite du compte.',
  provider_error: 'Le service de paiement est injoignable. Réessayez dans un instant.',
  too_many_attempts: 'Trop de tentatives depuis cette connexion. Patientez quelques minutes.',
  card_blocked: 'Cette carte ne peut pas être utilisée ici pour le moment. Essayez une autre carte.',
  in_progress: 'Un paiement est déjà en cours pour cette page.',
  method_not_offered: 'Ce moyen de paiement n’est pas proposé pour ce paiement.',
  invalid_number: 'Le numéro de carte n’est pas valide.',
  invalid_expiry: 'Saisissez la date d’expiration au format MM/AA, dans le futur.',
  invalid_cvc: 'Le CVC comporte 3 ou 4 chiffres.',
  invalid_phone: 'Saisissez le numéro avec l’indicatif du pays, par ex. +22507123456.',
  bad_form: 'Le formulaire a expiré. Veuillez réessayer.',
  invalid_amount: 'Saisissez un montant supérieur à zéro, avec au plus les décimales de la devise.',
  default: 'Le paiement n’a pas abouti. Réessayez.',
};

export type Lang = 'en' | 'fr';

export interface Messages {
  lang: Lang;
  t(key: MessageKey, values?: Record<string, string>): string;
  reason(code: string): string;
  money(amount: string, currency: string): string;
}

export function messages(lang: Lang): Messages {
  const table = lang === 'fr' ? FR : EN;
  const reasons = lang === 'fr' ? REASONS_FR : REASONS_EN;
  const locale = lang === 'fr' ? 'fr-FR' : 'en-GB';
  return {
    lang,
    t: (key, values = {}) => table[key].replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? ''),
    reason: (code) => reasons[code] ?? (reasons.default as string),
    // Intl formats the decimal string exactly (no float): "1 500,00 KES" in French, "KES 1,500.00" in English.
    money: (amount, currency) => new Intl.NumberFormat(locale, { style: 'currency', currency }).format(amount as unknown as number),
  };
}

/** The page's language: ?lang= when given, else the browser's first of English or French, else English. */
export function pickLang(query: string | undefined, acceptLanguage: string | undefined): Lang {
  if (query === 'fr' || query === 'en') return query;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.trim().slice(0, 2).toLowerCase();
    if (tag === 'fr' || tag === 'en') return tag;
  }
  return 'en';
}
