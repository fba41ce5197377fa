import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { BookLevel } from '../../src/domain/books.js'
import { IMBALANCE_BANDS_PCT, IMBALANCE_MAX_BOOK_AGE_MS, aggregateBands, bookImbalance, buildImbalance, type BandDepth } from '../../src/analytics/imbalance.js'

const T0 = Date.UTC(2025, 0, 5)
const L = (price: number, size: number): BookLevel => ({ price, size })

/** both sides sent whole: every band is reached */
const WHOLE = { bidEnd: null, askEnd: null }
// bids desc, asks asc
const BOOK = {
  bids: [L(100, 2), L(99.6, 1), L(99, 1), L(97, 3)],
  asks: [L(100.2, 1), L(100.5, 2), L(101.5, 1), L(104, 1)],
  ...WHOLE,
}

const close = (a: number | null, b: number) => expect(a).toBeCloseTo(b, 9)

describe('bookImbalance', () => {
  it('constants', () => {
    expect(IMBALANCE_BANDS_PCT).toEqual([0.5, 1, 2, 5])
    expect(IMBALANCE_MAX_BOOK_AGE_MS).toBe(60_000)
  })

  it('depth per band by hand', () => {
    const r = bookImbalance(BOOK)
    // mid = (100 + 100.2) / 2 = 100.1
    expect(r).toMatchObject({ bestBid: 100, bestAsk: 100.2, reason: null })
    close(r.mid, 100.1)
    const [b05, b1, b2, b5] = r.bands!
    // 0.5 %: bids >= 100.1 × 0.995 = 99.5995 -> 100×2 + 99.6×1 = 299.6; asks <= 100.1 × 1.005 = 100.6005 -> 100.2×1 + 100.5×2 = 301.2
    expect(b05!.bandPct).toBe(0.5)
    close(b05!.bidDepthUsd, 299.6)
    close(b05!.askDepthUsd, 301.2)
    close(b05!.ratio, 299.6 / 301.2)
    // 1 %: bids >= 99.099 (99 is below) -> 299.6; asks <= 101.101 -> 301.2
    close(b1!.bidDepthUsd, 299.6)
    close(b1!.askDepthUsd, 301.2)
    // 2 %: bids >= 98.098 -> + 99×1 = 398.6; asks <= 102.102 -> + 101.5×1 = 402.7
    close(b2!.bidDepthUsd, 398.6)
    close(b2!.askDepthUsd, 402.7)
    // 5 %: bids >= 95.095 -> + 97×3 = 689.6; asks <= 105.105 -> + 104×1 = 506.7; ratio 689.6 / 506.7 = 1.3609...
    close(b5!.bidDepthUsd, 689.6)
    close(b5!.askDepthUsd, 506.7)
    close(b5!.ratio, 689.6 / 506.7)
  })

  it('does not depend on level order', () => {
    expect(bookImbalance({ ...BOOK, bids: [...BOOK.bids].reverse(), asks: [...BOOK.asks].reverse() })).toEqual(bookImbalance(BOOK))
  })

  it('ratio is null when no ask sits inside the band (wide book)', () => {
    // mid 100; 0.5 % band reaches 99.5..100.5, 1 % 99..101; both levels are 10 away
    const r = bookImbalance({ bids: [L(90, 1)], asks: [L(110, 1)], ...WHOLE })
    expect(r.bands![0]).toEqual({ bandPct: 0.5, bidDepthUsd: 0, askDepthUsd: 0, ratio: null, source: 'book', granularityPct: 0, reason: null })
    // 5 %: 95..105 still empty; a ratio of 0 needs ask depth and no bid depth
    expect(r.bands![3]!.ratio).toBeNull()
    const oneSided = bookImbalance({ bids: [L(90, 1), L(99.9, 0.000001)], asks: [L(100.1, 1)], ...WHOLE })
    expect(oneSided.bands![3]!.ratio).toBeCloseTo((99.9 * 0.000001) / 100.1, 12)
  })

  it('empty sides, crossed books and bad levels give null bands with a reason', () => {
    expect(bookImbalance({ bids: [], asks: [], ...WHOLE })).toMatchObject({ mid: null, bands: null, reason: 'no bids' })
    expect(bookImbalance({ bids: [L(1, 1)], asks: [], ...WHOLE })).toMatchObject({ mid: null, bands: null, reason: 'no asks' })
    expect(bookImbalance({ bids: [L(101, 1)], asks: [L(100, 1)], ...WHOLE })).toMatchObject({ bands: null, reason: 'crossed book (best bid above best ask)' })
    // NaN, zero and negative levels are ignored, leaving no bids
    expect(bookImbalance({ bids: [L(NaN, 1), L(100, NaN), L(100, 0), L(-1, 5)], asks: [L(101, 1)], ...WHOLE }).reason).toBe('no bids')
    // a locked book (bid = ask) is allowed
    expect(bookImbalance({ bids: [L(100, 1)], asks: [L(100, 1)], ...WHOLE }).bands![0]!.ratio).toBe(1)
  })

  it('a band the book does not reach is null with the reason; reach is reported per side', () => {
    // deepest bid sent 99 (1.1 % below mid 100.1), deepest ask 101.5 (1.4 % above): the 2 % and 5 % bands are not reached
    const r = bookImbalance({ ...BOOK, bids: BOOK.bids.slice(0, 3), asks: BOOK.asks.slice(0, 3), bidEnd: 99, askEnd: 101.5 })
    close(r.bidReachPct, ((100.1 - 99) / 100.1) * 100)
    close(r.askReachPct, ((101.5 - 100.1) / 100.1) * 100)
    expect(r.bands!.map((b) => b.bidDepthUsd === null)).toEqual([false, false, true, true])
    close(r.bands![1]!.bidDepthUsd, 299.6)
    expect(r.bands![2]).toMatchObject({ bandPct: 2, bidDepthUsd: null, askDepthUsd: null, ratio: null, source: null })
    expect(r.bands![2]!.reason).toBe("the venue's book reaches bids to -1.1 % and asks to +1.4 % of mid, short of ±2 %")
    // one side whole, the other short: only the short side is named
    const oneSide = bookImbalance({ ...BOOK, bidEnd: null, askEnd: 101.5 })
    expect(oneSide.bidReachPct).toBeNull()
    expect(oneSide.bands![2]!.reason).toBe("the venue's book reaches asks to +1.4 % of mid, short of ±2 %")
    // a side ending exactly on the band edge reaches it
    const edge = bookImbalance({ ...BOOK, bidEnd: 100.1 * (1 - 0.02), askEnd: 100.1 * (1 + 0.02) })
    expect(edge.bands![2]!.bidDepthUsd).not.toBeNull()
  })

  it('wide snapshots: each band is measured on the finest one that reaches it, with the main mid', () => {
    const coarse = { source: 'nSigFigs=3', ts: T0, granularity: 1, bids: [L(100, 3), L(99, 1), L(95, 5)], asks: [L(101, 3), L(104, 2), L(106, 1)], bidEnd: 95, askEnd: 106 }
    const finer = { source: 'nSigFigs=4', ts: T0, granularity: 0.1, bids: [L(100, 2), L(99.6, 1), L(98.5, 1)], asks: [L(100.2, 1), L(100.5, 2), L(101.8, 1)], bidEnd: 98.5, askEnd: 101.8 }
    const main = { bids: [L(100, 2), L(99.6, 1), L(99.5, 1)], asks: [L(100.2, 1), L(100.5, 2), L(100.7, 1)], bidEnd: 99.5, askEnd: 100.7 }
    const r = bookImbalance({ ...main, wide: [coarse, finer] }, IMBALANCE_BANDS_PCT, (ts) => ts >= T0)
    // mid 100.1: 0.5 % edges 99.5995 / 100.6005 -> the main book reaches both; 1 % (99.099 / 101.101) it does not
    expect(r.bands!.map((b) => b.source)).toEqual(['book', 'nSigFigs=4', 'nSigFigs=3', 'nSigFigs=3'])
    // 1 %: finer book, bids >= 99.099 -> 100×2 + 99.6×1 = 299.6, asks <= 101.101 -> 100.2 + 100.5×2 = 301.2
    close(r.bands![1]!.bidDepthUsd, 299.6)
    close(r.bands![1]!.askDepthUsd, 301.2)
    close(r.bands![1]!.granularityPct, (0.1 / 100.1) * 100)
    // 5 %: coarse book, bids >= 95.095 -> 300 + 99 = 399 (95 is below), asks <= 105.105 -> 303 + 208 = 511
    close(r.bands![3]!.bidDepthUsd, 399)
    close(r.bands![3]!.askDepthUsd, 511)
    close(r.bands![3]!.granularityPct, (1 / 100.1) * 100)
    // a stale wide snapshot is not used: the band becomes null and says so
    const stale = bookImbalance({ ...main, wide: [{ ...coarse, ts: T0 - 1 }] }, IMBALANCE_BANDS_PCT, (ts) => ts >= T0)
    expect(stale.bands![3]!.bidDepthUsd).toBeNull()
    expect(stale.bands![3]!.reason).toMatch(/1 wider snapshot\(s\) older than 60 s set aside/)
  })

  it('a stored snapshot without its reach has null bands with the reason', () => {
    const r = bookImbalance({ ...BOOK, reachKnown: false })
    expect(r.mid).toBeCloseTo(100.1, 9)
    expect(r.bands!.every((b) => b.bidDepthUsd === null && /without its reach/.test(b.reason!))).toBe(true)
  })
})

