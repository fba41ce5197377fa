import { availableParallelism } from 'node:os'
import { createRequire } from 'node:module'
import { defineConfig } from 'vitest/config'

const require = createRequire(import.meta.url)

export default defineConfig({
  // one graphql instance, the one Node itself loads (vite would pick index.mjs for us and index.js for CJS deps)
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    // an empty, migrated embedded store dumped once; tests start their stores from it (test/helpers/store.ts)
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // test files share their worker's loaded modules: the service's module graph is loaded once per worker,
    // not once per file (about half the run's time otherwise). test/setup.ts resets what files set globally.
    isolate: false,
    // every core: much of the suite waits on stores, child processes and the browser
    maxWorkers: availableParallelism(),
  },
})
