// The hot series (src/read/series.ts) against a plain reference built from the same writes: the typed-array
// rings must answer exactly what a map of "last write per market and bucket" answers, drop what is older than
// they hold, and forget what was pruned.
import { describe, expect, it } from 'vitest'
import { writeMinuteBars } from '../../src/store/market/candles.js'
import { writeSamples } from '../../src/store/market/samples.js'
import { openTestStore } from '../helpers/store.js'
import { EXCHANGES, bar, rng, sample, writes } from '../helpers/series.js'
import { klineMinuteBar, type MinuteBar } from '../../src/domain/minute-bars.js'
import { DAY_MS, HOUR_MS, MINUTE_MS, floorTo } from '../../src/domain/time.js'
import type { ExchangeId, MarketType } from '../../src/domain/exchanges.js'
import { CoinSeries } from '../../src/read/series.js'
import type { MarketSample } from '../../src/store/market/samples.js'

const NOW = Date.UTC(2026, 5, 10, 12, 30)

/** the reference: last write per market and bucket; per exchange and bucket, the latest sample, earlier values kept where it has none (as the store's upsert merges) */
function reference(bars: MinuteBar[], samples: MarketSample[], bucketMs: number) {
  const b = new Map<string, MinuteBar>()
  for (const x of bars) b.set(`${x.coin}|${x.exchange}|${x.marketType}|${floorTo(x.ts, bucketMs)}`, { ...x, ts: floorTo(x.ts, bucketMs) })
  const s = new Map<string, { exchange: ExchangeId; coin: string; ts: number; oi: number | null; mark: number | null; rate: number | null; interval: number | null }>()
  for (const x of samples) {
    const k = `${x.coin}|${x.exchange}|${floorTo(x.ts, bucketMs)}`
    const prev = s.get(k)
    if (prev && prev.ts > x.ts) continue
    s.set(k, { exchange: x.exchange, coin: x.coin, ts: x.ts, oi: x.openInterest ?? prev?.oi ?? null, mark: x.markPrice ?? prev?.mark ?? null, rate: x.fundingRate ?? prev?.rate ?? null, interval: x.fundingIntervalHours ?? prev?.interval ?? null })
  }
  return { bars: [...b.values()], samples: [...s.values()] }
}

/** the documented outlier rule by hand: with 3 or more venues, a close further than 5 % from their median is out */
function keptCloses<T extends { close: number }>(bars: T[]): T[] {
  if (bars.length < 3) return bars
  const xs = bars.map((b) => b.close).sort((a, b) => a - b)
  const m = xs.length % 2 ? xs[xs.length >> 1]! : (xs[xs.length / 2 - 1]! + xs[xs.length / 2]!) / 2
  return bars.filter((b) => Math.abs(b.close - m) <= 0.05 * m)
}

