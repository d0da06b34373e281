// Compiled by types.test.ts, never run. Each statement under a `@ts-expect-error TSnnnn` must fail
// to compile with that error: if a wrong shape starts to type-check, the directive is unused and
// the compile fails. The statements without a directive must compile.
import { type Payment, type PaymentMethodInput, Purse, type Topup } from '../../src/index.ts';

const purse = new Purse({ baseUrl: 'http://127.0.0.1:8080', clientId: 'cli_1', clientSecret: 'sk_test_1' });
const card = { number: '4242424242424242', exp_month: 12, exp_year: 2035, cvc: '123' };
const mobile = { phone_number: '+254712345678', provider: 'mpesa' as const };
const base = { reference: 'order-1', amount: '10.00', currency: 'KES' };

// What a merchant writes: each means, narrowed on type; numbers for limit; typed answers.
const paid: Payment = await purse.payments.create({ ...base, payment_method: { type: 'card', card } });
await purse.payments.create({ ...base, payment_method: { type: 'mobile_money', mobile_money: mobile } });
await purse.payments.create({ ...base, payment_method: { type: 'wallet', wallet: { wallet_id: 'wal_1' } } });
await purse.topups.create({ ...base, wallet_id: 'wal_1', source: { type: 'card', card } });
await purse.payouts.create({ ...base, destination: { type: 'mobile_money', mobile_money: mobile } });
const method: PaymentMethodInput = { type: 'card', card };
if (method.type === 'card') console.log(method.card.number.slice(-4));
for await (const payment of purse.payments.list({ limit: 20, status: 'succeeded' })) console.log(payment.amount, paid.id);
const first = await purse.events.list({ limit: 5, type: 'payment.succeeded' });
console.log(first.data[0]?.type, first.has_more);
const endpoint = await purse.webhookEndpoints.create({ url: 'https://shop.example/hooks', events: ['payment.succeeded'] });
const secret: string = endpoint.secret;
console.log(Purse.webhooks.verify('{}', { 'webhook-id': 'evt_1' }, secret).type);

// @ts-expect-error TS2322 a card payment that carries a mobile_money object instead
await purse.payments.create({ ...base, payment_method: { type: 'card', mobile_money: mobile } });

// @ts-expect-error TS2322 two means at once
await purse.payments.create({ ...base, payment_method: { type: 'card', card, mobile_money: mobile } });

// @ts-expect-error TS2322 the type names one means, the object is another's
await purse.payments.create({ ...base, payment_method: { type: 'mobile_money', card } });

// @ts-expect-error TS2353 an unknown field beside the means
await purse.payments.create({ ...base, payment_method: { type: 'card', card, save: true } });

// @ts-expect-error TS2322 a type the API does not know
await purse.payments.create({ ...base, payment_method: { type: 'bank_transfer', card } });

// @ts-expect-error TS2353 an unknown field of the payment
await purse.payments.create({ ...base, payment_method: { type: 'card', card }, colour: 'red' });

// @ts-expect-error TS2322 amounts are decimal strings, never numbers
await purse.payments.create({ ...base, amount: 10, payment_method: { type: 'card', card } });

// @ts-expect-error TS2345 the reference is required
await purse.payments.create({ amount: '10.00', currency: 'KES', payment_method: { type: 'card', card } });

// @ts-expect-error TS2322 a top-up is not paid from a wallet
await purse.topups.create({ ...base, wallet_id: 'wal_1', source: { type: 'wallet', wallet: { wallet_id: 'wal_2' } } });

// @ts-expect-error TS2322 a payout does not go to a card
await purse.payouts.create({ ...base, destination: { type: 'card', card } });

// @ts-expect-error TS2322 limit is a number, not a string
await purse.payments.list({ limit: '20' });

// @ts-expect-error TS2353 a filter the list does not have
await purse.payments.list({ colour: 'red' });

// @ts-expect-error TS2353 the CSV statement is not paged
await purse.balanceTransactions.csv({ limit: 5 });

// @ts-expect-error TS2345 ids are strings
await purse.payments.retrieve(42);

// @ts-expect-error TS2739 a payment is not a top-up
const wrong: Topup = await purse.payments.retrieve('pay_1');

// @ts-expect-error TS2353 verify takes the raw body, not parsed JSON
Purse.webhooks.verify({ id: 'evt_1' }, {}, secret);

// The two ways to authenticate, each alone.
const fromSession = new Purse({ baseUrl: 'http://127.0.0.1:8080', accessToken: async () => 'tok_1' });
console.log(fromSession.payments);

// @ts-expect-error TS2345 an access token function beside the client credentials
new Purse({ baseUrl: 'http://127.0.0.1:8080', clientId: 'cli_1', clientSecret: 'sk_test_1', accessToken: async () => 'tok_1' });

// @ts-expect-error TS2345 a client id without its secret, next to an access token
new Purse({ baseUrl: 'http://127.0.0.1:8080', clientId: 'cli_1', accessToken: async () => 'tok_1' });

// @ts-expect-error TS2345 the client id without its secret
new Purse({ baseUrl: 'http://127.0.0.1:8080', clientId: 'cli_1' });

// @ts-expect-error TS2322 the access token is a function returning a Promise, not the token itself
new Purse({ baseUrl: 'http://127.0.0.1:8080', accessToken: 'tok_1' });

console.log(wrong);
