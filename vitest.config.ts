import { createRequire } from 'node:module'
import { defineConfig } from 'vitest/config'

const require = createRequire(import.meta.url)

export default defineConfig({
  // one graphql instance, the one Node itself loads (vite would pick index.mjs for us and index.js for CJS deps)
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
})
