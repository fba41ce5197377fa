// The runner with a venue that answers newest first and stops at its page size (Bybit, OKX, dYdX when a page asks
// more than they give): a page that came back full covers its span only from its oldest row (page.from), and the
// runner asks for the older rest as its own page, once, until the span is whole; what the venue lacks is a hole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { klineMinuteBar } from '../../../src/domain/minute-bars.js'
import { MINUTE_MS } from '../../../src/domain/time.js'
import { MarketState } from '../../../src/read/state.js'
import { VenueBudget } from '../../../src/sources/history/budget.js'
import { HistoryRunner } from '../../../src/sources/history/runner.js'
import { newestFirstFrom } from '../../../src/sources/history/venue-call.js'
import type { HistoryKind, HistoryPage, HistoryRequest, VenueHistory } from '../../../src/domain/venue-history.js'
import type { Database } from '../../../src/store/database.js'
import { openTestStore } from '../../helpers/store.js'

const NOW = Date.UTC(2026, 3, 2, 12, 0, 30)
const END = Math.floor(NOW / MINUTE_MS) * MINUTE_MS
const DAYS = 0.25 // 360 minutes
const CAP = 100 // what the venue gives at most, while a page asks for 300
const HOLE = { from: END - 200 * MINUTE_MS, to: END - 190 * MINUTE_MS }
const key = { exchange: 'okx' as const, coin: 'BTC', marketType: 'perp' as const }

/** newest first, at most CAP minutes of the span, nothing inside HOLE */
class CappedVenue implements VenueHistory {
  readonly venue = 'okx' as const
  readonly kinds: ReadonlySet<HistoryKind> = new Set<HistoryKind>(['candles_perp'])
  readonly asked: HistoryRequest[] = []
  /** what each answer covered for sure */
  readonly covered: Array<[number, number]> = []
  cost() {
    return { weight: 1, pageSpanMs: 300 * MINUTE_MS, pool: 'p' }
  }
  retentionMs() {
    return Infinity
  }
  lists() {
    return true
  }
  async fetch(req: HistoryRequest): Promise<HistoryPage> {
    this.asked.push(req)
    const minutes: number[] = []
    for (let t = req.to - MINUTE_MS; t >= req.from && minutes.length < CAP; t -= MINUTE_MS) if (t < HOLE.from || t >= HOLE.to) minutes.push(t)
    const bars = minutes.map((t) => klineMinuteBar(key, { ts: t, open: 1, high: 2, low: 0.5, close: 1.5, volume: 3 }))
    const from = newestFirstFrom(req, minutes, CAP, MINUTE_MS)
    this.covered.push([from, req.to])
    return { from, to: req.to, bars, events: [] }
  }
}

describe('runner, newest-first venue with a smaller page than asked', () => {
  let db: Database
  beforeAll(async () => {
    db = await openTestStore()
  })
  afterAll(() => db?.close())

  it('asks for the older rest of every full page once, stores every minute the venue has and records only its hole', async () => {
    const venue = new CappedVenue()
    const budget = new VenueBudget({ venue: 'okx', safety: 1, pools: [{ name: 'p', limit: 1000, windowMs: 1000, source: 'test' }] })
    const market = new MarketState(db, () => NOW)
    const start = END - 360 * MINUTE_MS
    const runner = new HistoryRunner({ venue, budget, db, market, coins: () => ['BTC'], days: DAYS, now: () => NOW, concurrency: 1 })
    await runner.start()
    await runner.idle()
    await runner.stop()
    // each span asked once; what the answers covered tiles the window (no minute served twice)
    const spans = venue.asked.map((r) => `${r.from}-${r.to}`)
    expect(new Set(spans).size).toBe(spans.length)
    const covered = [...venue.covered].sort((a, b) => a[0] - b[0])
    expect(covered[0]![0]).toBe(start)
    covered.forEach(([, to], i) => expect(covered[i + 1]?.[0] ?? END).toBe(to))
    // the 300-minute pages each came back in 100-minute parts: the older rest was asked twice per full page
    expect(venue.asked.length).toBeGreaterThan(2)
    const rows = await db.sql.query<{ ts: string }>("SELECT ts FROM candle_1m WHERE exchange = 'okx' AND coin = 'BTC' ORDER BY ts")
    const want: number[] = []
    for (let t = start; t < END; t += MINUTE_MS) if (t < HOLE.from || t >= HOLE.to) want.push(t)
    expect(rows.map((r) => Number(r.ts))).toEqual(want)
    const holes = await db.sql.query<{ from_ts: string; to_ts: string }>("SELECT from_ts, to_ts FROM history_hole WHERE exchange = 'okx'")
    expect(holes.map((h) => [Number(h.from_ts), Number(h.to_ts)])).toEqual([[HOLE.from, HOLE.to]])
    const progress = await db.sql.query<{ covered_from: string; covered_to: string }>("SELECT covered_from, covered_to FROM history_progress WHERE exchange = 'okx'")
    expect(progress.map((p) => [Number(p.covered_from), Number(p.covered_to)])).toEqual([[start, END]])
  })
})
