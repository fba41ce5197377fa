import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../src/domain/time.js'
import { planBackfill, runBackfill } from '../../src/ingest/backfill.js'
import { MarketSimulator } from '../../src/sources/simulator/index.js'
import { startTestService, type TestService } from '../helpers/service.js'

describe('backfill', () => {
  const NOW = Date.UTC(2026, 4, 3, 2, 30, 20)
  let t: TestService
  beforeAll(async () => {
    t = await startTestService({ clock: () => NOW })
  })
  afterAll(() => t.close())

  it('plans newest day first, aligned to UTC days, all fresh on an empty store', async () => {
    const chunks = await planBackfill(t.services.db, 'sim', NOW, 2)
    const end = NOW - (NOW % MINUTE_MS)
    const today = NOW - (NOW % DAY_MS)
    expect(chunks.map((c) => [c.from, c.to, c.wholeDay])).toEqual([
      [today, end, false],
      [today - DAY_MS, today, true],
      [end - 2 * DAY_MS, today - DAY_MS, false],
    ])
    expect(chunks.every((c) => c.fresh && !c.resume)).toBe(true)
  })

  it('writes the history, records whole days, and a second run only redoes what is not complete', async () => {
    const sim = new MarketSimulator({ seed: 5, coins: ['BTC'] })
    const progress: number[] = []
    const end = NOW - (NOW % MINUTE_MS)
    const today = NOW - (NOW % DAY_MS)
    // newest first, so after each chunk history is complete from the end of the next one
    const status: { percent: number; completeFrom: number; done: boolean }[] = []
    const first = await runBackfill({
      db: t.services.db, market: t.services.market, source: sim, sourceName: 'sim', now: NOW, days: 1.2,
      onProgress: (p) => {
        progress.push(p.chunk)
        const b = t.services.market.backfill!
        status.push({ percent: t.services.market.backfillPercent(), completeFrom: b.completeFrom, done: b.done })
      },
    })
    expect(first.chunks).toBe(3)
    expect(progress).toEqual([1, 2, 3])
    const window = 1.2 * DAY_MS
    expect(status.map((h) => h.completeFrom)).toEqual([today, today - DAY_MS, end - window])
    expect(status.map((h) => h.percent)).toEqual([((end - today) / window) * 100, ((end - today + DAY_MS) / window) * 100, 100].map((x) => expect.closeTo(x, 9)))
    expect(status.map((h) => h.done)).toEqual([false, false, true])
    const health = (await (await t.get('/healthz')).json()) as { backfill: { percent: number; done: boolean; window_from: number; window_to: number } }
    expect(health.backfill).toMatchObject({ percent: 100, done: true, window_from: end - window, window_to: end })
    const [{ n }] = (await t.services.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM backfill_day WHERE source = 'sim'`)) as [{ n: number }]
    expect(n).toBe(2) // the whole day, and the oldest (partial) day written through to its end; not today
    // BTC perp on binance trades every minute in the simulator: the whole window is there, once
    const rows = await t.services.db.sql.query<{ ts: number }>(`SELECT ts FROM candle_1m WHERE exchange = 'binance' AND coin = 'BTC' AND market_type = 'perp' ORDER BY ts`)
    const start = NOW - (NOW % MINUTE_MS) - 1.2 * DAY_MS
    expect(Number(rows[0]!.ts)).toBeGreaterThanOrEqual(start)
    expect(Number(rows.at(-1)!.ts)).toBe(NOW - (NOW % MINUTE_MS) - MINUTE_MS)
    // hourly rollups agree with their minutes
    const [h] = await t.services.db.sql.query<{ v1: number; v2: number }>(
      `SELECT (SELECT volume FROM candle_1h WHERE exchange = 'binance' AND coin = 'BTC' AND market_type = 'perp' AND ts = $1) AS v1,
              (SELECT sum(volume) FROM candle_1m WHERE exchange = 'binance' AND coin = 'BTC' AND market_type = 'perp' AND ts >= $1 AND ts < $1 + ${HOUR_MS}) AS v2`,
      [NOW - (NOW % DAY_MS) - 5 * HOUR_MS],
    )
    expect(h!.v1).toBeCloseTo(h!.v2, 6)

    // only today is redone
    const again = await planBackfill(t.services.db, 'sim', NOW, 1.2)
    expect(again.map((c) => [c.from, c.to])).toEqual([[NOW - (NOW % DAY_MS), NOW - (NOW % MINUTE_MS)]])
    expect(again[0]!.resume).toBe(true) // today's chunk reaches into stored data: only newer minutes are added
    expect(again[0]!.fresh).toBe(false)
    // a restart an hour later: the window starts later inside the same oldest day, which stays skipped
    expect((await planBackfill(t.services.db, 'sim', NOW + HOUR_MS, 1.2)).map((c) => c.wholeDay || c.from >= NOW - (NOW % DAY_MS))).toEqual([true])
    // a longer window reaches further back into that day: its earlier part is planned (not fresh: it overlaps)
    const longer = await planBackfill(t.services.db, 'sim', NOW, 1.5)
    const oldestDay = NOW - (NOW % DAY_MS) - DAY_MS - DAY_MS
    expect(longer.map((c) => [c.from, c.to, c.fresh])).toEqual([
      [NOW - (NOW % DAY_MS), NOW - (NOW % MINUTE_MS), false],
      [NOW - (NOW % MINUTE_MS) - 1.5 * DAY_MS, oldestDay + DAY_MS, false],
    ])
  })

  it('asks a source that simulates elsewhere for the next ranges before it takes the one it writes', async () => {
    const sim = new MarketSimulator({ seed: 6, coins: ['ETH'] })
    const log: string[] = []
    const source = {
      prefetch: (from: number, to: number) => void log.push(`ahead ${from}-${to}`),
      simulateRange: (from: number, to: number, sink: Parameters<MarketSimulator['simulateRange']>[2], o: { sampleEveryMs: number; books: false }) => {
        log.push(`take ${from}-${to}`)
        return sim.simulateRange(from, to, sink, o)
      },
    }
    const now = NOW + 3 * DAY_MS
    const r = await runBackfill({ db: t.services.db, market: t.services.market, source, sourceName: 'ahead', now, days: 0.1 })
    expect(r.bars).toBeGreaterThan(0)
    const taken = log.filter((l) => l.startsWith('take')).map((l) => l.slice(5))
    const ahead = log.filter((l) => l.startsWith('ahead')).map((l) => l.slice(6))
    // hour by hour (the first and last parts of hours), newest chunk first; every range asked ahead once, in the
    // order taken, each at least two ranges before it is taken (or as soon as it is among the last ones)
    expect(taken.length).toBeGreaterThan(2)
    expect(ahead).toEqual(taken)
    for (const [i, range] of taken.entries()) {
      const askedAt = log.indexOf(`ahead ${range}`)
      const takenAt = log.indexOf(`take ${range}`)
      expect(askedAt).toBeLessThan(takenAt)
      if (i + 2 < taken.length) expect(log.indexOf(`ahead ${taken[i + 2]}`)).toBeLessThan(takenAt)
    }
    for (const range of taken) {
      const [from, to] = range.split('-').map(Number) as [number, number]
      expect(to - from).toBeLessThanOrEqual(HOUR_MS)
      expect(Math.floor(from / HOUR_MS)).toBe(Math.floor((to - 1) / HOUR_MS))
    }
  })
})
