import { Type } from 'typebox';
import { isIdOf } from '../../shared/ids.ts';
import { formatAmount } from '../../shared/money.ts';
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
import type { MtnConfig, MtnProductCredentials } from './config.ts';
import { hintOf, type MtnStatusBody, msisdnOf, mtnKeys, outcomeOfStatus, PENDING_CHECK_MS, referenceIdOf } from './transformers.ts';

type Product = 'collection' | 'disbursement';

/** Where each product creates a request and reads its status. */
const RESOURCE: Record<Product, string> = { collection: 'requesttopay', disbursement: 'transfer' };

/** The query parameter of the callback URL that carries the per-object token. */
export const MTN_CALLBACK_TOKEN_PARAM = 't';

/** What MTN sends to X-Callback-Url: the same body as its status call. */
export const MtnCallbackSchema = Type.Object(
  {
    externalId: Type.String({ maxLength: 64, description: 'The Purse id given as externalId (pay_…, top_…, re_…, po_…).' }),
    status: Type.Optional(Type.String({ maxLength: 32, description: 'PENDING, SUCCESSFUL or FAILED.' })),
    financialTransactionId: Type.Optional(Type.Union([Type.String({ maxLength: 128 }), Type.Number()])),
    amount: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Number()])),
    currency: Type.Optional(Type.String({ maxLength: 3 })),
    reason: Type.Optional(Type.Unknown()),
  },
  {
    additionalProperties: true,
    description: "MTN MoMo's callback (requesttopay or transfer), unsigned: authenticated by the URL's token.",
  },
);

