import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../src/domain/time.js'
import { type Bar, type TradeBar } from '../../src/domain/bars.js'
import type { ExchangeId } from '../../src/domain/exchanges.js'
import { buildOhlc, composite, lookbackWindow, resample } from '../../src/analytics/ohlc.js'
import { INTERVALS, INTERVAL_MS } from '../../src/domain/windows.js'

const T0 = Date.UTC(2025, 0, 1) // a UTC midnight, aligned to every interval

function bar(ts: number, open: number, high: number, low: number, close: number, volume: number, extra: Partial<TradeBar> = {}): TradeBar {
  return { ts, open, high, low, close, volume, buyVolume: volume / 2, sellVolume: volume / 2, quoteVolume: volume * close, trades: 1, source: 'trades', noSplitMinutes: 0, klineMinutes: 0, ...extra }
}

const rel = (a: number, b: number, tol = 1e-12) => expect(Math.abs(a - b)).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(b)))

describe('lookbackWindow', () => {
  it('ends at end and reaches back the lookback', () => {
    expect(lookbackWindow('4h', T0)).toEqual({ start: T0 - 4 * HOUR_MS, end: T0 })
  })
})

describe('resample', () => {
  it('folds minutes into 5m buckets by hand', () => {
    const m = MINUTE_MS
    const minutes = [
      bar(T0 + 0 * m, 100, 102, 99, 101, 2, { buyVolume: 1.5, sellVolume: 0.5, trades: 3 }),
      bar(T0 + 1 * m, 101, 105, 100, 104, 1, { buyVolume: 1, sellVolume: 0, trades: 2 }),
      bar(T0 + 4 * m, 104, 104, 97, 98, 3, { buyVolume: 0, sellVolume: 3, trades: 5 }),
      // minute 5 starts the next bucket; minutes 6..9 are empty
      bar(T0 + 5 * m, 98, 99, 98, 99, 1, { trades: 1 }),
      // 10..14 empty: no candle; minute 15 is the third candle
      bar(T0 + 15 * m, 90, 91, 89, 90, 4, { trades: 7 }),
    ]
    const out = resample(minutes, INTERVAL_MS['5m'])
    expect(out.map((b) => b.ts)).toEqual([T0, T0 + 5 * m, T0 + 15 * m])
    // bucket T0: open = first open 100, close = last close 98, high = max(102,105,104) = 105, low = min(99,100,97) = 97
    // volume 2+1+3 = 6, buy 1.5+1+0 = 2.5, sell 0.5+0+3 = 3.5, trades 3+2+5 = 10
    expect(out[0]).toMatchObject({ open: 100, high: 105, low: 97, close: 98, volume: 6, buyVolume: 2.5, sellVolume: 3.5, trades: 10 })
    // quote volume 2×101 + 1×104 + 3×98 = 202 + 104 + 294 = 600
    expect(out[0]!.quoteVolume).toBe(600)
    expect(out[1]).toMatchObject({ open: 98, high: 99, low: 98, close: 99, volume: 1, trades: 1 })
  })

  it('sorts its input and ignores order', () => {
    const a = bar(T0, 10, 11, 9, 10.5, 1)
    const b = bar(T0 + MINUTE_MS, 10.5, 12, 10, 11, 1)
    expect(resample([b, a], HOUR_MS)).toEqual(resample([a, b], HOUR_MS))
    expect(resample([b, a], HOUR_MS)[0]).toMatchObject({ open: 10, close: 11, high: 12, low: 9 })
  })

  it('keeps buckets whose open time is in [start, end) and minutes before end', () => {
    // minutes every 15 min from T0 - 1h to T0 + 2h
    const minutes: Bar[] = []
    for (let t = T0 - HOUR_MS; t < T0 + 2 * HOUR_MS; t += 15 * MINUTE_MS) minutes.push(bar(t, 1, 1, 1, 1, 1))
    // window [T0 - 30 min, T0 + 90 min): bucket T0 - 1h opens before start -> left out (never a partial first candle);
    // bucket T0 full (4 minutes); bucket T0 + 1h opens inside, only minutes +60 and +75 (< +90) count
    const out = resample(minutes, HOUR_MS, { start: T0 - 30 * MINUTE_MS, end: T0 + 90 * MINUTE_MS })
    expect(out.map((b) => [b.ts, b.volume])).toEqual([
      [T0, 4],
      [T0 + HOUR_MS, 2],
    ])
  })

  it('returns nothing for empty input, and drops unusable bars so NaN never escapes', () => {
    expect(resample([], HOUR_MS)).toEqual([])
    const good = bar(T0, 10, 11, 9, 10, 1)
    const bad = [
      bar(T0 + MINUTE_MS, NaN, 11, 9, 10, 1),
      bar(T0 + 2 * MINUTE_MS, 10, 11, 9, 10, NaN),
      bar(T0 + 3 * MINUTE_MS, 10, 11, 0, 10, 1),
      bar(T0 + 4 * MINUTE_MS, 10, Infinity, 9, 10, 1),
      bar(NaN, 10, 11, 9, 10, 1),
      bar(T0 + 5 * MINUTE_MS, 10, 11, 9, 10, -1),
    ]
    expect(resample([good, ...bad], HOUR_MS)).toEqual([{ ...good }])
    expect(() => resample([good], 0)).toThrow(RangeError)
  })

  it('keeps a zero-volume minute as a candle (a bucket is empty only without bars)', () => {
    const out = resample([bar(T0, 5, 5, 5, 5, 0, { trades: 0, buyVolume: 0, sellVolume: 0 })], HOUR_MS)
    expect(out).toHaveLength(1)
    expect(out[0]).toMatchObject({ open: 5, close: 5, volume: 0, trades: 0 })
  })
})

