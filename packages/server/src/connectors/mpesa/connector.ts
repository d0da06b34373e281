import { Type } from 'typebox';
import { isIdOf } from '../../shared/ids.ts';
import { callbackTokenOf, verifyCallbackToken } from '../callback-token.ts';
import type {
  CallbackHeaders,
  CallbackQuery,
  Connector,
  ConnectorCallbacks,
  ProviderOutcome,
  ProviderStatusOutcome,
} from '../connector.ts';
import { ProviderHttpError } from '../provider-error.ts';
import { accessTokenOf, createTokenCache } from '../token-cache.ts';
import type { MpesaConfig } from './config.ts';
import {
  accountReferenceOf,
  B2C_CHECK_MS,
  darajaTimestamp,
  hintOfCallback,
  MpesaInputError,
  mpesaKeys,
  mpesaMsisdn,
  originatorIdOf,
  outcomeOfStk,
  PENDING_CHECK_MS,
  STILL_PROCESSING,
  stkPassword,
  wholeShillings,
} from './transformers.ts';

/** Daraja gives one app one token: the cache's only key. */
const TOKEN = 'oauth';

/** The callback URL's query parameters: the Purse id it is about, and that id's token. */
export const MPESA_CALLBACK_ID_PARAM = 'id';
export const MPESA_CALLBACK_TOKEN_PARAM = 't';

/** What Daraja sends to CallBackURL (STK) and ResultURL / QueueTimeOutURL (B2C), unsigned. */
export const MpesaCallbackSchema = Type.Object(
  {
    Body: Type.Optional(
      Type.Object(
        {
          stkCallback: Type.Object(
            {
              MerchantRequestID: Type.Optional(Type.String({ maxLength: 64 })),
              CheckoutRequestID: Type.String({ maxLength: 64 }),
              ResultCode: Type.Union([Type.Number(), Type.String({ maxLength: 16 })]),
              ResultDesc: Type.Optional(Type.String({ maxLength: 256 })),
              CallbackMetadata: Type.Optional(Type.Unknown()),
            },
            { additionalProperties: true },
          ),
        },
        { additionalProperties: true },
      ),
    ),
    Result: Type.Optional(
      Type.Object(
        {
          ResultType: Type.Optional(Type.Number()),
          ResultCode: Type.Union([Type.Number(), Type.String({ maxLength: 16 })]),
          ResultDesc: Type.Optional(Type.String({ maxLength: 256 })),
          OriginatorConversationID: Type.String({ maxLength: 64 }),
          ConversationID: Type.Optional(Type.String({ maxLength: 64 })),
          TransactionID: Type.Optional(Type.String({ maxLength: 64 })),
          ResultParameters: Type.Optional(Type.Unknown()),
          ReferenceData: Type.Optional(Type.Unknown()),
        },
        { additionalProperties: true },
      ),
    ),
  },
  {
    additionalProperties: true,
    description:
      "M-Pesa Daraja's STK Push callback ({Body:{stkCallback}}) or B2C result ({Result}), unsigned: authenticated by the URL's id and token.",
  },
);

/** Daraja's answer to an API call: its status, its JSON object (null when it sent none) and the text as received. */
interface Answer {
  status: number;
  json: Record<string, unknown> | null;
  text: string;
}

