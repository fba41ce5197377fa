// Deterministic market data for tests: the simulator's history through the real ingest pipeline into the
// test service's store, then a short live pass so tickers and books are current at the pinned clock.
import { HOUR_MS, MINUTE_MS } from '../../src/domain/time.js'
import { Ingest } from '../../src/ingest/ingest.js'
import { MarketSimulator } from '../../src/sources/simulator/index.js'
import type { TestService } from './service.js'

/** a fixed "now" for tests: 2026-03-02 12:00:30 UTC (mid-minute, so the current minute is partial) */
export const TEST_NOW = Date.UTC(2026, 2, 2, 12, 0, 30)

export async function seedMarket(t: TestService, opts: { hours?: number; coins?: readonly string[]; seed?: number; now?: number; sampleEveryMs?: number } = {}) {
  const now = opts.now ?? TEST_NOW
  const coins = opts.coins ?? ['BTC', 'ETH', 'SOL']
  const { db, market } = t.services
  const history = new Ingest({ db, market, trackLive: false, sampleEveryMs: opts.sampleEveryMs ?? MINUTE_MS })
  const sim = new MarketSimulator({ seed: opts.seed ?? 7, coins })
  const liveFrom = Math.floor(now / MINUTE_MS) * MINUTE_MS
  sim.simulateRange(liveFrom - (opts.hours ?? 6) * HOUR_MS, liveFrom, history)
  await history.flush({ final: true })
  // the live feed from the start of the current minute up to now
  const live = new Ingest({ db, market })
  const liveSim = new MarketSimulator({ seed: opts.seed ?? 7, coins })
  liveSim.live(live, { manual: true, fromTs: liveFrom })
  liveSim.pump(now)
  live.advance(now)
  await live.flush()
  return { now, coins, live, sim: liveSim }
}