describe('composite', () => {
  it('volume-weights prices and sums volumes by hand', () => {
    const c = composite({
      binance: [bar(T0, 100, 104, 98, 102, 1, { trades: 10, buyVolume: 1, sellVolume: 0 })],
      okx: [bar(T0, 110, 112, 106, 108, 3, { trades: 5, buyVolume: 1, sellVolume: 2 })],
    })
    expect(c.exchanges).toEqual(['binance', 'okx'])
    const b = c.bars[0]!
    // open  = (100×1 + 110×3) / 4 = 430 / 4 = 107.5
    // high  = (104×1 + 112×3) / 4 = 440 / 4 = 110
    // low   = ( 98×1 + 106×3) / 4 = 416 / 4 = 104
    // close = (102×1 + 108×3) / 4 = 426 / 4 = 106.5
    expect(b).toMatchObject({ ts: T0, open: 107.5, high: 110, low: 104, close: 106.5 })
    // volume 1 + 3 = 4, buy 1 + 1 = 2, sell 0 + 2 = 2, trades 10 + 5 = 15
    expect(b).toMatchObject({ volume: 4, buyVolume: 2, sellVolume: 2, trades: 15, exchanges: ['binance', 'okx'] })
  })

  it('prices only from exchanges that traded; plain mean when nobody traded', () => {
    const c = composite({
      binance: [bar(T0, 100, 100, 100, 100, 2), bar(T0 + HOUR_MS, 100, 100, 100, 100, 0, { trades: 0 })],
      bybit: [bar(T0, 200, 200, 200, 200, 0, { trades: 0 }), bar(T0 + HOUR_MS, 110, 110, 110, 110, 0, { trades: 0 })],
    })
    // bucket T0: bybit has volume 0, so the price is binance's alone: 100×2 / 2 = 100
    expect(c.bars[0]).toMatchObject({ open: 100, close: 100, volume: 2, exchanges: ['binance'] })
    // bucket T0+1h: total volume 0, plain mean (100 + 110) / 2 = 105
    expect(c.bars[1]).toMatchObject({ open: 105, high: 105, low: 105, close: 105, volume: 0, exchanges: ['binance', 'bybit'] })
  })

  it('handles missing venues per bucket and empty input', () => {
    expect(composite({})).toEqual({ exchanges: [], bars: [], outliers: [] })
    expect(composite({ dydx: [] })).toEqual({ exchanges: [], bars: [], outliers: [] })
    const c = composite({ binance: [bar(T0, 10, 10, 10, 10, 1)], dydx: [bar(T0 + HOUR_MS, 20, 20, 20, 20, 1)] })
    expect(c.exchanges).toEqual(['binance', 'dydx'])
    expect(c.bars.map((b) => [b.ts, b.close, b.exchanges])).toEqual([
      [T0, 10, ['binance']],
      [T0 + HOUR_MS, 20, ['dydx']],
    ])
  })

  it('leaves a venue whose close is more than 5 % from the median of the candle\'s closes out of that candle, and names it', () => {
    const flat = (ts: number, p: number, v: number) => bar(ts, p, p, p, p, v)
    const c = composite({
      binance: [flat(T0, 100, 1), flat(T0 + HOUR_MS, 100, 1), flat(T0 + 2 * HOUR_MS, 100, 1), flat(T0 + 3 * HOUR_MS, 100, 1)],
      bybit: [flat(T0, 101, 1), flat(T0 + HOUR_MS, 101, 1), flat(T0 + 3 * HOUR_MS, 200, 1)],
      okx: [flat(T0, 102, 2), flat(T0 + 2 * HOUR_MS, 100, 1), flat(T0 + 3 * HOUR_MS, 105, 1)],
      hyperliquid: [flat(T0, 120, 1), flat(T0 + HOUR_MS, 101.5, 1), flat(T0 + 2 * HOUR_MS, 90, 1)],
    })
    // T0: closes 100, 101, 102, 120; median (101 + 102) / 2 = 101.5, 5 % of it 5.075; |120 − 101.5| = 18.5 > 5.075:
    // hyperliquid is out; close (100×1 + 101×1 + 102×2) / 4 = 101.25 (averaged in, it would be 525 / 5 = 105); volume 4
    expect(c.bars[0]).toMatchObject({ close: 101.25, open: 101.25, volume: 4, trades: 3, exchanges: ['binance', 'bybit', 'okx'], median: 101.5 })
    expect(c.bars[0]!.outliers).toEqual([{ exchange: 'hyperliquid', price: 120, deviation: 120 / 101.5 - 1 }])
    // T0+1h: 100, 101, 101.5, median 101: nobody beyond 5.05
    expect(c.bars[1]).toMatchObject({ close: (100 + 101 + 101.5) / 3, exchanges: ['binance', 'bybit', 'hyperliquid'], outliers: [] })
    // T0+2h: 100, 100, 90, median 100: |90 − 100| = 10 > 5
    expect(c.bars[2]).toMatchObject({ close: 100, volume: 2, exchanges: ['binance', 'okx'] })
    expect(c.bars[2]!.outliers.map((o) => [o.exchange, o.deviation])).toEqual([['hyperliquid', expect.closeTo(-0.1, 12)]])
    // T0+3h: 100, 200, 105, median 105: |200 − 105| = 95 > 5.25 out; |100 − 105| = 5 = 5.25? no, 5 < 5.25: kept
    expect(c.bars[3]).toMatchObject({ close: 102.5, exchanges: ['binance', 'okx'] })
    expect(c.bars[3]!.outliers.map((o) => o.exchange)).toEqual(['bybit'])
    // every venue entered some candle; hyperliquid was set aside in 2 (its furthest: +18.2 % at T0), bybit in 1
    expect(c.exchanges).toEqual(['binance', 'bybit', 'okx', 'hyperliquid'])
    expect(c.outliers).toEqual([
      { exchange: 'bybit', buckets: 1, firstTs: T0 + 3 * HOUR_MS, lastTs: T0 + 3 * HOUR_MS, worst: { exchange: 'bybit', price: 200, deviation: 200 / 105 - 1, median: 105, ts: T0 + 3 * HOUR_MS } },
      { exchange: 'hyperliquid', buckets: 2, firstTs: T0, lastTs: T0 + 2 * HOUR_MS, worst: { exchange: 'hyperliquid', price: 120, deviation: 120 / 101.5 - 1, median: 101.5, ts: T0 } },
    ])
  })

  it('sets nothing aside at exactly 5 % or with fewer than 3 venues', () => {
    const flat = (p: number) => bar(T0, p, p, p, p, 1)
    // median 100, 105 is exactly 5 % away: kept
    expect(composite({ binance: [flat(100)], bybit: [flat(100)], okx: [flat(105)] }).bars[0]).toMatchObject({ close: 305 / 3, outliers: [] })
    // two venues: no majority to say which one is off; both averaged
    expect(composite({ binance: [flat(100)], okx: [flat(200)] }).bars[0]).toMatchObject({ close: 150, outliers: [], median: null })
  })

  it('a bucket whose venues all disagree (two pairs far apart: every close 33 % from the median 150) has no candle; all are named', () => {
    const flat = (ts: number, p: number) => bar(ts, p, p, p, p, 1)
    const c = composite({ binance: [flat(T0, 100), flat(T0 + HOUR_MS, 100)], bybit: [flat(T0, 100)], okx: [flat(T0, 200)], dydx: [flat(T0, 200), flat(T0 + HOUR_MS, 101)] })
    expect(c.bars.map((b) => [b.ts, b.close, b.exchanges])).toEqual([[T0 + HOUR_MS, 100.5, ['binance', 'dydx']]])
    expect(c.outliers.map((o) => [o.exchange, o.buckets, o.worst.median])).toEqual([['binance', 1, 150], ['bybit', 1, 150], ['okx', 1, 150], ['dydx', 1, 150]])
  })

  it('drops NaN bars rather than poisoning the bucket', () => {
    const c = composite({ binance: [bar(T0, 10, 10, 10, 10, 1)], okx: [bar(T0, NaN, 10, 10, 10, 1)] })
    expect(c.bars[0]).toMatchObject({ open: 10, volume: 1, exchanges: ['binance'] })
  })
})

