import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MINUTE_MS } from '../../src/domain/time.js'
import { Ingest } from '../../src/ingest/ingest.js'
import { MarketSimulator } from '../../src/sources/simulator/index.js'
import { startTestService, type TestService } from '../helpers/service.js'

// A restart resumes without gaps or duplicates: the same live feed written in one run, and in two runs with
// a shutdown (final flush) in between, gives the same 1-minute bars.
describe('ingest restart', () => {
  const T0 = Date.UTC(2026, 1, 10, 9, 0, 0)
  const T1 = T0 + 7 * MINUTE_MS + 25_000 // shutdown mid-minute
  const T2 = T0 + 15 * MINUTE_MS
  let once: TestService
  let twice: TestService
  beforeAll(async () => {
    once = await startTestService({ clock: () => T2 })
    twice = await startTestService({ clock: () => T2 })
  })
  afterAll(async () => {
    await once.close()
    await twice.close()
  })

  const run = async (t: TestService, from: number, to: number) => {
    const ingest = new Ingest({ db: t.services.db, market: t.services.market, cacheHours: true })
    await ingest.resume()
    const sim = new MarketSimulator({ seed: 3, coins: ['BTC', 'ETH'] })
    sim.live(ingest, { manual: true, fromTs: from })
    for (let ts = from + 1000; ts <= to; ts += 1000) sim.pump(ts)
    await ingest.flush({ final: true }) // what SIGTERM does
    return ingest
  }
  const bars = (t: TestService) =>
    t.services.db.sql.query<{ exchange: string; coin: string; market_type: string; ts: number; volume: number; trades: number; open: number; close: number }>(
      'SELECT exchange, coin, market_type, ts, volume, trades, open, close FROM candle_1m ORDER BY exchange, coin, market_type, ts',
    )

  it('two runs with a shutdown between them store the same minutes as one run, without gaps or double counting', async () => {
    await run(once, T0, T2)
    await run(twice, T0, T1)
    const second = await run(twice, T1, T2)
    expect(second.aggregator.stats.resumeSkipped).toBeGreaterThan(0) // trades of the stored boundary minute were skipped, not re-counted
    const a = await bars(once)
    const b = await bars(twice)
    const key = (r: { exchange: string; coin: string; market_type: string; ts: number }) => `${r.exchange}:${r.coin}:${r.market_type}:${r.ts}`
    const boundary = T1 - (T1 % MINUTE_MS)
    const byKey = new Map(b.map((r) => [key(r), r]))
    expect(b.length).toBe(a.length) // no gap, no extra minute
    for (const r of a) {
      const s = byKey.get(key(r))!
      expect(s, key(r)).toBeDefined()
      if (Number(r.ts) === boundary) {
        // the minute in progress at shutdown keeps what it had: never more than the uninterrupted run
        expect(s.volume).toBeLessThanOrEqual(r.volume + 1e-9)
        expect(s.open).toBe(r.open)
      } else expect([s.volume, s.trades, s.open, s.close]).toEqual([r.volume, r.trades, r.open, r.close])
    }
    // hourly rollups kept up from memory equal the fold of the stored minutes of their hour
    const mismatched = await twice.services.db.sql.query(
      `SELECT h.exchange, h.coin, h.market_type, h.ts FROM candle_1h h
       JOIN (SELECT exchange, coin, market_type, ts - ts % 3600000 AS hour, sum(volume) AS v, sum(trades) AS n, max(high) AS hi, min(low) AS lo
             FROM candle_1m GROUP BY 1, 2, 3, 4) m ON m.exchange = h.exchange AND m.coin = h.coin AND m.market_type = h.market_type AND m.hour = h.ts
       WHERE abs(m.v - h.volume) > 1e-9 * greatest(1, m.v) OR m.n <> h.trades OR m.hi <> h.high OR m.lo <> h.low`,
    )
    expect(mismatched).toEqual([])
    // every market has a bar for every minute of [T0, T2) across the restart
    for (const m of new Set(a.map((r) => `${r.exchange}:${r.coin}:${r.market_type}`))) {
      const minutes = b.filter((r) => `${r.exchange}:${r.coin}:${r.market_type}` === m).map((r) => Number(r.ts))
      expect(minutes[0]).toBe(T0)
      for (let i = 1; i < minutes.length; i++) expect(minutes[i]! - minutes[i - 1]!, m).toBe(MINUTE_MS)
    }
  })
})