describe('aggregateBands', () => {
  const band = (bidDepthUsd: number | null, askDepthUsd: number | null): BandDepth => ({ bandPct: 0.5, bidDepthUsd, askDepthUsd, ratio: null, source: 'book', granularityPct: 0, reason: bidDepthUsd === null ? 'short' : null })
  it('sums depths then takes the ratio (not a mean of ratios), over the venues that reach the band, naming them', () => {
    // (100 + 300) / (300 + 100) = 1, whereas the mean of ratios would be (1/3 + 3) / 2 = 1.667
    expect(aggregateBands([{ exchange: 'binance', bands: [band(100, 300)] }, { exchange: 'okx', bands: [band(300, 100)] }, { exchange: 'bybit', bands: [band(null, null)] }], [0.5])).toEqual([
      { bandPct: 0.5, bidDepthUsd: 400, askDepthUsd: 400, ratio: 1, exchanges: ['binance', 'okx'], excluded: [{ exchange: 'bybit', reason: 'short' }], reason: null },
    ])
    expect(aggregateBands([{ exchange: 'bybit', bands: [band(null, null)] }], [0.5])[0]).toMatchObject({ bidDepthUsd: null, ratio: null, exchanges: [], reason: 'no fresh, valid book reaches ±0.5 %' })
  })
})

