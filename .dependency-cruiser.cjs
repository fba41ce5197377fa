// The layers import one way: domain <- analytics <- store/accounts <- read <- ingest <- sources <- endpoints <- graphql <- rest
// <- server. Market data flows sources -> ingest -> store -> read (src/sources, src/ingest, src/store/market, src/read:
// docs/architecture.md#layers); each of them imports only those left of it in the line above (the store none, read the
// store, the ingest the read models it updates and the store, a source the ingest).
// `npm run check:structure` runs this over src/, then knip (knip.jsonc); type-only imports count as imports, but for
// the one exception of read-not-to-ingest-or-sources.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle, through type-only imports either.',
      from: { pathNot: '^src/generated/' },
      to: { circular: true },
    },
    {
      name: 'graphql-not-to-rest-or-endpoints',
      severity: 'error',
      comment: 'GraphQL sits below REST and reads endpoints through its own field builders, never the REST layer.',
      from: { path: '^src/graphql/' },
      to: { path: '^src/(rest|endpoints)/' },
    },
    {
      name: 'analytics-pure',
      severity: 'error',
      comment: 'Analytics are pure functions over the domain vocabulary: nothing but src/analytics, src/domain and src/errors.ts (no node builtins, no packages but pure data structures: heap-js).',
      from: { path: '^src/analytics/' },
      to: { pathNot: '^(src/(analytics/|domain/|errors[.]ts$)|node_modules/heap-js/)' },
    },
    {
      name: 'domain-self-contained',
      severity: 'error',
      comment: 'The domain vocabulary imports nothing else of ours but the errors-as-data module (its parameter parser throws invalid_parameter), and no node builtins (packages such as zod are fine).',
      from: { path: '^src/domain/' },
      to: { pathNot: '^(src/domain/|src/errors\\.ts$|node_modules/)' },
    },
    {
      name: 'core-not-to-interfaces',
      severity: 'error',
      comment: 'The market data (sources, ingest, store, read) and the accounts know nothing of the interfaces built on them.',
      from: { path: '^src/(store|sources|ingest|read|accounts)/' },
      to: { path: '^src/(graphql|rest|endpoints|http|dashboard)/' },
    },
    {
      name: 'store-not-to-market-layers',
      severity: 'error',
      comment: 'The store (market tables beside the accounts\' tables) is written by the ingest and read by src/read: it imports none of them, nor the sources.',
      from: { path: '^src/store/' },
      to: { path: '^src/(sources|ingest|read)/' },
    },
    {
      name: 'read-not-to-ingest-or-sources',
      severity: 'error',
      comment:
        'The read models (src/read) are built over the store, the domain and the analytics, never over the ingest or the sources. ' +
        'Exception: type-only imports (`import type`), for names the read models hold but never call, such as the SourceChoice kept by MarketState (src/read/state.ts).',
      from: { path: '^src/read/' },
      to: { path: '^src/(ingest|sources)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'ingest-not-to-sources',
      severity: 'error',
      comment: 'The ingest writes the store and updates the read models from the events the sources hand it; it never imports a source.',
      from: { path: '^src/ingest/' },
      to: { path: '^src/sources/' },
    },
    {
      name: 'endpoints-not-to-rest-or-http',
      severity: 'error',
      comment: 'An endpoint is a use case with its parameters; the REST and HTTP layers are built over it.',
      from: { path: '^src/endpoints/' },
      to: { path: '^src/(rest|http)/' },
    },
    {
      name: 'src-not-to-tests',
      severity: 'error',
      comment: 'The product never imports its tests or benchmarks.',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'Every import resolves (the dashboard browser modules import by URL).',
      from: { pathNot: '^src/dashboard/public/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], mainFields: ['module', 'main', 'types', 'typings'], extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts', '.json'] },
    skipAnalysisNotInRules: true,
    reporterOptions: { text: { highlightFocused: true } },
  },
}