describe('CoinSeries', () => {
  it.each([
    ['hours', HOUR_MS, 30 * 24],
    ['minutes', MINUTE_MS, 24 * 60],
  ] as const)('answers what the writes say (%s)', (grid, bucketMs, span) => {
    const series = new CoinSeries()
    const { bars, samples } = writes(grid === 'hours' ? 1 : 2, bucketMs, span, NOW)
    for (let i = 0; i < bars.length; i += 100) series.apply(grid === 'hours' ? { hourBars: bars.slice(i, i + 100) } : { minuteBars: bars.slice(i, i + 100) }, NOW)
    series.apply({ samples }, NOW)
    const g = series[grid]
    const ref = reference(bars, samples, bucketMs)
    const from = NOW - (span / 2) * bucketMs + 1 // unaligned: the first whole bucket after it is the first one in
    const inWindow = (ts: number) => ts >= from && ts < NOW

    for (const coin of ['BTC', 'ETH'])
      for (const mt of ['perp', 'spot'] as const)
        for (const ex of [undefined, 'binance'] as const) {
          const expected = ref.bars
            .filter((b) => b.coin === coin && b.marketType === mt && (!ex || b.exchange === ex) && inWindow(b.ts))
            .sort((a, b) => a.exchange.localeCompare(b.exchange) || a.ts - b.ts)
          expect(g.marketBars(coin, mt, from, NOW, ex)).toEqual(expected)
        }
    const byKey = <T extends { exchange: string; ts: number }>(rows: T[]) => [...rows].sort((a, b) => a.exchange.localeCompare(b.exchange) || a.ts - b.ts)
    expect(byKey(g.perpSamples('BTC', from, NOW))).toEqual(byKey(ref.samples.filter((s) => s.coin === 'BTC' && inWindow(floorTo(s.ts, bucketMs))).map(({ coin: _c, ...s }) => s)))
    expect(byKey(g.perpCloses('ETH', from, NOW))).toEqual(
      byKey(ref.bars.filter((b) => b.coin === 'ETH' && b.marketType === 'perp' && inWindow(b.ts)).map((b) => ({ exchange: b.exchange, ts: b.ts + bucketMs - 1, price: b.close }))),
    )

    // merged points: perp volume, volume-weighted close and spot flow per bucket
    const points = g.points('BTC', from, NOW)
    for (const p of points) {
      const cells = ref.bars.filter((b) => b.coin === 'BTC' && b.ts === p.ts)
      const perps = keptCloses(cells.filter((b) => b.marketType === 'perp'))
      const vol = perps.reduce((a, b) => a + b.volume, 0)
      expect(p.perpVolume).toBeCloseTo(vol, 9)
      if (perps.length && vol > 0) expect(p.close).toBeCloseTo(perps.reduce((a, b) => a + b.close * b.volume, 0) / vol, 9)
      if (!perps.length) expect(p.close).toBeNull()
      const spots = cells.filter((b) => b.marketType === 'spot')
      expect(p.spotBuy).toEqual(spots.length ? expect.closeTo(spots.reduce((a, b) => a + b.buyVolume!, 0), 9) : null)
    }
    // every bucket that has a bar is a point
    const barBuckets = new Set(ref.bars.filter((b) => b.coin === 'BTC' && b.ts >= floorTo(from, bucketMs) && b.ts < NOW).map((b) => b.ts))
    for (const ts of barBuckets) expect(points.some((p) => p.ts === ts)).toBe(true)
  })

  it('leaves a venue whose perp close is more than 5 % from the median of the bucket\'s closes out of its point, and names it', () => {
    const series = new CoinSeries()
    const t = floorTo(NOW, MINUTE_MS) - MINUTE_MS
    const mk = (exchange: ExchangeId, close: number, volume: number, marketType: MarketType = 'perp'): MinuteBar => ({
      exchange, coin: 'BTC', marketType, ts: t, open: close, high: close + 1, low: close - 1, close, volume, buyVolume: volume, sellVolume: 0, quoteVolume: close * volume, trades: 1, source: 'trades', noSplitMinutes: 0, klineMinutes: 0, vap: new Map(),
    })
    series.apply({ minuteBars: [mk('binance', 100, 1), mk('bybit', 102, 1), mk('okx', 101, 2), mk('dydx', 130, 4), mk('binance', 100, 3, 'spot')] }, NOW)
    const p = series.minutes.points('BTC', t, t + MINUTE_MS)[0]!
    // closes 100, 101, 102, 130: median (101 + 102) / 2 = 101.5, 5 % of it 5.075; |130 − 101.5| = 28.5: dydx is out
    // close = (100×1 + 102×1 + 101×2) / 4 = 101 (with dydx averaged in it would be (404 + 520) / 8 = 115.5)
    expect(p.close).toBe(101)
    expect([p.perpVolume, p.perpBuy, p.high, p.low, p.vwap]).toEqual([4, 4, 103, 99, (100 + 102 + 202) / 4])
    expect(p.perpExchanges).toEqual(['binance', 'bybit', 'okx'])
    expect(p.perpOutliers).toEqual([{ exchange: 'dydx', price: 130, deviation: 130 / 101.5 - 1 }])
    expect(p.perpMedian).toBe(101.5)
    // spot is not a perp close: untouched
    expect(p.spotBuy).toBe(3)
    // one venue's own point has no one to disagree with
    expect(series.minutes.points('BTC', t, t + MINUTE_MS, 'dydx')[0]).toMatchObject({ close: 130, perpOutliers: [] })
  })

  it('keeps only as many buckets as it was sized for: an older write never replaces a newer bucket', () => {
    const series = new CoinSeries(2 * DAY_MS, 2 * HOUR_MS)
    const r = rng(3)
    const newest = floorTo(NOW, HOUR_MS)
    const capacity = 2 * 24 + 24 + 1
    series.apply({ hourBars: [bar(r, 'BTC', 'okx', 'perp', newest)] }, NOW)
    // the bucket `capacity` hours older lands in the same slot: dropped, the newer one stays
    series.apply({ hourBars: [bar(r, 'BTC', 'okx', 'perp', newest - capacity * HOUR_MS)] }, NOW - capacity * HOUR_MS + HOUR_MS)
    expect(series.hours.marketBars('BTC', 'perp', 0, NOW + HOUR_MS).map((b) => b.ts)).toEqual([newest])
    // and a newer bucket replaces the one `capacity` hours before it
    const later = newest + capacity * HOUR_MS
    series.apply({ hourBars: [bar(r, 'BTC', 'okx', 'perp', later)] }, later)
    expect(series.hours.marketBars('BTC', 'perp', 0, later + HOUR_MS).map((b) => b.ts)).toEqual([later])
    expect(series.hours.points('BTC', 0, later + HOUR_MS).map((p) => p.ts)).toEqual([later])
  })

  it('forgets pruned buckets and no longer claims to cover them', () => {
    const series = new CoinSeries(2 * DAY_MS, 2 * HOUR_MS)
    const r = rng(4)
    const hours = Array.from({ length: 48 }, (_, i) => bar(r, 'BTC', 'binance', 'perp', floorTo(NOW, HOUR_MS) - i * HOUR_MS))
    series.apply({ hourBars: hours, samples: hours.map((h) => sample(r, 'BTC', 'binance', h.ts + 5)) }, NOW)
    series.hours.coveredFrom = floorTo(NOW, HOUR_MS) - 47 * HOUR_MS
    expect(series.hours.covers(NOW - 40 * HOUR_MS, NOW)).toBe(true)
    series.prune(NOW + DAY_MS) // keeps buckets from NOW - 1 day on
    const cut = NOW + DAY_MS - 2 * DAY_MS
    expect(series.hours.covers(NOW - 40 * HOUR_MS, NOW)).toBe(false)
    expect(series.hours.covers(Math.ceil(cut / HOUR_MS) * HOUR_MS, NOW)).toBe(true)
    expect(series.hours.marketBars('BTC', 'perp', 0, NOW + HOUR_MS).every((b) => b.ts >= cut)).toBe(true)
    expect(series.hours.marketBars('BTC', 'perp', 0, NOW + HOUR_MS)).toHaveLength(24)
    expect(series.hours.perpSamples('BTC', 0, NOW + HOUR_MS).every((s) => s.ts >= cut)).toBe(true)
    expect(series.hours.points('BTC', 0, NOW + HOUR_MS).every((p) => p.ts >= cut)).toBe(true)
  })

  it('a minute sample stands for its venue while no older than 5 minutes (the /v1/oi/changes rule), also from before the window; an hour sample two hours on', () => {
    const series = new CoinSeries()
    const r = rng(5)
    const t0 = floorTo(NOW, HOUR_MS) - 3 * HOUR_MS
    const minutes = Array.from({ length: 20 }, (_, i) => bar(r, 'BTC', 'okx', 'perp', t0 + i * MINUTE_MS))
    // a binance sample stamped at t0 + 30 s: it stands for the minutes whose end is at most 5 minutes after it
    const s = { ...sample(r, 'BTC', 'binance', t0 + 30_000), openInterest: 1234 }
    series.apply({ minuteBars: minutes, samples: [s] }, NOW)
    const venuesAt = (from: number) => series.minutes.points('BTC', from, t0 + 20 * MINUTE_MS).map((p) => [(p.ts - t0) / MINUTE_MS, p.venues.oi.binance ?? null])
    const stands = (m: number) => t0 + (m + 1) * MINUTE_MS - s.ts <= 5 * MINUTE_MS
    const expected = (first: number) => Array.from({ length: 20 - first }, (_, i) => [first + i, stands(first + i) ? 1234 : null])
    expect(venuesAt(t0)).toEqual(expected(0))
    // a window starting 2 or 4 minutes after the sample carries it in as old as it is
    expect(venuesAt(t0 + 2 * MINUTE_MS)).toEqual(expected(2))
    expect(venuesAt(t0 + 4 * MINUTE_MS)).toEqual(expected(4))
    expect(expected(0).filter(([, oi]) => oi !== null).map(([m]) => m)).toEqual([0, 1, 2, 3, 4])
    // hours: the sample's own hour and the two after it
    const hours = Array.from({ length: 6 }, (_, i) => bar(r, 'BTC', 'okx', 'perp', t0 - 2 * HOUR_MS + i * HOUR_MS))
    series.apply({ hourBars: hours }, NOW)
    const hourly = (from: number) => series.hours.points('BTC', from, t0 + 4 * HOUR_MS).map((p) => [(p.ts - t0) / HOUR_MS, p.venues.oi.binance ?? null])
    expect(hourly(t0 - 2 * HOUR_MS)).toEqual([[-2, null], [-1, null], [0, 1234], [1, 1234], [2, 1234], [3, null]])
    expect(hourly(t0 + 2 * HOUR_MS)).toEqual([[2, 1234], [3, null]])
  })
})

