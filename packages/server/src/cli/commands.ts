// The `purse` commands: their words, arguments and options. What each does is in handlers.ts,
// imported only when a command runs: a usage error or a refusal (the embedded database held by a
// server) is printed at once, without loading the service's modules first.
import type { Command, CommandInput } from './types.ts';

const json = { json: { type: 'boolean' } } as const;

const load = () => import('./handlers.ts');
type Handlers = Awaited<ReturnType<typeof load>>;
type HandlerName = { [K in keyof Handlers]: Handlers[K] extends (input: CommandInput) => Promise<void> ? K : never }[keyof Handlers];

/** A command's run, with its handler loaded on first use. */
function lazy(name: HandlerName): Command['run'] {
  return async (input) => (await load())[name](input);
}

export const COMMANDS: readonly Command[] = [
  { words: ['rekey'], args: [], options: {}, run: lazy('rekey') },
  { words: ['key', 'export-legacy'], args: [], options: {}, run: lazy('exportLegacyKey'), keyOptional: true },
  { words: ['migrate'], args: [], options: {}, run: lazy('migrate') },
  { words: ['audit', 'verify'], args: [], options: { merchant: { type: 'string' }, ...json }, run: lazy('verifyAudit') },
  {
    words: ['reconcile'],
    args: [],
    options: { provider: { type: 'string' }, since: { type: 'string' }, ...json },
    run: lazy('reconcile'),
  },
  {
    words: ['merchant', 'create'],
    args: [],
    options: { name: { type: 'string' }, live: { type: 'boolean' }, ...json },
    run: lazy('createMerchant'),
  },
  { words: ['merchant', 'list'], args: [], options: json, run: lazy('listMerchants') },
  { words: ['merchant', 'rotate-secret'], args: ['ID'], options: json, run: lazy('rotateSecret') },
  { words: ['merchant', 'disable'], args: ['ID'], options: json, run: (input) => load().then((h) => h.setStatus('disabled')(input)) },
  { words: ['merchant', 'enable'], args: ['ID'], options: json, run: (input) => load().then((h) => h.setStatus('active')(input)) },
  {
    words: ['merchant', 'update'],
    args: ['ID'],
    options: { 'raw-card-data': { type: 'boolean' }, 'no-raw-card-data': { type: 'boolean' }, ...json },
    run: lazy('updateMerchant'),
  },
  { words: ['merchant', 'webhook-secret'], args: ['ID'], options: json, run: (input) => load().then((h) => h.webhookSecret(false)(input)) },
  {
    words: ['merchant', 'rotate-webhook-secret'],
    args: ['ID'],
    options: json,
    run: (input) => load().then((h) => h.webhookSecret(true)(input)),
  },
  {
    words: ['user', 'invite'],
    args: [],
    options: { merchant: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' }, 'base-url': { type: 'string' }, ...json },
    run: lazy('inviteUser'),
  },
  {
    words: ['listen'],
    args: [],
    options: {
      'forward-to': { type: 'string' },
      'base-url': { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      secret: { type: 'string' },
    },
    run: lazy('listenCommand'),
    // A merchant's command: it talks HTTP to Purse and never reads the service key or the database.
    keyOptional: true,
    opensDatabase: false,
  },
];