describe('buildImbalance', () => {
  it('per exchange and aggregated; stale and invalid books stay out of the aggregate', () => {
    const now = T0
    const r = buildImbalance({
      coin: 'BTC',
      now,
      books: [
        { exchange: 'okx', ts: now - 1_000, bids: [L(100, 1)], asks: [L(100.2, 2)], ...WHOLE },
        { exchange: 'binance', ts: now - 2_000, bids: [L(50, 1)], asks: [L(50.05, 1)], ...WHOLE },
        { exchange: 'binance', ts: now - 500, ...BOOK }, // newer: replaces the one above
        { exchange: 'bybit', ts: now - IMBALANCE_MAX_BOOK_AGE_MS - 1, ...BOOK }, // stale
        { exchange: 'dydx', ts: now, bids: [], asks: [L(1, 1)], ...WHOLE }, // invalid
        { exchange: 'hyperliquid', ts: now, ...BOOK, bidEnd: 99.5, askEnd: 100.7 }, // reaches only ±0.5 %
      ],
    })
    expect(r.exchanges.map((e) => [e.exchange, e.stale, e.reason])).toEqual([
      ['binance', false, null],
      ['bybit', true, null],
      ['okx', false, null],
      ['hyperliquid', false, null],
      ['dydx', false, 'no bids'],
    ])
    expect(r.aggregate.exchanges).toEqual(['binance', 'okx', 'hyperliquid'])
    // okx: mid 100.1, 0.5 % band: bid 100×1 = 100, ask 100.2×2 = 200.4; hyperliquid = BOOK's 299.6 / 301.2
    // aggregate 0.5 %: bid 299.6 + 100 + 299.6 = 699.2, ask 301.2 + 200.4 + 301.2 = 802.8
    const agg = r.aggregate.bands![0]!
    close(agg.bidDepthUsd, 699.2)
    close(agg.askDepthUsd, 802.8)
    close(agg.ratio, 699.2 / 802.8)
    expect(agg.exchanges).toEqual(['binance', 'okx', 'hyperliquid'])
    expect(agg.excluded).toEqual([
      { exchange: 'bybit', reason: 'book older than 60 s' },
      { exchange: 'dydx', reason: 'no bids' },
    ])
    // 1 %: hyperliquid's book stops short, so it is not summed there and the band says why
    const one = r.aggregate.bands![1]!
    expect(one.exchanges).toEqual(['binance', 'okx'])
    expect(one.excluded.find((e) => e.exchange === 'hyperliquid')!.reason).toMatch(/short of ±1 %/)
  })

  it('one exchange: the aggregate equals it; no books: null aggregate with a reason', () => {
    const one = buildImbalance({ coin: 'ETH', now: T0, books: [{ exchange: 'hyperliquid', ts: T0, ...BOOK }] })
    one.aggregate.bands!.forEach((b, i) => {
      const e = one.exchanges[0]!.bands![i]!
      expect([b.bidDepthUsd, b.askDepthUsd, b.ratio, b.exchanges]).toEqual([e.bidDepthUsd, e.askDepthUsd, e.ratio, ['hyperliquid']])
    })
    const none = buildImbalance({ coin: 'ETH', now: T0, books: [] })
    expect(none).toEqual({ coin: 'ETH', ts: T0, exchanges: [], aggregate: { exchanges: [], reason: 'no fresh, valid book', bands: null } })
  })
})