describe('CoinSeries.load', () => {
  it('reads the store into the series the writes made: through the binary COPY (embedded store) and through query() alike', async () => {
    const db = await openTestStore()
    try {
      const now = Date.now()
      const r = rng(7)
      const bars: MinuteBar[] = []
      const samples: MarketSample[] = []
      for (const coin of ['BTC', 'ETH'])
        for (const exchange of EXCHANGES)
          for (let ts = floorTo(now - 3 * HOUR_MS, MINUTE_MS); ts < now; ts += MINUTE_MS) {
            bars.push(bar(r, coin, exchange, 'perp', ts))
            if (r() < 0.5) samples.push(sample(r, coin, exchange, ts + 1000))
          }
      await writeMinuteBars(db.sql, bars)
      await writeSamples(db.sql, samples)
      expect(db.sql.selectBinary).toBeTypeOf('function')
      const viaCopy = new CoinSeries()
      await viaCopy.load(db, now)
      const viaQuery = new CoinSeries()
      await viaQuery.load({ ...db, sql: { ...db.sql, selectBinary: undefined } }, now)
      const from = now - 4 * HOUR_MS
      for (const coin of ['BTC', 'ETH']) {
        const minuteBars = viaCopy.minutes.marketBars(coin, 'perp', from, now)
        const written = bars.filter((b) => b.coin === coin).sort((a, b) => a.exchange.localeCompare(b.exchange) || a.ts - b.ts)
        expect(minuteBars.map(({ vap: _v, ...b }) => b)).toEqual(written.map(({ vap: _v, ...b }) => b))
        expect(minuteBars).toEqual(viaQuery.minutes.marketBars(coin, 'perp', from, now))
        expect(viaCopy.hours.marketBars(coin, 'perp', from, now)).toEqual(viaQuery.hours.marketBars(coin, 'perp', from, now))
        expect(viaCopy.hours.marketBars(coin, 'perp', from, now).length).toBeGreaterThanOrEqual(3 * EXCHANGES.length)
        expect(viaCopy.minutes.perpSamples(coin, from, now)).toEqual(viaQuery.minutes.perpSamples(coin, from, now))
        expect(viaCopy.minutes.perpSamples(coin, from, now).length).toBe(samples.filter((x) => x.coin === coin).length)
        expect(viaCopy.hours.perpSamples(coin, from, now)).toEqual(viaQuery.hours.perpSamples(coin, from, now))
      }
    } finally {
      await db.close()
    }
  })
})

