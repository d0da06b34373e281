// The fake card acquirer (Stripe's PaymentIntents API) over real HTTP: authentication and request
// shapes, every test card's outcome and its 402, 3-D Secure through the challenge page's own
// forms, manual capture (full, partial, lapsed), cancel, wrong states, refunds and currencies.
// Idempotency, faults and webhooks are in acquirer-idempotency.test.ts and acquirer-webhooks.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { canonicalForm, FormError, parseForm } from './acquirer/form.ts';
import { answerChallenge, cardData, createIntent, get, intentParams, post } from './acquirer/test-support.ts';
import { ACQUIRER_TEST_CARDS, type FakeAcquirer, startFakeAcquirer } from './acquirer.ts';

let fake: FakeAcquirer;
before(async () => {
  fake = await startFakeAcquirer({ refundSettleDelayMs: 30, searchLagMs: 0 });
});
after(() => fake.close());

describe('requests', () => {
  test('a missing or wrong key is 401 in Stripe’s error shape, without echoing the key; Basic with the key works', async () => {
    const none = await get(fake, '/v1/payment_intents/pi_x', {}, { authorization: null });
    assert.equal(none.status, 401);
    assert.equal(none.body.error.type, 'invalid_request_error');
    assert.match(none.body.error.message, /did not provide an API key/);
    const wrong = await get(fake, '/v1/payment_intents/pi_x', {}, { secretKey: 'sk_test_wrongwrongwrongwrong1234' });
    assert.equal(wrong.status, 401);
    assert.ok(!wrong.body.error.message.includes('sk_test_wrongwrongwrongwrong1234'), 'the key is masked');
    const basic = `Basic ${Buffer.from(`${fake.secretKey}:`).toString('base64')}`;
    assert.equal((await get(fake, '/v1/payment_intents/pi_x', {}, { authorization: basic })).status, 404);
  });

  test('unknown routes are 404; a JSON body is refused', async () => {
    const res = await get(fake, '/v1/customers');
    assert.equal(res.status, 404);
    assert.match(res.body.error.message, /Unrecognized request URL \(GET: \/v1\/customers\)/);
    const json = await post(fake, '/v1/payment_intents', {}, { contentType: 'application/json' });
    assert.equal(json.status, 400);
  });

  test('parameters are checked as Stripe does: unknown, missing, not an integer, upper-case currency', async () => {
    const cases: [Record<string, unknown>, string | undefined, string][] = [
      [intentParams('4242424242424242', { colour: 'red' }), 'parameter_unknown', 'colour'],
      [
        intentParams('4242424242424242', { payment_method_data: { type: 'card', card: { number: '4242', pin: '1' } } }),
        'parameter_unknown',
        'payment_method_data[card][pin]',
      ],
      [intentParams('4242424242424242', { amount: undefined }), 'parameter_missing', 'amount'],
      [intentParams('4242424242424242', { amount: '10.50' }), 'parameter_invalid_integer', 'amount'],
      [intentParams('4242424242424242', { currency: 'KES' }), undefined, 'currency'],
      [intentParams('4242424242424242', { capture_method: 'later' }), undefined, 'capture_method'],
      [intentParams('4242424242424242', { return_url: 'javascript:alert(1)' }), 'url_invalid', 'return_url'],
    ];
    for (const [params, code, param] of cases) {
      const res = await post(fake, '/v1/payment_intents', params);
      assert.equal(res.status, 400, param);
      assert.equal(res.body.error.type, 'invalid_request_error');
      assert.equal(res.body.error.code, code, param);
      assert.equal(res.body.error.param, param);
    }
  });

  test('form bodies with bracketed keys parse into nested objects and lists', () => {
    const parsed = parseForm('a=1&metadata%5Bpurse_payment_id%5D=pay_1&p[card][number]=42&expand[]=x&expand[]=y&n[0]=a&s=a+b%21');
    assert.deepEqual(parsed, {
      a: '1',
      metadata: { purse_payment_id: 'pay_1' },
      p: { card: { number: '42' } },
      expand: ['x', 'y'],
      n: ['a'],
      s: 'a b!',
    });
    assert.equal(canonicalForm(parseForm('b=2&a[y]=1&a[x]=0')), canonicalForm(parseForm('a[x]=0&a[y]=1&b=2')));
    assert.throws(() => parseForm('a=1&a[b]=2'), FormError);
    assert.throws(() => parseForm('a[b=1'), FormError);
    assert.throws(() => parseForm('a=%E0%A4%A'), FormError);
  });
});