describe('buildOhlc', () => {
  const minutes = [bar(T0 - 2 * HOUR_MS, 1, 1, 1, 1, 1), bar(T0 - 30 * MINUTE_MS, 2, 3, 1, 2, 1), bar(T0 - MINUTE_MS, 2, 2, 2, 2, 1)]

  it('builds one exchange over [end - lookback, end)', () => {
    const p = buildOhlc({ coin: 'BTC', marketType: 'perp', interval: '1h', lookback: '1h', end: T0, exchange: 'okx', minutesByExchange: { okx: minutes } })
    // window [T0 - 1h, T0): the T0 - 2h minute is outside; the two others fold into bucket T0 - 1h
    expect(p).toEqual({
      coin: 'BTC', exchange: 'okx', exchanges: ['okx'], interval: '1h', lookback: '1h', marketType: 'perp',
      candles: [{ ts: T0 - HOUR_MS, open: 2, high: 3, low: 1, close: 2, volume: 2, buyVolume: 1, sellVolume: 1, trades: 2, source: 'trades', noSplitMinutes: 0, klineMinutes: 0 }],
      outliers: [],
    })
  })

  it('names no exchanges when the named one has no data', () => {
    const p = buildOhlc({ coin: 'BTC', marketType: 'spot', interval: '1h', lookback: '24h', end: T0, exchange: 'bybit', minutesByExchange: {} })
    expect(p.exchanges).toEqual([])
    expect(p.candles).toEqual([])
  })

  it('builds a composite when no exchange is named', () => {
    const p = buildOhlc({ coin: 'BTC', marketType: 'perp', interval: '1h', lookback: '1h', end: T0, minutesByExchange: { okx: minutes, binance: minutes } })
    expect(p.exchange).toBe('composite')
    expect(p.exchanges).toEqual(['binance', 'okx'])
    expect(p.candles[0]).toMatchObject({ ts: T0 - HOUR_MS, open: 2, volume: 4, trades: 4, exchanges: ['binance', 'okx'] })
    expect(p.candles[0]).not.toHaveProperty('quoteVolume')
  })

  it('a composite candle names the venues left out of it as outliers; one exchange has none', () => {
    const at = (p: number) => [bar(T0 - 30 * MINUTE_MS, p, p, p, p, 1)]
    const p = buildOhlc({ coin: 'BTC', marketType: 'perp', interval: '1h', lookback: '1h', end: T0, minutesByExchange: { binance: at(100), okx: at(101), dydx: at(150) } })
    // median 101: dydx's 150 is 48.5 % off; the candle is (100 + 101) / 2
    expect(p.candles).toEqual([{ ts: T0 - HOUR_MS, open: 100.5, high: 100.5, low: 100.5, close: 100.5, volume: 2, buyVolume: 1, sellVolume: 1, trades: 2, source: 'trades', noSplitMinutes: 0, klineMinutes: 0, exchanges: ['binance', 'okx'], outliers: ['dydx'] }])
    expect(p.exchanges).toEqual(['binance', 'okx'])
    expect(p.outliers.map((o) => [o.exchange, o.buckets])).toEqual([['dydx', 1]])
  })

  it('refuses an interval longer than the lookback', () => {
    expect(() => buildOhlc({ coin: 'BTC', marketType: 'perp', interval: '1d', lookback: '4h', end: T0, minutesByExchange: {} })).toThrow(RangeError)
  })
})

