import { LRUCache } from 'lru-cache';
import type { Config } from '../config.ts';
import type { ProviderMethod } from '../connectors/connector.ts';
import type { Db } from '../db/db.ts';
import type { CaptureMethod, ChargeKind, MethodType } from '../db/schema.ts';
import type { AuthContext } from '../oauth/service.ts';
import { ApiError } from '../shared/errors.ts';
import { type Fingerprint, fingerprint } from '../shared/fingerprint.ts';
import { isIdOf } from '../shared/ids.ts';
import { present } from '../shared/invariant.ts';
import { keyedHash } from '../shared/secrets.ts';
import { findWallet, type WalletRow } from '../wallets/store.ts';
import * as input from './input.ts';
import type { MeansInput } from './schemas.ts';
import type { ChargeRow } from './view.ts';

/** A create request after validation: canonical values, the public method, and the fingerprint. */
export interface PreparedCharge {
  kind: ChargeKind;
  reference: string;
  amountMinor: bigint;
  currency: string;
  methodType: MethodType;
  /** What is stored and returned: never a full card number or a CVC. */
  publicMethod: unknown;
  /** What the provider needs; lives only in memory for this request. */
  providerMethod: ProviderMethod | null;
  walletId: string | null;
  walletActive: boolean;
  customer: unknown;
  description: string | null;
  metadata: Record<string, string>;
  callbackUrl: string | null;
  /** Cards: authorise only (manual) or capture at once; where the payer returns after 3-D Secure. */
  captureMethod: CaptureMethod;
  returnUrl: string | null;
  fingerprint: Fingerprint;
}

export interface ChargeBody {
  reference: string;
  amount: string;
  currency: string;
  /** One variant per type, as the schema checked it (meansInput). */
  method: MeansInput<MethodType>;
  /** payment_method or source: the name the merchant used, for `param`. */
  methodParam: string;
  walletId?: string;
  customer?: Parameters<typeof input.checkCustomer>[0];
  description?: string;
  metadata?: Record<string, string>;
  callback_url?: string;
  capture_method?: CaptureMethod;
  return_url?: string;
  /**
   * Set only by hosted checkout (checkout/attempts.ts), never from a request body: the card was
   * typed into Purse's own page, so the live merchant's raw-card permission does not apply.
   */
  hostedCheckout?: true;
}

const missingWallet = (param: string) =>
  new ApiError('resource_missing', `No such wallet: ${param} does not name a wallet of this account.`, { param });

/**
 * A wallet's merchant and currency are fixed when it is created, and ids are never reused: once
 * read, they are remembered (bounded), which spares a payment, transfer or payout naming a known
 * wallet a database round trip before its statement. Its status is not: that is decided inside
 * the statements, on the locked row.
 */
const walletIdentities = new LRUCache<string, { merchantId: string; currency: string }>({ max: 100_000 });

/**
 * Checks that `id` is the merchant's wallet in `currency`, or throws the 400 every request naming
 * a wallet gives: an unknown id and another merchant's read alike (resource_missing), another
 * currency is invalid. Returns the row when it had to read it.
 */
export async function loadWallet(db: Db, auth: AuthContext, id: string, currency: string, param: string) {
  let known = walletIdentities.get(id);
  let row: WalletRow | undefined;
  if (!known) {
    row = isIdOf('wallet', id) ? await findWallet(db, auth.merchantId, id) : undefined;
    if (!row) throw missingWallet(param);
    known = { merchantId: row.merchant_id, currency: row.currency };
    walletIdentities.set(id, known);
  }
  if (known.merchantId !== auth.merchantId) throw missingWallet(param);
  if (known.currency !== currency) {
    throw new ApiError('parameter_invalid', `${param} holds ${known.currency}, not ${currency}.`, { param });
  }
  return row;
}

function describeMethod(body: ChargeBody, now: Date, hashKey: Buffer) {
  const { method, methodParam: p } = body;
  // Exhaustive: a new method type fails to compile here instead of being taken for another.
  switch (method.type) {
    case 'card':
      return describeCard(method.card, p, now, hashKey);
    case 'mobile_money': {
      const mm = input.checkMobileMoney(method.mobile_money, `${p}.mobile_money`);
      return {
        methodType: method.type,
        publicMethod: { type: 'mobile_money', mobile_money: mm },
        providerMethod: { type: 'mobile_money', phoneNumber: mm.phone_number, provider: mm.provider } as ProviderMethod,
        canonical: { type: 'mobile_money', ...mm },
      };
    }
    case 'wallet': {
      const walletId = method.wallet.wallet_id;
      return {
        methodType: method.type,
        publicMethod: { type: 'wallet', wallet: { wallet_id: walletId } },
        providerMethod: null,
        canonical: { type: 'wallet', wallet_id: walletId },
      };
    }
    default: {
      const unhandled: never = method;
      throw new Error(`invariant broken: no description for method type ${String((unhandled as { type: unknown }).type)}`);
    }
  }
}

/** A card: checked, then reduced to what may be stored (brand, last four, expiry). */
function describeCard(card: Parameters<typeof input.checkCard>[0], p: string, now: Date, hashKey: Buffer) {
  input.checkCard(card, `${p}.card`, now);
  return {
    methodType: 'card' as const,
    publicMethod: {
      type: 'card',
      card: { brand: input.cardBrand(card.number), last4: card.number.slice(-4), exp_month: card.exp_month, exp_year: card.exp_year },
    },
    providerMethod: {
      type: 'card',
      number: card.number,
      expMonth: card.exp_month,
      expYear: card.exp_year,
      cvc: card.cvc,
    } as ProviderMethod,
    // A keyed hash of the number; the CVC is left out: it is never kept, not even hashed.
    canonical: {
      type: 'card',
      number: keyedHash(hashKey, `card:${card.number}`),
      exp_month: card.exp_month,
      exp_year: card.exp_year,
      holder_name: card.holder_name ?? null,
    },
  };
}

