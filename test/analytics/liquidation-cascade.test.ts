import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_LEVERAGE_MIX,
  estimateLiquidationLevels,
  liquidationPrice,
  MAX_CASCADE_PHASES,
  simulateCascade,
  type CascadeInput,
  type LiquidationLevel,
} from '../../src/analytics/liquidation-cascade.js'
import { estimateLiquidationMap } from '../../src/analytics/liquidation-map.js'

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
const only10x = [{ leverage: 10, weight: 1 }]
// Binance's isolated liquidation price with no maintenance amount: long p(1 - 1/L)/(1 - mmr), short p(1 + 1/L)/(1 + mmr)
const L10 = (100 * 0.9) / 0.995 // 90.4522613...
const S10 = (100 * 1.1) / 1.005 // 109.4527363...

describe('liquidationPrice', () => {
  it('Binance USDⓈ-M isolated: margin balance N/L + Q(P - entry) = maintenance Q·P·mmr - cum', () => {
    expect(liquidationPrice(100, 'long', 10, 0.005)).toBeCloseTo(L10, 12)
    expect(liquidationPrice(100, 'short', 10, 0.005)).toBeCloseTo(S10, 12)
    expect(liquidationPrice(100, 'long', 100, 0.005)).toBeCloseTo((100 * 0.99) / 0.995, 12)
    // Binance's worked example is BTCUSDT tier 2 (cum 50): a 0.5 BTC long at 40 000 (N 20 000) with 20x ->
    // (20 000/20 + 50 - 20 000) / (0.5 * 0.005 - 0.5) = 38 090.45...; amount / notional = 50 / 20 000
    const byHand = (20_000 / 20 + 50 - 0.5 * 40_000) / (0.5 * 0.005 - 0.5)
    expect(liquidationPrice(40_000, 'long', 20, 0.005, 50 / 20_000)).toBeCloseTo(byHand, 9)
    // and the short: (N/L + cum + Q·EP) / (Q·mmr + Q)
    const shortByHand = (20_000 / 20 + 50 + 0.5 * 40_000) / (0.5 * 0.005 + 0.5)
    expect(liquidationPrice(40_000, 'short', 20, 0.005, 50 / 20_000)).toBeCloseTo(shortByHand, 9)
  })
})

