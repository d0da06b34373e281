// The shape of each resource of the client. Every method's parameters and answer are read from the
// document's operation at that path (types.ts), so the client (client.ts) can only call paths the
// document has, with the bodies they take.
import type {
  Answer,
  CheckoutSession,
  Event,
  ItemOf,
  ListParams,
  Merchant,
  PageIterator,
  PathOf,
  Payment,
  PaymentLink,
  RequestBody,
  Wallet,
  WalletTransaction,
  WebhookEndpoint,
} from './types.js';

/** A path that both lists (GET) and creates (POST). */
export type CollectionPath = PathOf<'get'> & PathOf<'post'>;

export interface Crud<Base extends CollectionPath, One extends PathOf<'get'>> {
  create(params: RequestBody<Base, 'post'>): Promise<Answer<Base, 'post'>>;
  retrieve(id: string): Promise<Answer<One, 'get'>>;
  list(params?: ListParams<Base>): PageIterator<ItemOf<Base>>;
}

export interface SandboxControls<Succeed extends PathOf<'post'>, Fail extends PathOf<'post'>> {
  /** Settles a pending object as succeeded (sandbox merchants only). */
  succeed(id: string): Promise<Answer<Succeed, 'post'>>;
  /** Settles a pending object as failed, with a failure code if given (sandbox merchants only). */
  fail(id: string, params?: RequestBody<Fail, 'post'>): Promise<Answer<Fail, 'post'>>;
}

export interface Payments extends Crud<'/v1/payments', '/v1/payments/{id}'> {
  /** Takes the money of an authorised card payment (requires_capture): all of amount_capturable, or `amount`. */
  capture(id: string, params?: RequestBody<'/v1/payments/{id}/capture', 'post'>): Promise<Payment>;
  /** Releases an authorised card payment's hold, or drops one still waiting on 3-D Secure. */
  cancel(id: string, params?: RequestBody<'/v1/payments/{id}/cancel', 'post'>): Promise<Payment>;
}

export interface CheckoutSessions extends Crud<'/v1/checkout_sessions', '/v1/checkout_sessions/{id}'> {
  /** Ends an open session: its page stops taking payments (409 while a payment of it is under way). */
  expire(id: string): Promise<CheckoutSession>;
}

export interface PaymentLinks extends Crud<'/v1/payment_links', '/v1/payment_links/{id}'> {
  /** Turns a link on or off. */
  update(id: string, params: RequestBody<'/v1/payment_links/{id}', 'patch'>): Promise<PaymentLink>;
}

export interface Wallets extends Crud<'/v1/wallets', '/v1/wallets/{id}'> {
  freeze(id: string): Promise<Wallet>;
  unfreeze(id: string): Promise<Wallet>;
  transactions(id: string, params?: ListParams<'/v1/wallets/{id}/transactions'>): PageIterator<WalletTransaction>;
}

type StatementParams = Omit<ListParams<'/v1/balance_transactions'>, 'limit' | 'starting_after' | 'ending_before'>;

export interface BalanceTransactions {
  list(params?: ListParams<'/v1/balance_transactions'>): PageIterator<ItemOf<'/v1/balance_transactions'>>;
  /** The statement as CSV text (Accept: text/csv): every line matching the filters, newest first. */
  csv(params?: StatementParams): Promise<string>;
}

/** The merchant's API keys (scope all): a key's client_secret is in the create and roll answers only. */
export interface ApiKeys {
  create(params: RequestBody<'/v1/api_keys', 'post'>): Promise<Answer<'/v1/api_keys', 'post'>>;
  retrieve(id: string): Promise<Answer<'/v1/api_keys/{id}', 'get'>>;
  list(params?: ListParams<'/v1/api_keys'>): PageIterator<ItemOf<'/v1/api_keys'>>;
  roll(id: string, params?: RequestBody<'/v1/api_keys/{id}/roll', 'post'>): Promise<Answer<'/v1/api_keys/{id}/roll', 'post'>>;
  revoke(id: string): Promise<Answer<'/v1/api_keys/{id}', 'delete'>>;
}

/** The merchant's audit log (scope all), newest first. */
export interface AuditEvents {
  list(params?: ListParams<'/v1/audit_events'>): PageIterator<ItemOf<'/v1/audit_events'>>;
}

export interface Events {
  retrieve(id: string): Promise<Event>;
  list(params?: ListParams<'/v1/events'>): PageIterator<Event>;
  deliveries(id: string): Promise<Answer<'/v1/events/{id}/deliveries', 'get'>>;
  redeliver(id: string): Promise<Answer<'/v1/events/{id}/redeliver', 'post'>>;
}

/** An endpoint as created or rotated: the only answers that carry its signing secret. */
export type WebhookEndpointWithSecret = WebhookEndpoint & { secret: string };

export interface WebhookEndpoints {
  create(params: RequestBody<'/v1/webhook_endpoints', 'post'>): Promise<WebhookEndpointWithSecret>;
  retrieve(id: string): Promise<WebhookEndpoint>;
  list(params?: ListParams<'/v1/webhook_endpoints'>): PageIterator<WebhookEndpoint>;
  update(id: string, params: RequestBody<'/v1/webhook_endpoints/{id}', 'patch'>): Promise<WebhookEndpoint>;
  del(id: string): Promise<Answer<'/v1/webhook_endpoints/{id}', 'delete'>>;
  rotateSecret(id: string): Promise<WebhookEndpointWithSecret>;
  sendTestEvent(id: string): Promise<Answer<'/v1/webhook_endpoints/{id}/test', 'post'>>;
}

/** The merchant's default secret, which signs deliveries to a payment's or top-up's callback_url. */
export interface WebhookSecret {
  retrieve(): Promise<Answer<'/v1/webhook_secret', 'get'>>;
  rotate(): Promise<Answer<'/v1/webhook_secret/rotate', 'post'>>;
}

export interface Sandbox {
  payments: SandboxControls<'/v1/sandbox/payments/{id}/succeed', '/v1/sandbox/payments/{id}/fail'>;
  topups: SandboxControls<'/v1/sandbox/topups/{id}/succeed', '/v1/sandbox/topups/{id}/fail'>;
  refunds: SandboxControls<'/v1/sandbox/refunds/{id}/succeed', '/v1/sandbox/refunds/{id}/fail'>;
  payouts: SandboxControls<'/v1/sandbox/payouts/{id}/succeed', '/v1/sandbox/payouts/{id}/fail'>;
}

export interface Retrievable<T> {
  retrieve(): Promise<T>;
}
export type MerchantResource = Retrievable<Merchant>;
