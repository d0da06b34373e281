// A faithful fake of Safaricom's M-Pesa Daraja API (OAuth, STK Push, STK query, B2C), over real
// HTTP on 127.0.0.1, written from Daraja's public documentation: it checks what Daraja checks
// (Basic on the token, Bearer on the API, the STK Password = base64(shortcode + passkey +
// timestamp), integer amounts, 2547… numbers, AccountReference ≤ 12 and TransactionDesc ≤ 13
// characters), answers as Daraja does (expires_in a string; the query's "being processed" error
// 500.001.1001 while a push is open and ResultCode a string when final; callbacks with ResultCode
// a number, unsigned, by POST; duplicate OriginatorConversationID refused), settles by the phone
// number's suffix after a delay, and can be told to misbehave.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, send, serveFake } from './http.ts';

/** The last three digits of the phone number decide (as the sandbox's test numbers). */
export const MPESA_SUFFIXES = {
  success: '000',
  insufficientFunds: '001', // ResultCode 1
  cancelled: '002', // ResultCode 1032
  unreachable: '003', // ResultCode 1037
  payeeNotRegistered: '004', // B2C ResultCode 2040
  neverSettles: '005',
} as const;

interface Push {
  checkoutRequestId: string;
  merchantRequestId: string;
  body: Record<string, unknown>;
  createdAt: number;
  receipt: string;
}

interface B2c {
  originatorConversationId: string;
  conversationId: string;
  body: Record<string, unknown>;
  createdAt: number;
  transactionId: string;
}

export interface FakeMpesa {
  url: string;
  consumerKey: string;
  consumerSecret: string;
  shortcode: string;
  passkey: string;
  b2cShortcode: string;
  initiatorName: string;
  securityCredential: string;
  settleDelayMs: number;
  /** What the token endpoint says about a token's life (seconds; sent as a string). */
  tokenExpiresInS: number;
  tokensIssued: number;
  /** Revokes every issued token (as an expiry would): the next API call with one is 401. */
  expireTokens(): void;
  /** STK pushes received per AccountReference, whatever the answer: a customer prompted twice shows here. */
  pushesFor(accountReference: string): number;
  /** B2C requests received per OriginatorConversationID, accepted or refused. */
  b2cRequestsFor(originatorConversationId: string): number;
  /** B2C payments actually made (a duplicate refused is not one). */
  b2cPaid: B2c[];
  pushes: Push[];
  faults: {
    /** The next n STK pushes / B2C requests are acted on, then the connection is destroyed without an answer. */
    loseAnswers: number;
    /** The next n API requests (not tokens) answer 500 without acting. */
    errors500: number;
    /** 'once' (Daraja), 'never' or 'twice'. */
    callbacks: 'once' | 'never' | 'twice';
    /** The callback claims the opposite of what the query says (success ↔ 1032). */
    contradictingCallbacks: boolean;
    /** Every API request waits this long before answering. */
    slowMs: number;
    /** A push or B2C request is acted on at once, its answer held this long (a Purse that dies meanwhile never hears it). */
    holdAnswersMs: number;
  };
  callbacksSent: { url: string; status: number | string }[];
  close(): Promise<void>;
}

const requestId = () => `${randomBytes(3).toString('hex')}-${Math.floor(Math.random() * 1e7)}-1`;
const badRequest = (res: ServerResponse, message: string) =>
  send(res, 400, { requestId: requestId(), errorCode: '400.002.02', errorMessage: `Bad Request - Invalid ${message}` });

/** Nairobi time "YYYYMMDDHHmmss", as Daraja checks a Timestamp (within an hour of now). */
function timestampOk(timestamp: unknown): boolean {
  if (typeof timestamp !== 'string' || !/^\d{14}$/.test(timestamp)) return false;
  const iso = `${timestamp.slice(0, 4)}-${timestamp.slice(4, 6)}-${timestamp.slice(6, 8)}T${timestamp.slice(8, 10)}:${timestamp.slice(10, 12)}:${timestamp.slice(12, 14)}+03:00`;
  const at = Date.parse(iso);
  return Number.isFinite(at) && Math.abs(at - Date.now()) < 3_600_000;
}

