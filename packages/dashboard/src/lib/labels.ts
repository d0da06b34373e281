// API field names and codes in plain words, for the detail pages ("payment_method" → "Payment method").

const FIELD_LABELS: Record<string, string> = {
  id: 'ID',
  amount_refunded: 'Refunded',
  callback_url: 'Callback URL',
  livemode: 'Mode',
  payment_id: 'Payment',
  wallet_id: 'Wallet',
  source: 'Paid with',
  source_wallet_id: 'From wallet',
  destination_wallet_id: 'To wallet',
  holder: 'Holder',
  customer: 'Customer',
  url: 'URL',
};

/** A field name as a label: "created_at" → "Created", "provider_reference" → "Provider reference". */
export function labelFor(key: string): string {
  const known = FIELD_LABELS[key];
  if (known) return known;
  return sentence(key.replace(/_at$/, ''));
}

/** A snake_case code as words: "requested_by_customer" → "Requested by customer". */
export function sentence(code: string): string {
  const words = code.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const OBJECT_NAMES: Record<string, string> = { topup: 'Top-up', webhook_endpoint: 'Webhook endpoint' };

/** An object type or a wallet line's source type in words: "topup" → "Top-up". */
export function objectName(type: string): string {
  return OBJECT_NAMES[type] ?? sentence(type);
}

const CARD_BRANDS: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  discover: 'Discover',
  unionpay: 'UnionPay',
};

export function cardBrand(brand: string): string {
  return CARD_BRANDS[brand.toLowerCase()] ?? sentence(brand);
}

const PROVIDERS: Record<string, string> = { mpesa: 'M-Pesa', mtn: 'MTN MoMo', sandbox: 'Sandbox' };

export function providerName(provider: string): string {
  return PROVIDERS[provider.toLowerCase()] ?? provider;
}

const MEANS: Record<string, string> = { card: 'Card', mobile_money: 'Mobile money', wallet: 'Wallet' };

/** A means type for a list column: "mobile_money" → "Mobile money". */
export function meansName(type: string): string {
  return MEANS[type] ?? sentence(type);
}