// ---- properties ----
// Volumes are integers so sums are exact whatever the grouping, and equality can be bit-for-bit.
const arbMinuteBar = (ts: number) =>
  fc
    .record({
      open: fc.integer({ min: 100, max: 100_000 }),
      close: fc.integer({ min: 100, max: 100_000 }),
      up: fc.integer({ min: 0, max: 500 }),
      down: fc.integer({ min: 0, max: 99 }),
      buy: fc.integer({ min: 0, max: 1000 }),
      sell: fc.integer({ min: 0, max: 1000 }),
      quote: fc.integer({ min: 0, max: 1_000_000 }),
      trades: fc.integer({ min: 0, max: 50 }),
    })
    .map(
      (r): TradeBar => ({
        ts,
        open: r.open / 100,
        close: r.close / 100,
        high: (Math.max(r.open, r.close) + r.up) / 100,
        low: (Math.min(r.open, r.close) - r.down) / 100,
        volume: r.buy + r.sell,
        buyVolume: r.buy,
        sellVolume: r.sell,
        quoteVolume: r.quote,
        trades: r.trades,
        source: 'trades',
        noSplitMinutes: 0,
        klineMinutes: 0,
      }),
    )

const SPAN_MIN = 3 * 1440
// dense runs (2 h span) as well as sparse ones (3 days), so buckets get both many minutes and gaps
const arbMinutes = fc
  .constantFrom(120, 1440, SPAN_MIN)
  .chain((span) => fc.uniqueArray(fc.integer({ min: 0, max: span - 1 }), { maxLength: 300, size: 'max' }))
  .chain((offsets) => (offsets.length === 0 ? fc.constant([] as TradeBar[]) : fc.tuple(...offsets.map((o) => arbMinuteBar(T0 + o * MINUTE_MS)))))