/** Validates a payment or top-up request; throws the contract's 400 before anything is stored. */
export async function prepareCharge(
  deps: { db: Db; config: Config; hashKey: Buffer; now: Date },
  auth: AuthContext,
  kind: ChargeKind,
  body: ChargeBody,
): Promise<PreparedCharge> {
  const { config, hashKey, now } = deps;
  const reference = input.checkReference(body.reference);
  const currency = input.checkCurrency(body.currency, config);
  const amountMinor = input.checkAmount(body.amount, currency, config);
  const described = describeMethod(body, now, hashKey);
  const customer = input.checkCustomer(body.customer);
  const callbackUrl = input.checkCallback(body.callback_url, config, auth.livemode);
  const description = body.description ?? null;
  const metadata = body.metadata ?? {};
  const captureMethod = body.capture_method ?? 'automatic';
  const returnUrl = input.checkReturnUrl(body.return_url);
  if (described.methodType !== 'card') {
    if (captureMethod !== 'automatic') throw cardsOnly('capture_method', body.methodParam);
    if (returnUrl !== null) throw cardsOnly('return_url', body.methodParam);
  } else if (auth.livemode && body.hostedCheckout !== true) {
    checkRawCardData(auth);
  }

  const walletParam = kind === 'topup' ? 'wallet_id' : `${body.methodParam}.wallet.wallet_id`;
  const walletId =
    kind === 'topup'
      ? present(body.walletId, 'wallet_id')
      : described.methodType === 'wallet'
        ? (described.canonical as { wallet_id: string }).wallet_id
        : null;
  let wallet = walletId === null ? undefined : await loadWallet(deps.db, auth, walletId, currency, walletParam);
  // A top-up to a frozen wallet fails at once, without a provider call: it needs the status now.
  if (kind === 'topup' && walletId !== null && !wallet) wallet = await findWallet(deps.db, auth.merchantId, walletId);

  const fields: Record<string, unknown> = {
    amount: amountMinor.toString(),
    currency,
    [body.methodParam]: described.canonical,
    description,
    metadata,
    callback_url: callbackUrl,
  };
  // Only when given: the fingerprint of a request that never named them stays what it was.
  if (body.capture_method !== undefined) fields.capture_method = captureMethod;
  if (returnUrl !== null) fields.return_url = returnUrl;
  if (kind === 'payment') fields.customer = customer;
  else fields.wallet_id = walletId;
  return {
    kind,
    reference,
    amountMinor,
    currency,
    methodType: described.methodType,
    publicMethod: described.publicMethod,
    providerMethod: described.providerMethod,
    walletId,
    walletActive: wallet?.status === 'active',
    customer,
    description,
    metadata,
    callbackUrl,
    captureMethod,
    returnUrl,
    fingerprint: fingerprint(hashKey, fields),
  };
}

const cardsOnly = (param: string, methodParam: string) =>
  new ApiError('parameter_invalid', `${param} applies to card payments only (${methodParam}.type card).`, { param });

/**
 * A live merchant posts card numbers through the API only when the operator allowed it
 * (`purse merchant update --raw-card-data`); sandbox merchants may always send test cards.
 */
function checkRawCardData(auth: AuthContext): void {
  if (auth.rawCardData) return;
  throw new ApiError(
    'raw_card_data_not_allowed',
    'This live account may not send card numbers through the API: collect cards with a hosted checkout session ' +
      '(POST /v1/checkout_sessions), or ask the operator to allow raw card data for the account.',
    { param: 'payment_method.card' },
  );
}

/** The row a new charge would have in the database, for rendering before it is read back. */
export function pendingRow(auth: AuthContext, prepared: PreparedCharge, id: string, now: Date, provider: string): ChargeRow {
  return {
    id,
    kind: prepared.kind,
    merchant_id: auth.merchantId,
    reference: prepared.reference,
    request_fingerprint: prepared.fingerprint,
    status: 'pending',
    amount: prepared.amountMinor.toString(),
    currency: prepared.currency,
    method_type: prepared.methodType,
    method: prepared.publicMethod,
    wallet_id: prepared.walletId,
    customer: prepared.kind === 'payment' ? prepared.customer : null,
    description: prepared.description,
    metadata: prepared.metadata,
    callback_url: prepared.callbackUrl,
    failure_code: null,
    failure_message: null,
    provider,
    provider_reference: null,
    provider_state: 'not_started',
    late_outcome: null,
    livemode: auth.livemode,
    created_at: now,
    updated_at: now,
    completed_at: null,
    expires_at: null,
    next_check_at: null,
    lease_until: null,
    attempts: 0,
    amount_refunded: '0',
    capture_method: prepared.captureMethod,
    amount_capturable: null,
    amount_received: null,
    capture_before: null,
    next_action: null,
    provider_action_url: null,
    return_url: prepared.returnUrl,
    three_d_secure: null,
    cancellation_reason: null,
    pending_operation: null,
    operation_amount: null,
    operation_key_generation: 0,
  };
}