describe('estimateLiquidationLevels', () => {
  it('splits new OI by taker flow and prices each side at its liquidation price', () => {
    // +10 coins at 100, taker buy 3 / sell 1 -> longs 7.5 coins, shorts 2.5 coins, all at 10x, mmr 0.5 %
    const levels = estimateLiquidationLevels([{ price: 100, oiChangeCoins: 10, buyVolume: 3, sellVolume: 1 }], {
      leverageMix: only10x,
      bucketBps: 0,
    })
    expect(levels).toHaveLength(2)
    expect(levels[0]!.side).toBe('long')
    expect(levels[0]!.price).toBeCloseTo(L10, 9)
    expect(levels[0]!.notionalUsd).toBeCloseTo(7.5 * L10, 9)
    expect(levels[1]!.side).toBe('short')
    expect(levels[1]!.price).toBeCloseTo(S10, 9)
    expect(levels[1]!.notionalUsd).toBeCloseTo(2.5 * S10, 9)
  })

  it('splits 50/50 without taker volumes and spreads over the default leverage mix', () => {
    const levels = estimateLiquidationLevels([{ price: 100, oiChangeCoins: 10 }], { bucketBps: 0 })
    expect(levels).toHaveLength(2 * DEFAULT_LEVERAGE_MIX.length)
    for (const side of ['long', 'short'] as const) {
      const coins = sum(levels.filter((l) => l.side === side).map((l) => l.notionalUsd / l.price))
      expect(coins).toBeCloseTo(5, 9)
    }
    // 50x long: 100 * 0.98 / 0.995 holds 2.2 % of the 5 long coins (docs/methodology.md#leverage-mix)
    const p50 = (100 * 0.98) / 0.995
    const l50 = levels.find((l) => l.side === 'long' && Math.abs(l.price - p50) < 1e-9)!
    expect(l50.notionalUsd).toBeCloseTo(0.022 * 5 * p50, 9)
  })

  it('closes a proportional share on an OI decrease', () => {
    // +10 (5 long, 5 short) then -5: half of every estimate stays
    const levels = estimateLiquidationLevels(
      [
        { price: 100, oiChangeCoins: 10 },
        { price: 100, oiChangeCoins: -5 },
      ],
      { leverageMix: only10x, bucketBps: 0 },
    )
    expect(levels.map((l) => l.notionalUsd / l.price)).toEqual([2.5, 2.5].map((x) => expect.closeTo(x, 9)))
    // closing more than is open clears the map
    expect(estimateLiquidationLevels([{ price: 100, oiChangeCoins: 10 }, { price: 100, oiChangeCoins: -20 }])).toEqual([])
  })

  it('with the venue\'s OI level, a decrease closes |change| / OI of every estimate, whenever it was opened', () => {
    // +10 opened in the window on a venue holding 1000 coins, then -50: 5 % of all positions close, so 95 % of the
    // window's estimate stays. Without the level, -50 > 10 opened would have wiped the whole map.
    const levels = estimateLiquidationLevels(
      [
        { price: 100, oiChangeCoins: 10, openInterestCoins: 990 },
        { price: 100, oiChangeCoins: -50, openInterestCoins: 1000 },
      ],
      { leverageMix: only10x, bucketBps: 0 },
    )
    expect(levels.map((l) => l.notionalUsd / l.price)).toEqual([4.75, 4.75].map((x) => expect.closeTo(x, 9)))
  })

  it('drops positions whose liquidation price a later period crossed', () => {
    // long liq 90.5, short liq 109.5; the next period trades down to 90 -> the long is gone, the short stays
    const levels = estimateLiquidationLevels(
      [
        { price: 100, oiChangeCoins: 10, low: 80, high: 120 }, // its own range does not sweep what it opens
        { price: 95, oiChangeCoins: 0, low: 90, high: 100 },
      ],
      { leverageMix: only10x, bucketBps: 0 },
    )
    expect(levels.map((l) => l.side)).toEqual(['short'])
  })

  it('with a horizon, what a period opened leaves the map after the last period starting within the horizon of it', () => {
    const H = 3_600_000
    // 10 long coins at 100 (10x: liq 90.45) at t = 0 and 4 at t = 2h (liq 90.45 too, one bucket); horizon 3h
    const series = [
      { ts: 0, price: 100, oiChangeCoins: 10, buyVolume: 1, sellVolume: 0 },
      { ts: H, price: 100, oiChangeCoins: 0 },
      { ts: 2 * H, price: 100, oiChangeCoins: 4, buyVolume: 1, sellVolume: 0 },
      { ts: 3 * H, price: 100, oiChangeCoins: 0 },
      { ts: 4 * H, price: 92, oiChangeCoins: 0, low: 90, high: 95 },
    ]
    const opts = { leverageMix: only10x, horizonMs: 3 * H, snapshotAt: new Set([2, 3, 4]) }
    const map = estimateLiquidationMap(series, opts)
    const coins = (ls: LiquidationLevel[]) => sum(ls.map((l) => l.notionalUsd / l.price))
    expect(coins(map.trace.snapshots.get(2)!)).toBeCloseTo(14, 9)
    // after the period at 3h, the 0h positions are out: only the 4 coins of 2h are left, in the same bucket
    expect(coins(map.trace.snapshots.get(3)!)).toBeCloseTo(4, 9)
    // the sweep at 4h liquidates those 4 coins only; without the horizon it takes all 14
    expect(map.trace.swept[4]).toBeCloseTo(4 * L10, 9)
    expect(estimateLiquidationMap(series, { leverageMix: only10x }).trace.swept[4]).toBeCloseTo(14 * L10, 9)
    // an OI fall closes the expired part no more: 50 % closed at 1h leaves 5 + 4, of which 4 stay after 3h
    const closed = estimateLiquidationMap([series[0]!, { ts: H, price: 100, oiChangeCoins: -5, openInterestCoins: 10 }, ...series.slice(2)], opts)
    expect(coins(closed.trace.snapshots.get(2)!)).toBeCloseTo(9, 9)
    expect(coins(closed.trace.snapshots.get(3)!)).toBeCloseTo(4, 9)
  })

  it('merges nearby estimates into one bucket priced at the coin-weighted mean', () => {
    // 10x longs from 100 and 100.01: liq 90.45226 and 90.46131, both inside one 10 bp bucket
    const levels = estimateLiquidationLevels(
      [
        { price: 100, oiChangeCoins: 2, buyVolume: 1, sellVolume: 0 },
        { price: 100.01, oiChangeCoins: 2, buyVolume: 1, sellVolume: 0 },
      ],
      { leverageMix: only10x },
    )
    expect(levels).toHaveLength(1)
    const a = L10
    const b = (100.01 * 0.9) / 0.995
    expect(levels[0]!.price).toBeCloseTo((a + b) / 2, 9)
    expect(levels[0]!.notionalUsd).toBeCloseTo(2 * a + 2 * b, 9)
  })

  it('conserves coins when nothing is swept or closed (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: 1, max: 1e5, noNaN: true }), fc.double({ min: 0, max: 1e4, noNaN: true })), { maxLength: 50 }),
        (pts) => {
          // every period at one price and no range, so no estimate is crossed
          const series = pts.map(([, d]) => ({ price: 100, oiChangeCoins: d }))
          const levels = estimateLiquidationLevels(series)
          const coins = sum(levels.map((l) => l.notionalUsd / l.price))
          const opened = sum(pts.map(([, d]) => d))
          expect(Math.abs(coins - opened)).toBeLessThanOrEqual(1e-9 * Math.max(1, opened))
          for (let i = 1; i < levels.length; i++) expect(levels[i]!.price).toBeGreaterThanOrEqual(levels[i - 1]!.price)
        },
      ),
    )
  })
})