describe('test cards', () => {
  test('4242424242424242 succeeds: captured at once, only brand and last4 of the card anywhere', async () => {
    const res = await createIntent(fake, '4242424242424242', { expand: ['latest_charge'] });
    assert.equal(res.status, 200);
    const pi = res.body;
    assert.match(pi.id, /^pi_/);
    assert.equal(pi.object, 'payment_intent');
    assert.deepEqual([pi.status, pi.amount, pi.amount_received, pi.amount_capturable, pi.currency], ['succeeded', 1050, 1050, 0, 'kes']);
    assert.equal(pi.capture_method, 'automatic');
    assert.equal(pi.next_action, null);
    assert.equal(pi.latest_charge.captured, true);
    assert.deepEqual(
      [pi.latest_charge.payment_method_details.card.brand, pi.latest_charge.payment_method_details.card.last4],
      ['visa', '4242'],
    );
    assert.ok(!JSON.stringify(pi).includes('4242424242424242'), 'no card number');
    assert.ok(!JSON.stringify(pi).includes('"cvc"'), 'no cvc');
    const read = await get(fake, `/v1/payment_intents/${pi.id}`);
    assert.equal(read.body.status, 'succeeded');
    assert.match(read.body.latest_charge, /^ch_/);
  });

  const declines: [string, string, string | undefined][] = [
    ['4000000000000002', 'card_declined', 'generic_decline'],
    ['4000000000009995', 'card_declined', 'insufficient_funds'],
    ['4000000000009987', 'card_declined', 'lost_card'],
    ['4000000000009979', 'card_declined', 'stolen_card'],
    ['4100000000000019', 'card_declined', 'fraudulent'],
    ['4000000000000069', 'expired_card', undefined],
    ['4000000000000127', 'incorrect_cvc', undefined],
    ['4000000000000119', 'processing_error', undefined],
  ];
  for (const [number, code, declineCode] of declines) {
    test(`${number} is a 402 card_error ${code}${declineCode ? `/${declineCode}` : ''} carrying the intent`, async () => {
      const res = await createIntent(fake, number);
      assert.equal(res.status, 402);
      const { error } = res.body;
      assert.deepEqual([error.type, error.code, error.decline_code], ['card_error', code, declineCode]);
      assert.equal(typeof error.message, 'string');
      assert.match(error.charge, /^ch_/);
      assert.equal(error.payment_intent.status, 'requires_payment_method');
      assert.equal(error.payment_intent.last_payment_error.code, code);
      assert.equal(error.payment_intent.last_payment_error.decline_code, declineCode);
      assert.equal(error.payment_method.card.last4, number.slice(-4));
      assert.ok(!JSON.stringify(res.body).includes(number), 'no card number');
      const read = await get(fake, `/v1/payment_intents/${error.payment_intent.id}`);
      assert.equal(read.body.status, 'requires_payment_method');
      const charge = await get(fake, `/v1/charges/${error.charge}`);
      assert.deepEqual([charge.body.status, charge.body.failure_code, charge.body.paid], ['failed', code, false]);
    });
  }

  test('4000000000003055 is frictionless: succeeded at once, authenticated', async () => {
    const res = await createIntent(fake, '4000000000003055', { expand: ['latest_charge'] });
    assert.equal(res.body.status, 'succeeded');
    assert.equal(res.body.latest_charge.payment_method_details.card.three_d_secure.result, 'authenticated');
  });

  test('bad card data is a 402 before any intent exists; a real (non-test) card is declined test_mode_live_card', async () => {
    const id = `pay_bad_${Date.now()}`;
    const cases: [Record<string, unknown>, string, string][] = [
      [cardData('4242424242424241'), 'incorrect_number', 'number'],
      [cardData('4242 4242'), 'invalid_number', 'number'],
      [cardData('4242424242424242', { year: '2001' }), 'invalid_expiry_year', 'exp_year'],
      [cardData('4242424242424242', { month: '13' }), 'invalid_expiry_month', 'exp_month'],
      [cardData('4242424242424242', { cvc: '12a' }), 'invalid_cvc', 'cvc'],
    ];
    for (const [data, code, param] of cases) {
      const res = await createIntent(fake, '', { payment_method_data: data, metadata: { purse_payment_id: id } });
      assert.equal(res.status, 402, code);
      assert.deepEqual([res.body.error.type, res.body.error.code, res.body.error.param], ['card_error', code, param]);
      assert.equal(res.body.error.payment_intent, undefined);
    }
    assert.equal(fake.counts(id).authorisations, 0);
    const live = await createIntent(fake, '4111111111111111');
    assert.deepEqual([live.status, live.body.error.decline_code], [402, 'test_mode_live_card']);
  });

  test('every published card is in the table the fake prints', () => {
    for (const n of [
      '4242424242424242',
      '4000000000000002',
      '4000000000003220',
      '4000008400001629',
      '4000000000003055',
      '4000000000005126',
    ]) {
      assert.ok(ACQUIRER_TEST_CARDS[n], n);
    }
  });
});