describe('CoinSeries.load against the live series', () => {
  it('folds an hour\'s samples as the live writes did: a latest sample without OI keeps the hour\'s earlier OI; a minute\'s later sample wins', async () => {
    const db = await openTestStore()
    try {
      const now = Date.now()
      const hour = floorTo(now, HOUR_MS) - 2 * HOUR_MS
      const row = (ts: number, openInterest: number | null, markPrice: number | null): MarketSample => ({
        exchange: 'binance', coin: 'BTC', marketType: 'perp', ts, openInterest, markPrice, fundingRate: 1e-4, fundingIntervalHours: 8, indexPrice: null, lastPrice: null, nextFundingTime: null,
      })
      // written as a restarted live feed writes them: OI known at :10, then a first slot row before any OI event
      // (ticker only) at :59; a minute with a sample at its start and a later one at its end (history's 5-minute sample)
      const written = [row(hour + 10 * MINUTE_MS, 500, 100), row(hour + 59 * MINUTE_MS, null, 101), row(hour + HOUR_MS + 4 * MINUTE_MS, 700, 102), row(hour + HOUR_MS + 5 * MINUTE_MS - 1, null, 103)]
      const live = new CoinSeries()
      for (const w of written) {
        await writeSamples(db.sql, [w])
        live.apply({ samples: [w] }, now)
      }
      const loaded = new CoinSeries()
      await loaded.load(db, now)
      const hours = loaded.hours.perpSamples('BTC', hour, now)
      expect(hours).toEqual(live.hours.perpSamples('BTC', hour, now))
      expect(hours.map((x) => [x.ts, x.oi, x.mark])).toEqual([
        [hour + 59 * MINUTE_MS, 500, 101],
        [hour + HOUR_MS + 5 * MINUTE_MS - 1, 700, 103],
      ])
      expect(loaded.minutes.perpSamples('BTC', hour, now)).toEqual(live.minutes.perpSamples('BTC', hour, now))
    } finally {
      await db.close()
    }
  })
})