describe('simulateCascade', () => {
  const emptyBook = { bids: [], asks: [] }

  it('trigger at the current price: zero phases', () => {
    const r = simulateCascade({ currentPrice: 100, triggerPrice: 100, liquidations: [{ price: 99, side: 'long', notionalUsd: 1e6 }], book: emptyBook })
    expect(r.phases).toEqual([])
    expect(r).toMatchObject({ startPrice: 100, triggerPrice: 100, finalPrice: 100, totalLiquidatedUsd: 0, stalledAt: null, endedBy: 'no_move' })
  })

  it('a cascade into a wall of bids ends in phase 1, absorbed by the book (not an HVN stall: no zone to name)', () => {
    // Book mid 100, a 5000-coin bid wall 0.1 % below mid. Drop to 99 liquidates the long at 99.5 (1000 coins).
    // Walk from 99: the wall re-centred on 99 sits at 99 * 0.999 = 98.901 and absorbs all 1000 coins.
    // The next long is at 95, not reached -> the cascade ends: book_absorbed, no stalled phase, stalledAt null.
    const r = simulateCascade({
      currentPrice: 100,
      triggerPrice: 99,
      liquidations: [
        { price: 99.5, side: 'long', notionalUsd: 99_500 },
        { price: 95, side: 'long', notionalUsd: 95_000 },
      ],
      book: { bids: [{ price: 99.9, size: 5000 }], asks: [{ price: 100.1, size: 5000 }] },
    })
    expect(r.direction).toBe('down')
    expect(r.phases).toHaveLength(1)
    expect(r.phases[0]).toEqual({ phase: 1, fromPrice: 100, toPrice: expect.closeTo(98.901, 9), liquidatedUsd: 99_500, byExchange: [{ exchange: 'unattributed', liquidatedUsd: 99_500 }], stalled: false })
    expect(r.finalPrice).toBeCloseTo(98.901, 9)
    expect(r.totalLiquidatedUsd).toBe(99_500)
    expect(r.stalledAt).toBeNull()
    expect(r.endedBy).toBe('book_absorbed')
  })

  it('walks several book levels, then the book extrapolated past its deepest level', () => {
    // bids re-centred on 99: 98.901 (200), 98.802 (300), 98.505 (500). 600 coins end at 98.505.
    const book = {
      bids: [
        { price: 99.9, size: 200 },
        { price: 99.8, size: 300 },
        { price: 99.5, size: 500 },
      ],
      asks: [{ price: 100.1, size: 1 }],
    }
    const one = (coins: number) =>
      simulateCascade({ currentPrice: 100, triggerPrice: 99, liquidations: [{ price: 99.5, side: 'long', notionalUsd: coins * 99.5 }], book })
    expect(one(600).finalPrice).toBeCloseTo(98.505, 9)
    // 1100 coins: 1000 in the book, 100 beyond it at the book's average density 1000 / (99 * 0.005) coins per $
    // -> 98.505 - 100 * (99 * 0.005) / 1000 = 98.4555
    expect(one(1100).finalPrice).toBeCloseTo(98.4555, 9)
    // more than the book and a 1 % vacuum step can take: the move stops at 98.505 - 0.01 * 99 = 97.515
    expect(one(1e6).finalPrice).toBeCloseTo(97.515, 9)
  })

  it('stalls inside an HVN zone whose resting liquidity absorbs the flow, across two phases', () => {
    // Empty book. HVN zone [98.2, 98.8] traded 100 000 coins -> 0.02 * 100 000 = 2000 coins over $0.6 (3333.3 coins/$).
    // Phase 1: long at 99.5 (1000 coins) from 99: nothing until 98.8, then 1000 / 3333.3 = $0.3 -> 98.5.
    //   The move crossed the long at 98.7 (500 coins) -> not stalled.
    // Phase 2: 500 coins from 98.5 into the zone's remaining 1000 coins -> $0.15 -> 98.35; nothing new -> stalled.
    const r = simulateCascade({
      currentPrice: 100,
      triggerPrice: 99,
      liquidations: [
        { price: 99.5, side: 'long', notionalUsd: 99_500 },
        { price: 98.7, side: 'long', notionalUsd: 49_350 },
        { price: 90, side: 'long', notionalUsd: 1e9 },
      ],
      book: emptyBook,
      hvnZones: [{ low: 98.2, high: 98.8, volume: 100_000 }],
    })
    expect(r.phases).toEqual([
      { phase: 1, fromPrice: 100, toPrice: expect.closeTo(98.5, 9), liquidatedUsd: 99_500, byExchange: [{ exchange: 'unattributed', liquidatedUsd: 99_500 }], stalled: false },
      { phase: 2, fromPrice: expect.closeTo(98.5, 9), toPrice: expect.closeTo(98.35, 9), liquidatedUsd: 49_350, byExchange: [{ exchange: 'unattributed', liquidatedUsd: 49_350 }], stalled: true },
    ])
    expect(r.totalLiquidatedUsd).toBe(99_500 + 49_350)
    expect(r.stalledAt).toEqual({ low: 98.2, high: 98.8 })
    expect(r.endedBy).toBe('stalled')
  })

  it('a cascade through an empty book runs to the phase limit', () => {
    // Longs of $1000 every 5 cents from 99.975 down. With no book each phase moves 1 % (the vacuum step):
    //   phase 1 ends 99 * 0.99 = 98.01, phase k ends 99 * 0.99^k; each move reaches new longs.
    const liquidations: LiquidationLevel[] = Array.from({ length: 400 }, (_, k) => ({ price: 99.975 - 0.05 * k, side: 'long', notionalUsd: 1000 }))
    const r = simulateCascade({ currentPrice: 100, triggerPrice: 99, liquidations, book: emptyBook })
    expect(r.phases).toHaveLength(MAX_CASCADE_PHASES)
    expect(r.phases.every((p) => !p.stalled)).toBe(true)
    expect(r.endedBy).toBe('phase_limit')
    expect(r.finalPrice).toBeCloseTo(99 * 0.99 ** 5, 9)
    // phase 1 liquidates [99, 100): 20 longs; phase k > 1 liquidates [99 * 0.99^(k-1), 99 * 0.99^(k-2))
    const bounds = [100, 99, 99 * 0.99, 99 * 0.99 ** 2, 99 * 0.99 ** 3, 99 * 0.99 ** 4]
    r.phases.forEach((p, i) => {
      const n = liquidations.filter((l) => l.price < bounds[i]! && l.price >= bounds[i + 1]!).length
      expect(p.liquidatedUsd).toBe(1000 * n)
    })
    expect(r.phases[0]!.liquidatedUsd).toBe(20_000)
    expect(r.stalledAt).toBeNull()
  })

  it('an up move liquidates shorts only', () => {
    const r = simulateCascade({
      currentPrice: 100,
      triggerPrice: 101,
      liquidations: [
        { price: 100.5, side: 'short', notionalUsd: 10_050 },
        { price: 100.6, side: 'long', notionalUsd: 1e9 }, // wrong side for an up move
        { price: 99, side: 'long', notionalUsd: 1e9 },
      ],
      book: { bids: [{ price: 99.9, size: 10 }], asks: [{ price: 100.1, size: 1000 }] },
    })
    expect(r.direction).toBe('up')
    expect(r.totalLiquidatedUsd).toBe(10_050)
    // 100 coins of buys from 101 hit the ask re-centred at 101 * 1.001 = 101.101
    expect(r.finalPrice).toBeCloseTo(101.101, 9)
  })

  it('ignores positions at or behind the current price (already liquidated)', () => {
    const r = simulateCascade({
      currentPrice: 100,
      triggerPrice: 99,
      liquidations: [{ price: 100.5, side: 'long', notionalUsd: 1e9 }, { price: 100, side: 'long', notionalUsd: 1e9 }],
      book: emptyBook,
    })
    expect(r.totalLiquidatedUsd).toBe(0)
    // phase 1 with $0 is not a stall (no zone stopped anything): the cascade says it found no position to liquidate
    expect(r.phases).toEqual([{ phase: 1, fromPrice: 100, toPrice: 99, liquidatedUsd: 0, byExchange: [{ exchange: 'unattributed', liquidatedUsd: 0 }], stalled: false }])
    expect(r).toMatchObject({ endedBy: 'no_liquidations', stalledAt: null })
  })

  it('keeps each venue\'s liquidations apart: per phase and in total, every listed venue, Σ = the phase / the total', () => {
    const r = simulateCascade({
      currentPrice: 100,
      triggerPrice: 99,
      liquidations: [
        { price: 99.5, side: 'long', notionalUsd: 60_000, exchange: 'binance' },
        { price: 99.2, side: 'long', notionalUsd: 40_000, exchange: 'okx' },
        { price: 98.95, side: 'long', notionalUsd: 20_000, exchange: 'okx' },
      ],
      // no book: each phase moves the price by the 1 % vacuum step: phase 1 to 98.01 (reaching 98.95), phase 2 to 97.03
      book: emptyBook,
      exchanges: ['binance', 'bybit', 'okx'],
    })
    expect(r.phases).toHaveLength(2)
    expect(r.endedBy).toBe('no_further_liquidations')
    expect(r.phases[0]!.byExchange).toEqual([
      { exchange: 'binance', liquidatedUsd: 60_000 },
      { exchange: 'bybit', liquidatedUsd: 0 },
      { exchange: 'okx', liquidatedUsd: 40_000 },
    ])
    expect(r.phases[1]!.byExchange).toEqual([
      { exchange: 'binance', liquidatedUsd: 0 },
      { exchange: 'bybit', liquidatedUsd: 0 },
      { exchange: 'okx', liquidatedUsd: 20_000 },
    ])
    expect(r.byExchange).toEqual([
      { exchange: 'binance', liquidatedUsd: 60_000 },
      { exchange: 'bybit', liquidatedUsd: 0 },
      { exchange: 'okx', liquidatedUsd: 60_000 },
    ])
    expect(r.totalLiquidatedUsd).toBe(120_000)
  })

  it('rejects non-positive prices', () => {
    expect(() => simulateCascade({ currentPrice: 0, triggerPrice: 1, liquidations: [], book: emptyBook })).toThrow(RangeError)
    expect(() => simulateCascade({ currentPrice: 1, triggerPrice: -1, liquidations: [], book: emptyBook })).toThrow(RangeError)
  })

  const arbInput: fc.Arbitrary<CascadeInput> = fc
    .record({
      current: fc.double({ min: 50, max: 150, noNaN: true }),
      trigger: fc.double({ min: 50, max: 150, noNaN: true }),
      liqs: fc.array(
        fc.record({
          price: fc.double({ min: 30, max: 200, noNaN: true }),
          side: fc.constantFrom('long' as const, 'short' as const),
          notionalUsd: fc.double({ min: 0, max: 1e6, noNaN: true }),
          exchange: fc.constantFrom('binance', 'bybit', 'okx', 'hyperliquid', 'dydx'),
        }),
        { maxLength: 60 },
      ),
      bids: fc.array(fc.record({ price: fc.double({ min: 80, max: 99.99, noNaN: true }), size: fc.double({ min: 0, max: 5000, noNaN: true }) }), { maxLength: 30 }),
      asks: fc.array(fc.record({ price: fc.double({ min: 100.01, max: 120, noNaN: true }), size: fc.double({ min: 0, max: 5000, noNaN: true }) }), { maxLength: 30 }),
      zones: fc.array(
        fc.tuple(fc.double({ min: 40, max: 160, noNaN: true }), fc.double({ min: 0.01, max: 5, noNaN: true }), fc.double({ min: 0, max: 1e6, noNaN: true })),
        { maxLength: 4 },
      ),
    })
    .map(({ current, trigger, liqs, bids, asks, zones }) => ({
      currentPrice: current,
      triggerPrice: trigger,
      liquidations: liqs,
      book: { bids, asks },
      hvnZones: zones.map(([low, w, volume]) => ({ low, high: low + w, volume })),
      exchanges: ['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'],
    }))

  it('properties: at most 5 phases, total = Σ phases = Σ by venue, prices monotone, one side, and why it ended is stated consistently', () => {
    fc.assert(
      fc.property(arbInput, (input) => {
        const r = simulateCascade(input)
        const s = r.direction === 'up' ? 1 : -1
        const side = r.direction === 'up' ? 'short' : 'long'
        expect(r.phases.length).toBeLessThanOrEqual(MAX_CASCADE_PHASES)
        if (input.triggerPrice === input.currentPrice) {
          expect(r.phases).toHaveLength(0)
          return
        }
        expect(r.direction).toBe(input.triggerPrice > input.currentPrice ? 'up' : 'down')
        expect(r.totalLiquidatedUsd).toBeCloseTo(sum(r.phases.map((p) => p.liquidatedUsd)), 6)
        r.phases.forEach((p, i) => {
          expect(p.phase).toBe(i + 1)
          expect(s * (p.toPrice - p.fromPrice)).toBeGreaterThanOrEqual(0)
          if (i > 0) expect(p.fromPrice).toBe(r.phases[i - 1]!.toPrice)
          expect(p.stalled).toBe(i === r.phases.length - 1 && r.endedBy === 'stalled')
          expect(p.toPrice).toBeGreaterThan(0)
        })
        expect(s * (r.phases[0]!.toPrice - input.triggerPrice)).toBeGreaterThanOrEqual(0)
        expect(r.finalPrice).toBe(r.phases[r.phases.length - 1]!.toPrice)
        // whatever was liquidated lies on the right side, between the start and the final price
        const reachable = sum(
          input.liquidations
            .filter((l) => l.side === side && s * l.price > s * input.currentPrice && s * l.price <= s * r.finalPrice)
            .map((l) => l.notionalUsd),
        )
        expect(r.totalLiquidatedUsd).toBeLessThanOrEqual(reachable * (1 + 1e-12) + 1e-6)
        if (r.stalledAt) expect(input.hvnZones).toContainEqual(expect.objectContaining(r.stalledAt))
        // per venue: each phase's venues add up to the phase, the venues' totals to the total
        for (const p of r.phases) expect(sum(p.byExchange.map((b) => b.liquidatedUsd))).toBeCloseTo(p.liquidatedUsd, 6)
        expect(sum(r.byExchange.map((b) => b.liquidatedUsd))).toBeCloseTo(r.totalLiquidatedUsd, 6)
        for (const b of r.byExchange) expect(b.liquidatedUsd).toBeCloseTo(sum(r.phases.map((p) => p.byExchange.find((x) => x.exchange === b.exchange)!.liquidatedUsd)), 6)
        // the end is explained: a stalled phase names its zone, and only then is the cascade `stalled`
        const last = r.phases.at(-1)!
        expect(r.stalledAt !== null).toBe(r.endedBy === 'stalled')
        expect(last.stalled).toBe(r.endedBy === 'stalled')
        expect(r.phases.some((p) => p.stalled && p.liquidatedUsd === 0)).toBe(false)
        expect(r.endedBy === 'no_liquidations').toBe(r.phases[0]!.liquidatedUsd === 0)
        if (r.endedBy === 'phase_limit') expect(r.phases).toHaveLength(MAX_CASCADE_PHASES)
        else expect(['no_liquidations', 'stalled', 'book_absorbed', 'no_further_liquidations']).toContain(r.endedBy)
      }),
      { numRuns: 300 },
    )
  })

  // speed is measured in bench/, not here
  it('estimates 30 days of minutes and simulates against a 1000-level book and 20 zones', () => {
    let seed = 7
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
    const series = Array.from({ length: 43_200 }, (_, i) => ({ price: 60_000 * (1 + 0.05 * Math.sin(i / 3000)) * (1 + 0.001 * (rnd() - 0.5)), oiChangeCoins: 10 * (rnd() - 0.45), buyVolume: rnd(), sellVolume: rnd() }))
    const liquidations = estimateLiquidationLevels(series)
    expect(liquidations.length).toBeGreaterThan(0)
    const bids = Array.from({ length: 1000 }, (_, i) => ({ price: 59_999 - i * 3, size: 1 + rnd() * 5 }))
    const asks = Array.from({ length: 1000 }, (_, i) => ({ price: 60_001 + i * 3, size: 1 + rnd() * 5 }))
    const hvnZones = Array.from({ length: 20 }, (_, i) => ({ low: 50_000 + i * 1000, high: 50_400 + i * 1000, volume: 5000 }))
    const r = simulateCascade({ currentPrice: 60_000, triggerPrice: 57_000, liquidations, book: { bids, asks }, hvnZones })
    expect(r.phases.length).toBeGreaterThan(0)
    expect(r.direction).toBe('down')
    expect(r.finalPrice).toBeLessThanOrEqual(57_000)
  })
})