describe('3-D Secure', () => {
  test('4000000000003220: challenge page, Complete, 303 to return_url with the intent, then succeeded; a second post changes nothing', async () => {
    const created = await createIntent(fake, '4000000000003220');
    const pi = created.body;
    assert.equal(pi.status, 'requires_action');
    assert.equal(pi.next_action.type, 'redirect_to_url');
    assert.ok(pi.next_action.redirect_to_url.url.startsWith(`${fake.url}/3d_secure/`), 'the fake’s own page');
    assert.equal(pi.next_action.redirect_to_url.return_url, 'https://purse.test/v1/card-returns/pay_1?t=abc');
    const page = await fetch(pi.next_action.redirect_to_url.url);
    const html = await page.text();
    assert.match(html, />Complete</);
    assert.match(html, />Fail</);
    assert.match(html, /KES 10\.50/);
    const res = await answerChallenge(pi.next_action.redirect_to_url.url, 'Complete');
    assert.equal(res.status, 303);
    const location = new URL(res.headers.get('location') as string);
    assert.equal(`${location.origin}${location.pathname}`, 'https://purse.test/v1/card-returns/pay_1');
    assert.equal(location.searchParams.get('t'), 'abc');
    assert.equal(location.searchParams.get('payment_intent'), pi.id);
    assert.equal(location.searchParams.get('payment_intent_client_secret'), pi.client_secret);
    const read = await get(fake, `/v1/payment_intents/${pi.id}`, { expand: ['latest_charge'] });
    assert.deepEqual([read.body.status, read.body.amount_received, read.body.next_action], ['succeeded', 1050, null]);
    assert.equal(read.body.latest_charge.payment_method_details.card.three_d_secure.result, 'authenticated');
    const again = await fetch(pi.next_action.redirect_to_url.url, {
      method: 'POST',
      body: 'outcome=fail',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(again.status, 303);
    assert.equal((await get(fake, `/v1/payment_intents/${pi.id}`)).body.status, 'succeeded');
    assert.equal((await fetch(pi.next_action.redirect_to_url.url)).status, 410);
  });

  test('Fail on the page: requires_payment_method with payment_intent_authentication_failure', async () => {
    const pi = (await createIntent(fake, '4000000000003220')).body;
    assert.equal((await answerChallenge(pi.next_action.redirect_to_url.url, 'Fail')).status, 303);
    const read = (await get(fake, `/v1/payment_intents/${pi.id}`)).body;
    assert.equal(read.status, 'requires_payment_method');
    assert.equal(read.last_payment_error.code, 'payment_intent_authentication_failure');
    assert.equal(read.latest_charge, null);
  });

  test('4000008400001629: the challenge completes, then the card is declined', async () => {
    const pi = (await createIntent(fake, '4000008400001629')).body;
    await answerChallenge(pi.next_action.redirect_to_url.url, 'Complete');
    const read = (await get(fake, `/v1/payment_intents/${pi.id}`)).body;
    assert.deepEqual(
      [read.status, read.last_payment_error.code, read.last_payment_error.decline_code],
      ['requires_payment_method', 'card_declined', 'generic_decline'],
    );
  });

  test('manual capture after a challenge: requires_capture', async () => {
    const pi = (await createIntent(fake, '4000000000003220', { capture_method: 'manual' })).body;
    await answerChallenge(pi.next_action.redirect_to_url.url, 'Complete');
    const read = (await get(fake, `/v1/payment_intents/${pi.id}`)).body;
    assert.deepEqual([read.status, read.amount_capturable], ['requires_capture', 1050]);
  });

  test('an abandoned challenge stays requires_action; expireChallenge (or challengeTtlMs) fails it', async () => {
    const pi = (await createIntent(fake, '4000000000003220')).body;
    fake.advanceTime(86_400_000);
    assert.equal((await get(fake, `/v1/payment_intents/${pi.id}`)).body.status, 'requires_action');
    fake.expireChallenge(pi.id);
    const read = (await get(fake, `/v1/payment_intents/${pi.id}`)).body;
    assert.deepEqual([read.status, read.last_payment_error.code], ['requires_payment_method', 'payment_intent_authentication_failure']);
    const short = await startFakeAcquirer({ challengeTtlMs: 50 });
    try {
      const other = (await createIntent(short, '4000000000003220')).body;
      await new Promise((resolve) => setTimeout(resolve, 80));
      assert.equal((await get(short, `/v1/payment_intents/${other.id}`)).body.status, 'requires_payment_method');
    } finally {
      await short.close();
    }
  });

  test('without return_url the next action is use_stripe_sdk (no redirect)', async () => {
    const pi = (await createIntent(fake, '4000000000003220', { return_url: undefined })).body;
    assert.deepEqual([pi.status, pi.next_action.type], ['requires_action', 'use_stripe_sdk']);
  });
});