describe('CoinSeries.versionBefore', () => {
  const NOW = Date.UTC(2026, 10, 20, 12, 30)
  const HOUR = floorTo(NOW, HOUR_MS)

  it('moves only with changes that touch a bucket before the time asked', () => {
    const r = rng(7)
    const s = new CoinSeries()
    for (let ts = HOUR - 5 * HOUR_MS; ts < NOW; ts += MINUTE_MS) s.apply({ minuteBars: [bar(r, 'BTC', 'binance', 'perp', ts)], hourBars: [{ ...bar(r, 'BTC', 'binance', 'perp', floorTo(ts, HOUR_MS)) }] }, NOW)
    const complete = s.versionBefore(HOUR)
    const all = s.version

    // the live minute and its hour's rollup: the complete hours' version stays
    s.apply({ minuteBars: [bar(r, 'BTC', 'binance', 'perp', NOW)], hourBars: [bar(r, 'BTC', 'binance', 'perp', HOUR)], samples: [sample(r, 'BTC', 'binance', NOW)] }, NOW)
    expect(s.version).toBe(all + 1)
    expect(s.versionBefore(HOUR)).toBe(complete)
    expect(s.versionBefore(NOW + MINUTE_MS)).toBe(s.version)

    // a late sample into a complete hour moves it, and every later time's
    s.apply({ samples: [sample(r, 'BTC', 'okx', HOUR - 2 * HOUR_MS + 17 * MINUTE_MS)] }, NOW)
    expect(s.versionBefore(HOUR)).toBe(s.version)
    expect(s.versionBefore(HOUR - 2 * HOUR_MS)).toBe(complete)
    expect(s.versionBefore(HOUR - 2 * HOUR_MS + 1)).toBe(s.version)
  })

  it('counts a newest bucket moved past a gap as touching the buckets after the old one', () => {
    const r = rng(8)
    const s = new CoinSeries()
    s.apply({ hourBars: [bar(r, 'BTC', 'binance', 'perp', HOUR - 6 * HOUR_MS)] }, NOW)
    const before = s.versionBefore(HOUR)
    // nothing for five hours, then the current hour: reads up to HOUR now reach the hours in between
    s.apply({ hourBars: [bar(r, 'BTC', 'binance', 'perp', HOUR)] }, NOW)
    expect(s.versionBefore(HOUR)).not.toBe(before)
    expect(s.versionBefore(HOUR - 5 * HOUR_MS)).toBe(before)
  })

  it('stays right after many more changes than it remembers one by one', () => {
    const r = rng(9)
    const s = new CoinSeries()
    const history: { version: number; from: number }[] = []
    let ts = HOUR - 20 * HOUR_MS
    for (let i = 0; i < 900; i++) {
      // mostly live minutes moving forward, now and then a late write reaching back
      const at = i % 37 === 0 ? ts - (1 + (i % 5)) * HOUR_MS : (ts += MINUTE_MS)
      s.apply({ minuteBars: [bar(r, 'BTC', 'bybit', 'perp', at)] }, ts)
      history.push({ version: s.version, from: i % 64 === 63 ? Number.NEGATIVE_INFINITY : floorTo(at, HOUR_MS) })
    }
    // the exact answer from the whole history, against what the series says: never older (a cache would serve stale data)
    for (let t = HOUR - 22 * HOUR_MS; t <= ts + HOUR_MS; t += 7 * MINUTE_MS) {
      const exact = Math.max(0, ...history.filter((h) => h.from < t).map((h) => h.version))
      expect(s.versionBefore(t)).toBeGreaterThanOrEqual(exact)
    }
  })
})