export function createMtnConnector(deps: { config: MtnConfig; hashKey: Buffer }): Connector {
  const { config } = deps;
  const keys = mtnKeys(deps.hashKey);

  const credentials = (product: Product): MtnProductCredentials => config[product];
  /** What an error must never repeat if MTN echoes it back: every credential of both products. */
  const secrets = [config.collection, config.disbursement].flatMap((c) => [c.subscriptionKey, c.apiUser, c.apiKey]);
  const failure = (operation: string, res: Response, extraSecrets: readonly string[] = []) =>
    ProviderHttpError.of(res, { provider: 'mtn', operation, secrets: [...secrets, ...extraSecrets] });

  const tokens = createTokenCache<Product>({
    issue: async (product, signal) => {
      const creds = credentials(product);
      const basic = Buffer.from(`${creds.apiUser}:${creds.apiKey}`).toString('base64');
      const res = await fetch(`${config.baseUrl}/${product}/token/`, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'ocp-apim-subscription-key': creds.subscriptionKey },
        signal,
      });
      // MTN's tokens last an hour when its answer does not say.
      return accessTokenOf(res, { provider: 'mtn', operation: `${product} token`, fallbackLifetimeS: 3600, secrets });
    },
  });

  /** One API call with the product's Bearer token (a 401 is retried once with a new token: createTokenCache). */
  function call(
    product: Product,
    method: 'GET' | 'POST',
    path: string,
    signal: AbortSignal,
    extra: { headers?: Record<string, string>; body?: unknown } = {},
  ): Promise<Response> {
    return tokens.send(product, signal, (bearer) =>
      fetch(`${config.baseUrl}/${product}/v1_0/${path}`, {
        method,
        headers: {
          authorization: `Bearer ${bearer}`,
          'x-target-environment': config.targetEnvironment,
          'ocp-apim-subscription-key': credentials(product).subscriptionKey,
          ...(extra.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...extra.headers,
        },
        ...(extra.body !== undefined ? { body: JSON.stringify(extra.body) } : {}),
        signal,
      }),
    );
  }

  const productOf = (purseId: string): Product => (isIdOf('refund', purseId) || isIdOf('payout', purseId) ? 'disbursement' : 'collection');

  async function status(product: Product, purseId: string, signal: AbortSignal): Promise<ProviderStatusOutcome> {
    const referenceId = referenceIdOf(keys.reference, purseId);
    const res = await call(product, 'GET', `${RESOURCE[product]}/${referenceId}`, signal);
    if (res.status === 404) {
      await res.body?.cancel();
      return { status: 'not_found' };
    }
    if (res.status !== 200) throw await failure(`${product} status`, res);
    return outcomeOfStatus((await res.json()) as MtnStatusBody, referenceId);
  }

  /** Creates the request under the Purse id's reference; a 409 means MTN already has it: its status answers. */
  async function create(product: Product, purseId: string, body: Record<string, unknown>, signal: AbortSignal): Promise<ProviderOutcome> {
    const referenceId = referenceIdOf(keys.reference, purseId);
    const callbackToken = callbackTokenOf(keys.callback, purseId);
    const callbackUrl = `${config.publicUrl}/provider-callbacks/mtn?${MTN_CALLBACK_TOKEN_PARAM}=${callbackToken}`;
    const res = await call(product, 'POST', RESOURCE[product], signal, {
      headers: { 'x-reference-id': referenceId, 'x-callback-url': callbackUrl },
      body,
    });
    if (res.status === 202) {
      await res.body?.cancel();
      return { status: 'pending', providerReference: referenceId, checkAfterMs: PENDING_CHECK_MS };
    }
    // Read before the status call below: the error, if there is one, reports this answer.
    const error = await failure(RESOURCE[product], res, [callbackToken]);
    if (res.status === 409) {
      const known = await status(product, purseId, signal);
      if (known.status !== 'not_found') return known;
    }
    throw error;
  }

  const callbacks: ConnectorCallbacks = {
    body: MtnCallbackSchema,
    headers: {},
    query: {
      [MTN_CALLBACK_TOKEN_PARAM]: Type.Optional(
        Type.String({ maxLength: 64, description: 'MTN: the per-object token Purse put in the X-Callback-Url it gave MTN.' }),
      ),
    },
    description:
      'MTN MoMo does not sign callbacks: Purse gives MTN a callback URL carrying a token (HMAC of the object id under a key ' +
      `derived from the service key) in the ${MTN_CALLBACK_TOKEN_PARAM} query parameter, checked against the body's externalId`,
    verify: (_headers: CallbackHeaders, rawBody: string, query?: CallbackQuery) => {
      let externalId: unknown;
      try {
        externalId = (JSON.parse(rawBody) as { externalId?: unknown } | null)?.externalId;
      } catch {
        return false;
      }
      if (typeof externalId !== 'string' || externalId === '') return false;
      return verifyCallbackToken(keys.callback, externalId, query?.[MTN_CALLBACK_TOKEN_PARAM]);
    },
    parse: (body) => hintOf(body as MtnStatusBody),
  };

  return {
    name: 'mtn',
    serves: [{ means: 'mobile_money', network: 'mtn', livemode: true }],
    callbacks,

    async initiate(request, signal) {
      signal.throwIfAborted();
      if (request.method.type !== 'mobile_money') throw new Error('mtn: only mobile money');
      return create(
        'collection',
        request.idempotencyKey,
        {
          amount: formatAmount(request.amountMinor, request.currency),
          currency: request.currency,
          externalId: request.idempotencyKey,
          payer: { partyIdType: 'MSISDN', partyId: msisdnOf(request.method.phoneNumber) },
          payerMessage: request.kind === 'topup' ? 'Top-up' : 'Payment',
          payeeNote: request.idempotencyKey,
        },
        signal,
      );
    },

    async sendOut(request, signal) {
      signal.throwIfAborted();
      // The registry never routes cards to MTN: a card refund is not MTN's to send.
      if (request.destination.type !== 'mobile_money') throw new Error('mtn: only mobile money destinations');
      return create(
        'disbursement',
        request.idempotencyKey,
        {
          amount: formatAmount(request.amountMinor, request.currency),
          currency: request.currency,
          externalId: request.idempotencyKey,
          payee: { partyIdType: 'MSISDN', partyId: msisdnOf(request.destination.phoneNumber) },
          payerMessage: request.kind === 'refund' ? 'Refund' : 'Payout',
          payeeNote: request.idempotencyKey,
        },
        signal,
      );
    },

    async getStatus(request, signal) {
      signal.throwIfAborted();
      return status(productOf(request.idempotencyKey), request.idempotencyKey, signal);
    },
  };
}