// ---- properties ----
// A symmetric book: asks mirror bids around the mid, with equal USD notional per mirrored pair.
// Offsets are half-integer bps so no level sits on a band edge.
const arbSymmetricBook = fc
  .record({
    mid: fc.integer({ min: 1, max: 10_000_000 }).map((c) => c / 100),
    levels: fc.uniqueArray(fc.integer({ min: 0, max: 700 }), { minLength: 1, maxLength: 40 }).chain((ks) =>
      fc.tuple(...ks.map((k) => fc.record({ offset: fc.constant((k + 0.5) / 10_000), notional: fc.double({ min: 1, max: 1e7, noNaN: true }) }))),
    ),
  })
  .map(({ mid, levels }) => ({
    bids: levels.map(({ offset, notional }) => L(mid * (1 - offset), notional / (mid * (1 - offset)))).sort((a, b) => b.price - a.price),
    asks: levels.map(({ offset, notional }) => L(mid * (1 + offset), notional / (mid * (1 + offset)))).sort((a, b) => a.price - b.price),
    ...WHOLE,
  }))

const arbBook = fc
  .record({
    p: fc.double({ min: 0.001, max: 1e6, noNaN: true }),
    bids: fc.array(fc.tuple(fc.double({ min: 0, max: 0.1, noNaN: true }), fc.double({ min: 1e-6, max: 1e4, noNaN: true })), { maxLength: 30 }),
    asks: fc.array(fc.tuple(fc.double({ min: 0, max: 0.1, noNaN: true }), fc.double({ min: 1e-6, max: 1e4, noNaN: true })), { maxLength: 30 }),
  })
  .map(({ p, bids, asks }) => ({
    bids: bids.map(([u, s]) => L(p * (1 - u), s)),
    asks: asks.map(([u, s]) => L(p * (1 + u), s)),
    ...WHOLE,
  }))

describe('properties', () => {
  it('a symmetric book has ratio 1 in every band', () => {
    fc.assert(
      fc.property(arbSymmetricBook, (book) => {
        const r = bookImbalance(book)
        for (const b of r.bands!) {
          if (b.askDepthUsd === 0) {
            expect(b.bidDepthUsd).toBe(0)
            continue
          }
          expect(Math.abs(b.ratio! - 1)).toBeLessThan(1e-9)
        }
      }),
      { numRuns: 200 },
    )
  })

  it('scaling every size leaves every ratio unchanged', () => {
    fc.assert(
      fc.property(arbBook, fc.double({ min: 1e-3, max: 1e3, noNaN: true }), (book, k) => {
        const a = bookImbalance(book)
        const b = bookImbalance({ ...book, bids: book.bids.map((l) => L(l.price, l.size * k)), asks: book.asks.map((l) => L(l.price, l.size * k)) })
        expect(b.reason).toBe(a.reason)
        if (!a.bands) return
        a.bands.forEach((x, i) => {
          const y = b.bands![i]!
          if (x.ratio === null) expect(y.ratio).toBeNull()
          else expect(Math.abs(y.ratio! - x.ratio)).toBeLessThanOrEqual(1e-9 * Math.max(1, x.ratio))
        })
      }),
      { numRuns: 200 },
    )
  })

  it('wider bands never have less depth; nothing is NaN', () => {
    fc.assert(
      fc.property(arbBook, (book) => {
        const r = bookImbalance(book)
        if (!r.bands) {
          expect(r.reason).not.toBeNull()
          return
        }
        for (const b of r.bands) for (const x of [b.bidDepthUsd, b.askDepthUsd, b.ratio]) expect(x === null || Number.isFinite(x)).toBe(true)
        for (let i = 1; i < r.bands.length; i++) {
          expect(r.bands[i]!.bidDepthUsd!).toBeGreaterThanOrEqual(r.bands[i - 1]!.bidDepthUsd!)
          expect(r.bands[i]!.askDepthUsd!).toBeGreaterThanOrEqual(r.bands[i - 1]!.askDepthUsd!)
        }
      }),
      { numRuns: 200 },
    )
  })
})