describe('CoinSeries with minutes from venue klines', () => {
  it('a minute without a taker split or quote volume is in the volume, not in the flows or the VWAP; its provenance survives the store and a snapshot', async () => {
    const t = floorTo(NOW, MINUTE_MS) - MINUTE_MS
    const traded: MinuteBar = {
      exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: t, open: 100, high: 101, low: 99, close: 100, volume: 3, buyVolume: 2, sellVolume: 1,
      quoteVolume: 300, trades: 4, source: 'trades', noSplitMinutes: 0, klineMinutes: 0, vap: new Map(),
    }
    const kline = klineMinuteBar({ exchange: 'bybit', coin: 'BTC', marketType: 'perp' }, { ts: t, open: 101, high: 102, low: 100, close: 101, volume: 5 })
    const spotKline = klineMinuteBar({ exchange: 'okx', coin: 'BTC', marketType: 'spot' }, { ts: t, open: 101, high: 102, low: 100, close: 101, volume: 7 })
    const check = (s: CoinSeries) => {
      const [p] = s.minutes.points('BTC', t, t + MINUTE_MS)
      expect(p).toMatchObject({ perpVolume: 8, perpBuy: 2, perpSell: 1, vwap: 100, spotBuy: null, spotSell: null, perpExchanges: ['binance', 'bybit'], spotExchanges: [] })
      const bars = s.minutes.marketBars('BTC', 'perp', t, t + MINUTE_MS)
      expect(bars.map(({ vap: _v, ...b }) => b)).toEqual([traded, kline].map(({ vap: _v, ...b }) => b))
    }
    const db = await openTestStore()
    try {
      const written = await writeMinuteBars(db.sql, [traded, kline, spotKline])
      const series = new CoinSeries()
      series.apply(written, NOW)
      check(series)
      const loaded = new CoinSeries()
      await loaded.load(db, NOW)
      check(loaded)
      const restored = new CoinSeries()
      expect(restored.restore(loaded.snapshot()!, NOW)).toBe(true)
      check(restored)
      // the hour: its split over the minute that has one, its minutes counted
      const [hour] = restored.hours.marketBars('BTC', 'perp', floorTo(t, HOUR_MS), NOW).filter((b) => b.exchange === 'bybit')
      expect(hour).toMatchObject({ buyVolume: null, sellVolume: null, quoteVolume: null, trades: null, source: 'venue_kline', noSplitMinutes: 1, klineMinutes: 1 })
    } finally {
      await db.close()
    }
  })
})
