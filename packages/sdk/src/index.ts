// @purse/sdk: the typed client of the Purse API. It needs only fetch, so it runs in Node ≥ 20 and
// in browsers.
import { Purse } from './client.js';

export { Purse } from './client.js';
export { PurseError, type PurseErrorFields } from './errors.js';
export type * from './resources.js';
export {
  type AccessTokenOptions,
  type Answer,
  type Balance,
  type BalanceTransaction,
  type CardMethod,
  type CheckoutSession,
  type ClientCredentialsOptions,
  type CreateCheckoutSessionParams,
  type CreatePaymentLinkParams,
  type CreatePaymentParams,
  type CreatePayoutParams,
  type CreateRefundParams,
  type CreateTopupParams,
  type CreateTransferParams,
  type CreateWalletParams,
  type components,
  type Event,
  type HttpMethod,
  type ItemOf,
  type ListParams,
  type Merchant,
  type MobileMoneyMethod,
  NUMERIC_QUERY_PARAMETERS,
  type operations,
  type Page,
  type PageIterator,
  type PathOf,
  type Payment,
  type PaymentLink,
  type PaymentMethodInput,
  type Payout,
  type PayoutDestinationInput,
  type PurseOptions,
  type paths,
  type Refund,
  type RequestBody,
  type Topup,
  type TopupSourceInput,
  type Transfer,
  type Wallet,
  type WalletMethod,
  type WalletTransaction,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookHeaders,
} from './types.js';

export default Purse;