const arbWindow = fc
  .tuple(fc.integer({ min: -HOUR_MS, max: SPAN_MIN * MINUTE_MS }), fc.integer({ min: 0, max: SPAN_MIN * MINUTE_MS }))
  .map(([s, len]) => ({ start: T0 + s, end: T0 + s + len }))

function fold(minutes: readonly TradeBar[]): Omit<Bar, 'ts'> {
  const s = [...minutes].sort((a, b) => a.ts - b.ts)
  return {
    open: s[0]!.open,
    close: s[s.length - 1]!.close,
    high: Math.max(...s.map((b) => b.high)),
    low: Math.min(...s.map((b) => b.low)),
    volume: s.reduce((a, b) => a + b.volume, 0),
    buyVolume: s.reduce((a, b) => a + b.buyVolume, 0),
    sellVolume: s.reduce((a, b) => a + b.sellVolume, 0),
    quoteVolume: s.reduce((a, b) => a + b.quoteVolume, 0),
    trades: s.reduce((a, b) => a + b.trades, 0),
    source: 'trades',
    noSplitMinutes: 0,
    klineMinutes: 0,
  }
}

describe('properties', () => {
  it('1m -> 1h: each bucket equals the fold of its minutes', () => {
    fc.assert(
      fc.property(arbMinutes, (minutes) => {
        const hours = resample([...minutes].reverse(), HOUR_MS)
        const tss = new Set(minutes.map((b) => Math.floor(b.ts / HOUR_MS) * HOUR_MS))
        expect(hours.map((h) => h.ts)).toEqual([...tss].sort((a, b) => a - b))
        for (const h of hours) {
          const inside = minutes.filter((b) => b.ts >= h.ts && b.ts < h.ts + HOUR_MS)
          expect({ ...h, ts: 0 }).toEqual({ ...fold(inside), ts: 0 })
        }
      }),
      { numRuns: 150 },
    )
  })

  it('resample(resample(x, 5m), 1h) == resample(x, 1h), and the same through 15m, 4h, 1d, over any window', () => {
    fc.assert(
      fc.property(arbMinutes, arbWindow, (minutes, w) => {
        expect(resample(resample(minutes, INTERVAL_MS['5m'], w), HOUR_MS, w)).toEqual(resample(minutes, HOUR_MS, w))
        expect(resample(resample(minutes, INTERVAL_MS['15m'], w), INTERVAL_MS['4h'], w)).toEqual(resample(minutes, INTERVAL_MS['4h'], w))
        expect(resample(resample(minutes, HOUR_MS, w), DAY_MS, w)).toEqual(resample(minutes, DAY_MS, w))
      }),
      { numRuns: 150 },
    )
  })

  it('every candle lies in the window, is aligned, and keeps low <= open, close <= high', () => {
    fc.assert(
      fc.property(arbMinutes, arbWindow, fc.constantFrom(...INTERVALS), (minutes, w, iv) => {
        const ms = INTERVAL_MS[iv]
        for (const c of resample(minutes, ms, w)) {
          expect(c.ts % ms).toBe(0)
          expect(c.ts).toBeGreaterThanOrEqual(w.start)
          expect(c.ts).toBeLessThan(w.end)
          expect(c.low).toBeLessThanOrEqual(Math.min(c.open, c.close))
          expect(c.high).toBeGreaterThanOrEqual(Math.max(c.open, c.close))
        }
      }),
      { numRuns: 100 },
    )
  })

  const venues: ExchangeId[] = ['binance', 'bybit', 'okx', 'hyperliquid', 'dydx']
  const arbSeriesByExchange = fc
    .tuple(...venues.map(() => fc.option(arbMinutes, { nil: undefined })))
    .map((list) => {
      const o: Partial<Record<ExchangeId, Bar[]>> = {}
      list.forEach((s, i) => {
        if (s) o[venues[i]!] = resample(s, HOUR_MS)
      })
      return o
    })

  it('composite volume, buy/sell volume and trades = Σ over exchanges, per bucket and in total', () => {
    fc.assert(
      fc.property(arbSeriesByExchange, (byEx) => {
        const c = composite(byEx)
        const all = Object.values(byEx).flat()
        const aside = (b: (typeof c.bars)[number]) => b.outliers.map((o) => o.exchange)
        for (const b of c.bars) {
          // every venue with a bar here except those set aside as outliers
          const here = Object.entries(byEx).flatMap(([e, bars]) => (aside(b).includes(e as ExchangeId) ? [] : bars!.filter((x) => x.ts === b.ts)))
          expect(b.volume).toBe(here.reduce((a, x) => a + x.volume, 0))
          expect(b.buyVolume).toBe(here.reduce((a, x) => a + x.buyVolume!, 0))
          expect(b.sellVolume).toBe(here.reduce((a, x) => a + x.sellVolume!, 0))
          expect(b.trades).toBe(here.reduce((a, x) => a + x.trades!, 0))
          // same weights for every price, so the candle stays consistent
          expect(b.low).toBeLessThanOrEqual(Math.min(b.open, b.close) * (1 + 1e-12))
          expect(b.high).toBeGreaterThanOrEqual(Math.max(b.open, b.close) * (1 - 1e-12))
        }
        // and the volume set aside is the outliers' bars' volume; a bucket without a candle had every venue set aside
        const setAside = c.bars.reduce((a, b) => a + aside(b).reduce((v, e) => v + byEx[e]!.find((x) => x.ts === b.ts)!.volume, 0), 0)
        const shown = new Set(c.bars.map((b) => b.ts))
        const dropped = all.filter((x) => !shown.has(x.ts))
        for (const x of dropped) {
          const venues = Object.entries(byEx).filter(([, bars]) => bars!.some((y) => y.ts === x.ts)).map(([e]) => e)
          // an even count split in two: at least 4 venues, every one named as an outlier over that time
          expect(venues.length).toBeGreaterThanOrEqual(4)
          for (const e of venues) expect(c.outliers.find((o) => o.exchange === e && o.firstTs <= x.ts && o.lastTs >= x.ts), e).toBeDefined()
        }
        expect(c.bars.reduce((a, b) => a + b.volume, 0) + setAside + dropped.reduce((a, x) => a + x.volume, 0)).toBe(all.reduce((a, x) => a + x.volume, 0))
      }),
      { numRuns: 100 },
    )
  })

  it('composite of a single exchange = that exchange', () => {
    fc.assert(
      fc.property(arbMinutes, fc.constantFrom(...venues), (minutes, ex) => {
        const series = resample(minutes, HOUR_MS)
        const c = composite({ [ex]: series })
        expect(c.exchanges).toEqual(series.length > 0 ? [ex] : [])
        expect(c.bars).toHaveLength(series.length)
        c.bars.forEach((b, i) => {
          const s = series[i]!
          const { open, high, low, close, exchanges, outliers, median, ...rest } = b
          expect([outliers, median]).toEqual([[], null])
          const { open: so, high: sh, low: sl, close: sc, ...srest } = s
          expect(rest).toEqual(srest)
          expect(exchanges).toEqual([ex])
          // Σ(p×v)/Σv with one term can differ from p by one rounding step
          rel(open, so)
          rel(high, sh)
          rel(low, sl)
          rel(close, sc)
        })
      }),
      { numRuns: 100 },
    )
  })
})