export async function startFakeMpesa(options: { settleDelayMs?: number; tokenExpiresInS?: number } = {}): Promise<FakeMpesa> {
  const tokens = new Map<string, number>();
  const pushes = new Map<string, Push>();
  const b2cs = new Map<string, B2c>();
  const pushCounts = new Map<string, number>();
  const b2cCounts = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();

  const fake: FakeMpesa = {
    url: '',
    consumerKey: randomBytes(12).toString('hex'),
    consumerSecret: randomBytes(12).toString('hex'),
    shortcode: '174379',
    passkey: randomBytes(24).toString('hex'),
    b2cShortcode: '600980',
    initiatorName: 'purse_api',
    securityCredential: randomBytes(32).toString('base64'),
    settleDelayMs: options.settleDelayMs ?? 50,
    tokenExpiresInS: options.tokenExpiresInS ?? 3599,
    tokensIssued: 0,
    expireTokens: () => tokens.clear(),
    pushesFor: (accountReference) => pushCounts.get(accountReference) ?? 0,
    b2cRequestsFor: (id) => b2cCounts.get(id) ?? 0,
    b2cPaid: [],
    pushes: [],
    faults: { loseAnswers: 0, errors500: 0, callbacks: 'once', contradictingCallbacks: false, slowMs: 0, holdAnswersMs: 0 },
    callbacksSent: [],
    close: async () => {},
  };

  const suffixOf = (phone: unknown) => String(phone).slice(-3);

  /** A push's result code now: null while open. */
  function stkResult(p: Push): number | null {
    const suffix = suffixOf(p.body.PhoneNumber);
    if (Date.now() < p.createdAt + fake.settleDelayMs || suffix === MPESA_SUFFIXES.neverSettles) return null;
    if (suffix === MPESA_SUFFIXES.insufficientFunds) return 1;
    if (suffix === MPESA_SUFFIXES.cancelled) return 1032;
    if (suffix === MPESA_SUFFIXES.unreachable) return 1037;
    return 0;
  }

  const DESCRIPTIONS: Record<number, string> = {
    0: 'The service request is processed successfully.',
    1: 'The balance is insufficient for the transaction.',
    1032: 'Request cancelled by user',
    1037: 'DS timeout user cannot be reached',
    2040: 'Receiver is not a registered M-PESA customer',
  };

  async function post(url: string, body: unknown): Promise<void> {
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await res.body?.cancel();
      fake.callbacksSent.push({ url, status: res.status });
    } catch (error) {
      fake.callbacksSent.push({ url, status: String(error) });
    }
  }

  function later(fn: () => Promise<void>): void {
    if (fake.faults.callbacks === 'never') return;
    const times = fake.faults.callbacks === 'twice' ? 2 : 1;
    const timer = setTimeout(async () => {
      timers.delete(timer);
      for (let i = 0; i < times; i++) await fn();
    }, fake.settleDelayMs + 5);
    timers.add(timer);
  }

  function stkCallback(p: Push): void {
    if (suffixOf(p.body.PhoneNumber) === MPESA_SUFFIXES.neverSettles) return;
    later(async () => {
      let code = stkResult(p) ?? 0;
      if (fake.faults.contradictingCallbacks) code = code === 0 ? 1032 : 0;
      const metadata =
        code === 0
          ? {
              CallbackMetadata: {
                Item: [
                  { Name: 'Amount', Value: p.body.Amount },
                  { Name: 'MpesaReceiptNumber', Value: p.receipt },
                  { Name: 'TransactionDate', Value: Number(p.body.Timestamp) },
                  { Name: 'PhoneNumber', Value: Number(p.body.PhoneNumber) },
                ],
              },
            }
          : {};
      await post(String(p.body.CallBackURL), {
        Body: {
          stkCallback: {
            MerchantRequestID: p.merchantRequestId,
            CheckoutRequestID: p.checkoutRequestId,
            ResultCode: code,
            ResultDesc: DESCRIPTIONS[code] ?? 'Failed',
            ...metadata,
          },
        },
      });
    });
  }

  function b2cResult(b: B2c): void {
    if (suffixOf(b.body.PartyB) === MPESA_SUFFIXES.neverSettles) return;
    later(async () => {
      let code = suffixOf(b.body.PartyB) === MPESA_SUFFIXES.payeeNotRegistered ? 2040 : 0;
      if (fake.faults.contradictingCallbacks) code = code === 0 ? 2040 : 0;
      await post(String(b.body.ResultURL), {
        Result: {
          ResultType: 0,
          ResultCode: code,
          ResultDesc: DESCRIPTIONS[code] ?? 'Failed',
          OriginatorConversationID: b.originatorConversationId,
          ConversationID: b.conversationId,
          TransactionID: b.transactionId,
          ResultParameters: {
            ResultParameter: [
              { Key: 'TransactionAmount', Value: b.body.Amount },
              { Key: 'TransactionReceipt', Value: b.transactionId },
            ],
          },
          ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: b.body.QueueTimeOutURL } },
        },
      });
    });
  }

  const password = (timestamp: string) => Buffer.from(`${fake.shortcode}${fake.passkey}${timestamp}`).toString('base64');
  const receipt = () => `S${randomBytes(5).toString('hex').toUpperCase().slice(0, 9)}`;

  const hold = () => new Promise((resolve) => setTimeout(resolve, fake.faults.holdAnswersMs));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const raw = await readBody(req);
    if (url.pathname === '/oauth/v1/generate' && req.method === 'GET') {
      const basic = `Basic ${Buffer.from(`${fake.consumerKey}:${fake.consumerSecret}`).toString('base64')}`;
      if (url.searchParams.get('grant_type') !== 'client_credentials') return badRequest(res, 'grant type');
      if (req.headers.authorization !== basic) {
        return send(res, 400, { requestId: requestId(), errorCode: '400.008.01', errorMessage: 'Invalid Authentication passed' });
      }
      const token = randomBytes(21).toString('base64url');
      tokens.set(token, Date.now() + fake.tokenExpiresInS * 1000);
      fake.tokensIssued++;
      return send(res, 200, { access_token: token, expires_in: String(fake.tokenExpiresInS) });
    }
    const routes = ['/mpesa/stkpush/v1/processrequest', '/mpesa/stkpushquery/v1/query', '/mpesa/b2c/v3/paymentrequest'];
    if (!routes.includes(url.pathname) || req.method !== 'POST') {
      return send(res, 404, { requestId: requestId(), errorCode: '404.001.01', errorMessage: 'Resource not found' });
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const expiresAt = bearer ? tokens.get(bearer) : undefined;
    if (expiresAt === undefined || expiresAt <= Date.now()) {
      return send(res, 401, { requestId: requestId(), errorCode: '404.001.04', errorMessage: 'Invalid Access Token' });
    }
    if (fake.faults.slowMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.faults.slowMs));
    if (fake.faults.errors500 > 0) {
      fake.faults.errors500--;
      return send(res, 500, { requestId: requestId(), errorCode: '500.003.02', errorMessage: 'System is busy' });
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
      if (body === null || typeof body !== 'object') throw new Error('not an object');
    } catch {
      return badRequest(res, 'JSON');
    }

    if (url.pathname === '/mpesa/stkpushquery/v1/query') {
      if (body.BusinessShortCode !== fake.shortcode) return badRequest(res, 'BusinessShortCode');
      if (!timestampOk(body.Timestamp) || body.Password !== password(String(body.Timestamp))) return badRequest(res, 'Password');
      const p = pushes.get(String(body.CheckoutRequestID));
      if (!p) return badRequest(res, 'CheckoutRequestID');
      const code = stkResult(p);
      if (code === null) {
        return send(res, 500, { requestId: requestId(), errorCode: '500.001.1001', errorMessage: 'The transaction is being processed' });
      }
      return send(res, 200, {
        ResponseCode: '0',
        ResponseDescription: 'The service request has been accepted successsfully',
        MerchantRequestID: p.merchantRequestId,
        CheckoutRequestID: p.checkoutRequestId,
        ResultCode: String(code),
        ResultDesc: DESCRIPTIONS[code] ?? 'Failed',
      });
    }

    if (url.pathname === '/mpesa/stkpush/v1/processrequest') {
      const account = String(body.AccountReference ?? '');
      pushCounts.set(account, (pushCounts.get(account) ?? 0) + 1);
      if (body.BusinessShortCode !== fake.shortcode || body.PartyB !== fake.shortcode) return badRequest(res, 'BusinessShortCode');
      if (!timestampOk(body.Timestamp) || body.Password !== password(String(body.Timestamp))) return badRequest(res, 'Password');
      if (body.TransactionType !== 'CustomerPayBillOnline') return badRequest(res, 'TransactionType');
      if (!Number.isInteger(body.Amount) || (body.Amount as number) < 1) return badRequest(res, 'Amount');
      for (const field of ['PartyA', 'PhoneNumber']) if (!/^254[17]\d{8}$/.test(String(body[field]))) return badRequest(res, field);
      if (typeof body.CallBackURL !== 'string' || !/^https?:\/\//.test(body.CallBackURL)) return badRequest(res, 'CallBackURL');
      if (account === '' || account.length > 12) return badRequest(res, 'AccountReference');
      if (typeof body.TransactionDesc !== 'string' || body.TransactionDesc.length > 13) return badRequest(res, 'TransactionDesc');
      const p: Push = {
        checkoutRequestId: `ws_CO_${Date.now()}${randomBytes(4).toString('hex')}`,
        merchantRequestId: requestId(),
        body,
        createdAt: Date.now(),
        receipt: receipt(),
      };
      pushes.set(p.checkoutRequestId, p);
      fake.pushes.push(p);
      stkCallback(p);
      await hold();
      if (fake.faults.loseAnswers > 0) {
        fake.faults.loseAnswers--;
        req.socket.destroy();
        return;
      }
      return send(res, 200, {
        MerchantRequestID: p.merchantRequestId,
        CheckoutRequestID: p.checkoutRequestId,
        ResponseCode: '0',
        ResponseDescription: 'Success. Request accepted for processing',
        CustomerMessage: 'Success. Request accepted for processing',
      });
    }

    // B2C
    const originator = String(body.OriginatorConversationID ?? '');
    b2cCounts.set(originator, (b2cCounts.get(originator) ?? 0) + 1);
    if (originator === '') return badRequest(res, 'OriginatorConversationID');
    if (body.InitiatorName !== fake.initiatorName || body.SecurityCredential !== fake.securityCredential) {
      return send(res, 400, { requestId: requestId(), errorCode: '400.002.05', errorMessage: 'Invalid Initiator Information' });
    }
    if (body.PartyA !== fake.b2cShortcode) return badRequest(res, 'PartyA');
    if (!/^254[17]\d{8}$/.test(String(body.PartyB))) return badRequest(res, 'PartyB');
    if (!Number.isInteger(body.Amount) || (body.Amount as number) < 10) return badRequest(res, 'Amount');
    if (body.CommandID !== 'BusinessPayment' && body.CommandID !== 'SalaryPayment' && body.CommandID !== 'PromotionPayment') {
      return badRequest(res, 'CommandID');
    }
    for (const field of ['ResultURL', 'QueueTimeOutURL']) if (!/^https?:\/\//.test(String(body[field]))) return badRequest(res, field);
    if (b2cs.has(originator)) {
      return send(res, 409, { requestId: requestId(), errorCode: '409.001.01', errorMessage: 'Duplicate OriginatorConversationID' });
    }
    const b: B2c = {
      originatorConversationId: originator,
      conversationId: `AG_${Date.now()}_${randomBytes(6).toString('hex')}`,
      body,
      createdAt: Date.now(),
      transactionId: receipt(),
    };
    b2cs.set(originator, b);
    fake.b2cPaid.push(b);
    b2cResult(b);
    await hold();
    if (fake.faults.loseAnswers > 0) {
      fake.faults.loseAnswers--;
      req.socket.destroy();
      return;
    }
    return send(res, 200, {
      ConversationID: b.conversationId,
      OriginatorConversationID: originator,
      ResponseCode: '0',
      ResponseDescription: 'Accept the service request successfully.',
    });
  }

  const served = await serveFake(handle, { errorCode: '500.003.1001', errorMessage: 'Internal Server Error' }, timers);
  fake.url = served.url;
  fake.close = served.close;
  return fake;
}

/** The PURSE_MPESA_* environment that points Purse at this fake. */
export function fakeMpesaEnv(fake: FakeMpesa, publicUrl: string): Record<string, string> {
  return {
    PURSE_MPESA_BASE_URL: fake.url,
    PURSE_MPESA_CONSUMER_KEY: fake.consumerKey,
    PURSE_MPESA_CONSUMER_SECRET: fake.consumerSecret,
    PURSE_MPESA_SHORTCODE: fake.shortcode,
    PURSE_MPESA_PASSKEY: fake.passkey,
    PURSE_MPESA_B2C_SHORTCODE: fake.b2cShortcode,
    PURSE_MPESA_INITIATOR_NAME: fake.initiatorName,
    PURSE_MPESA_SECURITY_CREDENTIAL: fake.securityCredential,
    PURSE_PUBLIC_URL: publicUrl,
  };
}
