// The path of a request through the fake, in Stripe's order: route, API key (401 before
// anything else), then for a POST with an Idempotency-Key the idempotency layer (replay, 400
// idempotency_error, 409 idempotency_key_in_use), then parameter validation (a refusal saves
// nothing), then the endpoint itself, with whatever faults the test armed for it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../http.ts';
import { CHALLENGE_PATH, handleChallenge } from './challenge.ts';
import { type Answer, errorAnswer, internalError, ParamError } from './errors.ts';
import type { Endpoint, FaultKind, FaultPlan } from './faults.ts';
import { canonicalForm, FormError, type FormObject, parseForm } from './form.ts';
import type { Call, Handler } from './handlers.ts';
import type { IdempotencyStore } from './idempotency.ts';
import { sweep } from './intents.ts';
import { newId } from './objects.ts';
import { checkShape } from './params.ts';
import { type AcquirerState, type Cause, NO_CAUSE } from './state.ts';
import { API_VERSION } from './webhooks.ts';

export interface LoggedRequest {
  endpoint: Endpoint | null;
  method: string;
  path: string;
  idempotencyKey: string | null;
  /** The status answered, or 'lost' when the connection was destroyed instead. */
  status: number | 'lost';
  replayed: boolean;
  faults: FaultKind[];
}

export interface RouterDeps {
  state: AcquirerState;
  handlers: Handler[];
  idempotency: IdempotencyStore;
  faults: FaultPlan;
  /** The account a secret key belongs to. */
  accounts: ReadonlyMap<string, string>;
  log: LoggedRequest[];
}

function reply(res: ServerResponse, answer: Answer, headers: Record<string, string>): void {
  res.writeHead(answer.status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(answer.body));
}

const invalid = (status: number, message: string, extra: { code?: string; type?: 'idempotency_error' } = {}): Answer =>
  errorAnswer(status, { type: extra.type ?? 'invalid_request_error', message, ...(extra.code ? { code: extra.code } : {}) });

/** The account of `Authorization: Bearer <key>` (or Basic with the key as user name), or the 401 to answer. */
function authenticate(header: string | undefined, accounts: ReadonlyMap<string, string>): string | Answer {
  const bearer = /^Bearer (\S+)$/.exec(header ?? '')?.[1];
  const basic = /^Basic (\S+)$/.exec(header ?? '')?.[1];
  const key = bearer ?? (basic ? Buffer.from(basic, 'base64').toString('utf8').split(':')[0] : undefined);
  if (!key) {
    return invalid(
      401,
      "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
    );
  }
  const account = accounts.get(key);
  if (account) return account;
  const masked = key.length > 12 ? `${key.slice(0, 8)}${'*'.repeat(key.length - 12)}${key.slice(-4)}` : '****';
  return invalid(401, `Invalid API Key provided: ${masked}`);
}

function paramsOf(req: IncomingMessage, url: URL, raw: string): FormObject {
  if (req.method === 'GET') return parseForm(url.search.slice(1));
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim();
  if (raw !== '' && type !== 'application/x-www-form-urlencoded') {
    throw new FormError('Invalid request: bodies must be application/x-www-form-urlencoded.');
  }
  return parseForm(raw);
}

/** Runs the endpoint with the faults armed for it; the answer is null when the connection is to be lost. */
async function execute(deps: RouterDeps, handler: Handler, act: () => Answer, call: Call, account: string) {
  const key = call.cause.idempotencyKey;
  const faults = deps.faults.take(handler.endpoint);
  const kinds = [...faults.keys()];
  call.cause.dropWebhooks = faults.has('drop_webhooks');
  const slow = faults.get('slow');
  if (slow) await new Promise((resolve) => setTimeout(resolve, slow.delayMs));
  const save = (answer: Answer, remember = true) => {
    if (key === null) return;
    if (remember) deps.idempotency.save(account, key, answer, call.cause.requestId as string);
    else deps.idempotency.release(account, key);
  };
  const before = faults.get('error_500_before');
  if (before) {
    save(internalError(), before.remember);
    return { answer: internalError(), kinds };
  }
  let answer: Answer;
  try {
    answer = act();
  } catch (error) {
    if (!(error instanceof ParamError)) process.stderr.write(`fake acquirer: ${(error as Error).stack}\n`);
    answer = error instanceof ParamError ? error.answer : internalError();
  }
  const after = faults.get('error_500_after');
  save(after ? internalError() : answer, after?.remember ?? true);
  if (faults.has('lose_answer')) return { answer: null, kinds };
  return { answer: after ? internalError() : answer, kinds };
}

