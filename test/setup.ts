// Property tests are reproducible: a fixed seed by default, another one with FC_SEED=<n> (or FC_SEED=random)
// to explore. A failure prints its seed and path, so any counterexample can be replayed.
// Runs before every test file. Test files share their worker's modules (isolate: false in vitest.config.ts), so
// whatever a file sets globally starts from the same state in the next one.
import fc from 'fast-check'
// no test reaches the internet: MARKET_SOURCE=auto (the default) probes the venues, and must find none
import './helpers/no-network.js'
import { afterAll, vi } from 'vitest'

const seed = process.env.FC_SEED === 'random' ? undefined : Number(process.env.FC_SEED ?? 20_261_121)
fc.resetConfigureGlobal()
if (seed !== undefined) fc.configureGlobal({ seed })

afterAll(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})
