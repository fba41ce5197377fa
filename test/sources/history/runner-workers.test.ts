// The runner's workers: every idle worker is woken by new pages and by stop(), not only the last one to go idle
// (a single wake slot lost the others: stop() never returned once two workers were idle, and after an idle spell
// the pages ran one at a time). The venue here is an in-test fetcher that counts the pages in flight.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MarketState } from '../../../src/read/state.js'
import { VenueBudget } from '../../../src/sources/history/budget.js'
import { HistoryRunner, type PayingVenueHistory } from '../../../src/sources/history/runner.js'
import type { HistoryKind, HistoryPage, HistoryRequest } from '../../../src/domain/venue-history.js'
import type { Database } from '../../../src/store/database.js'
import { openTestStore } from '../../helpers/store.js'

const HOUR = 3_600_000
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0)

/** settled funding, one page an hour, answered empty after a few turns of the event loop */
class CountingVenue implements PayingVenueHistory {
  readonly venue = 'binance' as const
  readonly kinds: ReadonlySet<HistoryKind> = new Set<HistoryKind>(['funding'])
  inFlight = 0
  maxInFlight = 0
  asked: HistoryRequest[] = []
  cost() {
    return { weight: 1, pageSpanMs: HOUR }
  }
  retentionMs() {
    return Infinity
  }
  lists() {
    return true
  }
  async fetch(req: HistoryRequest): Promise<HistoryPage> {
    this.asked.push(req)
    this.inFlight++
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight)
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
    this.inFlight--
    return { from: req.from, to: req.to, bars: [], events: [] }
  }
}

describe('history runner workers', () => {
  let db: Database
  beforeAll(async () => {
    db = await openTestStore()
  })
  afterAll(async () => {
    await db?.close()
  })

  it('after an idle spell, new pages run on every worker again, and stop() returns with all of them idle', async () => {
    const venue = new CountingVenue()
    const budget = new VenueBudget({ venue: 'binance', safety: 1, pools: [{ name: 'rest', limit: 1_000_000, windowMs: 60_000, source: 'test' }] }, () => NOW)
    const runner = new HistoryRunner({ venue, budget, db, market: new MarketState(db, () => NOW), coins: () => ['BTC'], days: 1, now: () => NOW, concurrency: 4 })
    await runner.start()
    await runner.idle()
    expect(venue.asked).toHaveLength(24)
    expect(venue.maxInFlight).toBe(4)
    // every worker is idle now: a repair of 8 hours is 8 pages, 4 at a time
    venue.maxInFlight = 0
    runner.repair(NOW - 8 * HOUR, NOW)
    await runner.idle()
    expect(venue.asked).toHaveLength(32)
    expect(venue.maxInFlight).toBe(4)
    // (it never returned before: only the last idle worker was woken)
    await runner.stop()
    expect(runner.state).toBe('stopped')
  })
})