/** The idempotency layer's own answer (a replay, 400 or 409), or null to go on. */
function idempotencyAnswer(
  deps: RouterDeps,
  account: string,
  key: string,
  fingerprint: string,
  headers: Record<string, string>,
): Answer | null {
  const begun = deps.idempotency.begin(account, key, fingerprint);
  if (begun.kind === 'new') return null;
  if (begun.kind === 'in_use') {
    headers['stripe-should-retry'] = 'true';
    return invalid(
      409,
      `There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ${key}. Please try again later.`,
      { code: 'idempotency_key_in_use' },
    );
  }
  if (begun.kind === 'mismatch') {
    const [firstEndpoint, endpoint] = [begun.firstFingerprint, fingerprint].map((f) => f.slice(f.indexOf(' ') + 1, f.indexOf('\n')));
    const message =
      firstEndpoint === endpoint
        ? `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`
        : `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${firstEndpoint}' vs '${endpoint}'). Try using a key other than '${key}' if you meant to execute a different request.`;
    return invalid(400, message, { type: 'idempotency_error' });
  }
  headers['idempotent-replayed'] = 'true';
  headers['original-request'] = begun.originalRequest;
  return begun.answer;
}

async function handleApi(deps: RouterDeps, req: IncomingMessage, res: ServerResponse, url: URL, raw: string): Promise<void> {
  const method = req.method ?? 'GET';
  const requestId = newId('req');
  const headers: Record<string, string> = { 'request-id': requestId, 'stripe-version': API_VERSION };
  const entry: LoggedRequest = {
    endpoint: null,
    method,
    path: url.pathname,
    idempotencyKey: null,
    status: 404,
    replayed: false,
    faults: [],
  };
  deps.log.push(entry);
  const done = (answer: Answer) => {
    entry.status = answer.status;
    reply(res, answer, headers);
  };
  const handler = deps.handlers.find((h) => h.method === method && h.path.test(url.pathname));
  if (!handler) return done(invalid(404, `Unrecognized request URL (${method}: ${url.pathname}).`));
  entry.endpoint = handler.endpoint;
  const account = authenticate(req.headers.authorization, deps.accounts);
  if (typeof account !== 'string') return done(account);
  sweep(deps.state, NO_CAUSE);
  let params: FormObject;
  try {
    params = paramsOf(req, url, raw);
  } catch (error) {
    return done(invalid(400, (error as Error).message));
  }
  const keyHeader = req.headers['idempotency-key'];
  const key = method === 'POST' && typeof keyHeader === 'string' ? keyHeader : null;
  entry.idempotencyKey = key;
  if (key !== null) {
    if (key.length === 0 || key.length > 255) return done(invalid(400, 'Idempotency keys must be 1 to 255 characters long.'));
    headers['idempotency-key'] = key;
    const early = idempotencyAnswer(deps, account, key, `${method} ${url.pathname}\n${canonicalForm(params)}`, headers);
    entry.replayed = headers['idempotent-replayed'] === 'true';
    if (early) return done(early);
  }
  const cause: Cause = { requestId, idempotencyKey: key, dropWebhooks: false };
  const call: Call = { account, params, id: handler.path.exec(url.pathname)?.[1] ?? '', cause };
  let act: () => Answer;
  try {
    checkShape(params, handler.spec);
    act = handler.prepare(call);
  } catch (error) {
    if (!(error instanceof ParamError)) throw error;
    if (key !== null) deps.idempotency.release(account, key);
    return done(error.answer);
  }
  const { answer, kinds } = await execute(deps, handler, act, call, account);
  entry.faults = kinds;
  if (answer === null) {
    entry.status = 'lost';
    req.socket.destroy();
    return;
  }
  done(answer);
}

export function createRouter(deps: RouterDeps): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const raw = await readBody(req);
    const challenge = CHALLENGE_PATH.exec(url.pathname);
    if (challenge) {
      sweep(deps.state, NO_CAUSE);
      return handleChallenge(deps.state, req.method ?? 'GET', challenge[1] as string, raw, res);
    }
    return handleApi(deps, req, res, url, raw);
  };
}
