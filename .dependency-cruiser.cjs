// The layering of packages/server/src, checked by `npm run lint`. From the bottom up:
//   shared/  <-  connectors/*/config.ts  <-  config.ts  <-  db/  <-  domain folders (ledger/ lowest)  <-  http/  <-  */routes.ts  <-  app.ts, main.ts, cli/
// Paths are matched with or without the packages/server/ prefix, so the same rules apply when the
// tree is cruised from the repository root and when a test cruises a small copy of the layout.
// bench/ and packages/sdk are cruised too: no cycles there either; bench/ may use the server's
// source but not the other way round, and the SDK does not import the server.
const SRC = '^(packages/server/)?src/';
const BENCH = '^bench/';
const SDK = '^packages/sdk/';

/** Everything in src/ except the given folders or files (regular expressions after src/). */
const srcExcept = (...allowed) => ({ path: SRC, pathNot: allowed.map((a) => `${SRC}${a}`) });

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'A cycle makes load order matter and every module in it depend on all the others.',
      severity: 'error',
      from: { path: [SRC, BENCH, SDK] },
      to: { circular: true },
    },
    {
      name: 'server-imports-no-bench',
      comment: 'bench/ measures the server from outside; the service must build and run without it.',
      severity: 'error',
      from: { path: SRC },
      to: { path: BENCH },
    },
    {
      name: 'sdk-imports-no-server',
      comment: 'The SDK ships on its own and reaches the server over HTTP; its types are generated (npm run sdk:types), not imported.',
      severity: 'error',
      from: { path: SDK },
      to: { path: '^packages/server/' },
    },
    {
      name: 'shared-imports-only-shared',
      comment: 'shared/ is the bottom layer: every layer may use it, so it may use none of them.',
      severity: 'error',
      from: { path: `${SRC}shared/` },
      to: srcExcept('shared/'),
    },
    {
      name: 'config-imports-only-shared',
      comment:
        'config.ts reads the environment; it knows nothing of the service it configures. Each provider keeps ' +
        'its own variables beside its connector (connectors/<name>/config.ts): config.ts may import those files, ' +
        'and no other file of connectors/.',
      severity: 'error',
      from: { path: `${SRC}config\\.ts$` },
      to: srcExcept('shared/', 'config\\.ts$', 'connectors/[^/]+/config\\.ts$'),
    },
    {
      name: 'provider-config-imports-only-shared',
      comment:
        "A provider's config.ts sits below config.ts, so it is held to the same rule: it reads the environment " +
        'with shared/ and nothing else (not its own connector, which is far above).',
      severity: 'error',
      from: { path: `${SRC}connectors/[^/]+/config\\.ts$` },
      to: srcExcept('shared/'),
    },
    {
      name: 'db-imports-only-shared-and-config',
      comment: 'db/ is the storage below the domain: connection, migrations, row types.',
      severity: 'error',
      from: { path: `${SRC}db/` },
      to: srcExcept('db/', 'shared/', 'config\\.ts$'),
    },
    {
      name: 'only-routes-import-http',
      comment: 'HTTP concerns stay at the edge: services and stores must work without a request.',
      severity: 'error',
      from: srcExcept('http/', '[^/]+/routes\\.ts$', 'app\\.ts$', 'main\\.ts$'),
      to: { path: `${SRC}http/` },
    },
    {
      name: 'only-entry-points-import-deps',
      comment: 'deps.ts wires everything; a module below it gets what it needs passed in.',
      severity: 'error',
      from: srcExcept('app\\.ts$', 'main\\.ts$', 'cli/'),
      to: { path: `${SRC}deps\\.ts$` },
    },
    {
      name: 'no-route-imports-route',
      comment: 'What two route files share belongs in a module below them (http/, a schemas file).',
      severity: 'error',
      from: { path: `${SRC}[^/]+/routes\\.ts$` },
      to: { path: `${SRC}[^/]+/routes\\.ts$` },
    },
    {
      name: 'ledger-imports-no-domain',
      comment: 'The ledger is the lowest domain layer: the others post to it, it calls none of them.',
      severity: 'error',
      from: { path: `${SRC}ledger/` },
      to: srcExcept('ledger/', 'shared/', 'db/', 'config\\.ts$'),
    },
  ],
  options: {
    // Type-only imports count: a type from a higher layer couples the code just the same.
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