export function createMpesaConnector(deps: { config: MpesaConfig; hashKey: Buffer; nowMs?: () => number }): Connector {
  const { config } = deps;
  const nowMs = deps.nowMs ?? Date.now;
  const keys = mpesaKeys(deps.hashKey);
  /**
   * What an error must never repeat if Daraja echoes it back: the credentials, and what is made of
   * them or sent with them (the STK Password, the callback URLs' tokens) added per call.
   */
  const secrets = [config.consumerKey, config.consumerSecret, config.passkey, config.securityCredential];

  const tokens = createTokenCache<typeof TOKEN>({
    issue: async (_key, signal) => {
      const basic = Buffer.from(`${config.consumerKey}:${config.consumerSecret}`).toString('base64');
      const res = await fetch(`${config.baseUrl}/oauth/v1/generate?grant_type=client_credentials`, {
        method: 'GET',
        headers: { authorization: `Basic ${basic}` },
        signal,
      });
      // Daraja's tokens last 3599 s when its answer does not say.
      return accessTokenOf(res, { provider: 'mpesa', operation: 'token', fallbackLifetimeS: 3599, secrets });
    },
  });

  /**
   * One API call with the Bearer token. A 401 (the token expired early) drops the token and sends
   * once more: Daraja refused the first request before acting on it, so this is not a resend.
   */
  async function call(path: string, body: unknown, signal: AbortSignal): Promise<Answer> {
    const res = await tokens.send(TOKEN, signal, (bearer) =>
      fetch(`${config.baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal,
      }),
    );
    const text = await res.text();
    let json: Record<string, unknown> | null = null;
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed !== null && typeof parsed === 'object') json = parsed as Record<string, unknown>;
    } catch {
      json = null;
    }
    return { status: res.status, json, text };
  }

  const callbackUrl = (purseId: string) =>
    `${config.publicUrl}/provider-callbacks/mpesa?${MPESA_CALLBACK_ID_PARAM}=${encodeURIComponent(purseId)}` +
    `&${MPESA_CALLBACK_TOKEN_PARAM}=${callbackTokenOf(keys.callback, purseId)}`;

  /** `sent`: the secrets of this one request (its Password, its callback token), masked like the credentials. */
  const failure = (what: string, answer: Answer, sent: readonly string[]) =>
    new ProviderHttpError({ provider: 'mpesa', operation: what, status: answer.status, body: answer.text, secrets: [...secrets, ...sent] });

  /**
   * Daraja refused the request as built (a 4xx with its errorCode): nothing was created, so the
   * object fails. A 5xx or no answer leaves the outcome unknown: thrown, and the object stays
   * pending (an STK push is never sent twice).
   */
  function refusedOrUnknown(what: string, answer: Answer, sent: readonly string[]): ProviderOutcome {
    if (answer.status >= 400 && answer.status < 500) return { status: 'failed', providerReference: null, failureCode: 'provider_error' };
    throw failure(what, answer, sent);
  }

  async function stkPush(purseId: string, kind: string, amountMinor: bigint, currency: string, phone: string, signal: AbortSignal) {
    let amount: number;
    let msisdn: string;
    try {
      amount = wholeShillings(amountMinor, currency);
      msisdn = mpesaMsisdn(phone);
    } catch (error) {
      if (error instanceof MpesaInputError) {
        const failureCode = /phone number/.test(error.message) ? 'payer_not_found' : 'provider_error';
        return { status: 'failed', providerReference: null, failureCode } as const;
      }
      throw error;
    }
    const timestamp = darajaTimestamp(nowMs());
    const password = stkPassword(config.shortcode, config.passkey, timestamp);
    const answer = await call(
      '/mpesa/stkpush/v1/processrequest',
      {
        BusinessShortCode: config.shortcode,
        Password: password,
        Timestamp: timestamp,
        TransactionType: 'CustomerPayBillOnline',
        Amount: amount,
        PartyA: msisdn,
        PartyB: config.shortcode,
        PhoneNumber: msisdn,
        CallBackURL: callbackUrl(purseId),
        AccountReference: accountReferenceOf(purseId),
        TransactionDesc: kind === 'topup' ? 'Top-up' : 'Payment',
      },
      signal,
    );
    const checkout = answer.json?.CheckoutRequestID;
    if (answer.status === 200 && String(answer.json?.ResponseCode) === '0' && typeof checkout === 'string') {
      return { status: 'pending', providerReference: checkout, checkAfterMs: PENDING_CHECK_MS } as const;
    }
    return refusedOrUnknown('stkpush', answer, [password, callbackTokenOf(keys.callback, purseId)]);
  }

  async function stkQuery(checkoutRequestId: string, signal: AbortSignal): Promise<ProviderStatusOutcome> {
    const timestamp = darajaTimestamp(nowMs());
    const password = stkPassword(config.shortcode, config.passkey, timestamp);
    const answer = await call(
      '/mpesa/stkpushquery/v1/query',
      {
        BusinessShortCode: config.shortcode,
        Password: password,
        Timestamp: timestamp,
        CheckoutRequestID: checkoutRequestId,
      },
      signal,
    );
    // "The transaction is being processed": still open at Safaricom.
    if (answer.json?.errorCode === STILL_PROCESSING) {
      return { status: 'pending', providerReference: checkoutRequestId, checkAfterMs: PENDING_CHECK_MS };
    }
    if (answer.status === 200 && String(answer.json?.ResponseCode) === '0') {
      return outcomeOfStk(answer.json?.ResultCode as string | undefined, checkoutRequestId);
    }
    throw failure('stkpushquery', answer, [password]);
  }

  const callbacks: ConnectorCallbacks = {
    body: MpesaCallbackSchema,
    headers: {},
    query: {
      [MPESA_CALLBACK_ID_PARAM]: Type.Optional(
        Type.String({ maxLength: 64, description: 'M-Pesa: the Purse id whose callback URL this is (pay_…, top_…, re_…, po_…).' }),
      ),
      [MPESA_CALLBACK_TOKEN_PARAM]: Type.Optional(
        Type.String({
          maxLength: 64,
          description: 'MTN and M-Pesa: the per-object token Purse put in the callback URL it gave the provider.',
        }),
      ),
    },
    description:
      'M-Pesa Daraja does not sign callbacks: each push and B2C request gets its own callback URL naming the Purse id ' +
      `(${MPESA_CALLBACK_ID_PARAM}) and an HMAC token of it (${MPESA_CALLBACK_TOKEN_PARAM}) under a key derived from the service key`,
    verify: (_headers: CallbackHeaders, _rawBody: string, query?: CallbackQuery) => {
      const id = query?.[MPESA_CALLBACK_ID_PARAM];
      if (typeof id !== 'string' || id === '') return false;
      return verifyCallbackToken(keys.callback, id, query?.[MPESA_CALLBACK_TOKEN_PARAM]);
    },
    parse: (body, query) => {
      const id = query?.[MPESA_CALLBACK_ID_PARAM];
      return typeof id === 'string' ? hintOfCallback(body, id, keys.originator) : null;
    },
  };

  return {
    name: 'mpesa',
    serves: [{ means: 'mobile_money', network: 'mpesa', livemode: true }],
    callbacks,

    async initiate(request, signal) {
      signal.throwIfAborted();
      if (request.method.type !== 'mobile_money') throw new Error('mpesa: only mobile money');
      return stkPush(request.idempotencyKey, request.kind, request.amountMinor, request.currency, request.method.phoneNumber, signal);
    },

    async sendOut(request, signal) {
      signal.throwIfAborted();
      if (request.destination.type !== 'mobile_money') throw new Error('mpesa: only mobile money destinations');
      let amount: number;
      let msisdn: string;
      try {
        amount = wholeShillings(request.amountMinor, request.currency);
        msisdn = mpesaMsisdn(request.destination.phoneNumber);
      } catch (error) {
        if (error instanceof MpesaInputError) {
          const failureCode = /phone number/.test(error.message) ? 'payee_not_found' : 'provider_error';
          return { status: 'failed', providerReference: null, failureCode };
        }
        throw error;
      }
      const originator = originatorIdOf(keys.originator, request.idempotencyKey);
      const url = callbackUrl(request.idempotencyKey);
      const answer = await call(
        '/mpesa/b2c/v3/paymentrequest',
        {
          OriginatorConversationID: originator,
          InitiatorName: config.initiatorName,
          SecurityCredential: config.securityCredential,
          CommandID: 'BusinessPayment',
          Amount: amount,
          PartyA: config.b2cShortcode,
          PartyB: msisdn,
          Remarks: request.kind === 'refund' ? 'Refund' : 'Payout',
          QueueTimeOutURL: url,
          ResultURL: url,
          Occasion: accountReferenceOf(request.idempotencyKey),
        },
        signal,
      );
      if (answer.status === 200 && String(answer.json?.ResponseCode) === '0') {
        const conversation = typeof answer.json?.ConversationID === 'string' ? answer.json.ConversationID : originator;
        return { status: 'pending', providerReference: conversation, checkAfterMs: B2C_CHECK_MS };
      }
      // A repeated OriginatorConversationID: Daraja already took this request (its answer was
      // lost); the Result of that one comes to the same URL.
      if (answer.status === 409) return { status: 'pending', providerReference: originator, checkAfterMs: B2C_CHECK_MS };
      return refusedOrUnknown('b2c', answer, [callbackTokenOf(keys.callback, request.idempotencyKey)]);
    },

    async getStatus(request, signal) {
      signal.throwIfAborted();
      if (isIdOf('refund', request.idempotencyKey) || isIdOf('payout', request.idempotencyKey)) {
        // B2C whose answer never came (lost, or a 5xx): "not found" sends it again, which is safe
        // because the OriginatorConversationID is derived from the id and Daraja refuses a repeat
        // of one it took (sendOut reads that 409 as accepted). Money is never paid twice.
        if (request.providerReference === null) return { status: 'not_found' };
        // B2C has no synchronous status call: its Result callback settles it.
        return { status: 'pending', providerReference: request.providerReference, checkAfterMs: B2C_CHECK_MS, known: false };
      }
      // A push whose answer was lost has no CheckoutRequestID to ask about, and must never be
      // sent again (the customer would be prompted twice): it stays pending until its callback
      // names it or it expires.
      if (request.providerReference === null) {
        return { status: 'pending', providerReference: null, checkAfterMs: PENDING_CHECK_MS, known: false };
      }
      return stkQuery(request.providerReference, signal);
    },
  };
}
