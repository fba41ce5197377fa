import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CoinDivergence, DivergenceSignal } from '../../src/analytics/divergence.js'
import { REGIMES, type Regime } from '../../src/analytics/regime.js'
import {
  bestFundingArbitrage,
  bestPriceArbitrage,
  buildSnapshot,
  fundingPer8h,
  type SnapshotCoinInput,
  type VenueQuote,
} from '../../src/analytics/snapshot.js'
import { EXCHANGE_IDS, exchangeById, type ExchangeId } from '../../src/domain/exchanges.js'

const fee = (e: ExchangeId) => exchangeById.get(e)!.takerFee

function signal(pair: DivergenceSignal['pair'], zScore: number, active: boolean): DivergenceSignal {
  return {
    pair,
    timeframe: '1h',
    direction: active ? 'bearish' : 'none',
    zScore,
    active,
    divergence: zScore,
    statistic: 'difference',
    legs: [
      { series: 'price', change: 0, z: 0, exchanges: [] },
      { series: 'open_interest', change: 0, z: 0, exchanges: [] },
    ],
    points: 120,
    reason: null,
  }
}

function coin(c: Partial<SnapshotCoinInput> & { coin: string }): SnapshotCoinInput {
  return {
    price: 100,
    fundingZ: null,
    spreadZ: null,
    oiChange24hPct: null,
    priceChange24hPct: null,
    regime: 'ranging',
    divergence: null,
    venues: [],
    ...c,
  }
}

const divergenceOf = (coinName: string, ...pairs: DivergenceSignal[]): CoinDivergence => ({ coin: coinName, asOf: 0, pairs })
const quote = (exchange: ExchangeId, q: Partial<VenueQuote>): VenueQuote => ({
  exchange,
  price: null,
  fundingRate: null,
  fundingIntervalHours: null,
  ...q,
})

describe('composite score', () => {
  it('weights each capped component and scales to 0..100', () => {
    // max = 4 units * (1 + 0.5 + 1 + 1 + 0.75) = 17
    // funding |z| 2 -> 2 * 1; spread |z| 1 -> 1 * 0.5; OI 10 % -> 2 units * 1; 1 active divergence -> 1 * 1;
    // momentum -5 % -> 1 unit * 0.75. Sum 6.25 of 17 -> 36.76
    const s = buildSnapshot([
      coin({
        coin: 'BTC',
        fundingZ: -2,
        spreadZ: 1,
        oiChange24hPct: 10,
        priceChange24hPct: -5,
        divergence: divergenceOf('BTC', signal('oi_price', 2.5, true), signal('cvd_price', 1, false)),
      }),
    ])
    const c = s.coins[0]!
    expect(c.score).toBeCloseTo((100 * 6.25) / 17, 9)
    expect(c.components).toEqual({
      funding: expect.closeTo((100 * 2) / 17, 9),
      spread: expect.closeTo((100 * 0.5) / 17, 9),
      oi: expect.closeTo((100 * 2) / 17, 9),
      divergence: expect.closeTo((100 * 1) / 17, 9),
      momentum: expect.closeTo((100 * 0.75) / 17, 9),
    })
    expect(c).toMatchObject({ rank: 1, coin: 'BTC', activeDivergences: 1, price: 100, regime: 'ranging' })
  })

  it('caps a component at 4 units and counts missing inputs as 0', () => {
    const s = buildSnapshot([coin({ coin: 'ETH', fundingZ: 40 }), coin({ coin: 'SOL' })])
    expect(s.coins.find((c) => c.coin === 'ETH')!.score).toBeCloseTo((100 * 4) / 17, 9)
    expect(s.coins.find((c) => c.coin === 'SOL')!.score).toBe(0)
  })

  it('ranks by score, rank 1 highest, ties by coin name', () => {
    const s = buildSnapshot([coin({ coin: 'XRP', fundingZ: 1 }), coin({ coin: 'BTC', fundingZ: 3 }), coin({ coin: 'ADA', fundingZ: 1 })])
    expect(s.coins.map((c) => [c.rank, c.coin])).toEqual([
      [1, 'BTC'],
      [2, 'ADA'],
      [3, 'XRP'],
    ])
  })
})

describe('divergences and regimes', () => {
  it('lists active divergences only, strongest first', () => {
    const s = buildSnapshot([
      coin({ coin: 'BTC', divergence: divergenceOf('BTC', signal('oi_price', 2.1, true), signal('cvd_price', 5, false)) }),
      coin({ coin: 'ETH', divergence: divergenceOf('ETH', signal('funding_price', -3, true)) }),
    ])
    expect(s.divergences).toEqual([
      { coin: 'ETH', pair: 'funding_price', timeframe: '1h', direction: 'bearish', zScore: -3 },
      { coin: 'BTC', pair: 'oi_price', timeframe: '1h', direction: 'bearish', zScore: 2.1 },
    ])
  })

  it('regime distribution has all five regimes, zeros included; unclassified coins are not counted', () => {
    const s = buildSnapshot([
      coin({ coin: 'A', regime: 'ranging' }),
      coin({ coin: 'B', regime: 'ranging' }),
      coin({ coin: 'C', regime: 'squeeze' }),
      coin({ coin: 'D', regime: null }),
    ])
    expect(s.regimeDistribution).toEqual({ trending_up: 0, trending_down: 0, ranging: 2, high_volatility: 0, squeeze: 1 })
  })
})

describe('arbitrage', () => {
  it('price spread net of both taker fees', () => {
    // buy binance at 100, sell okx at 100.2: gross (100.2 - 100) / 100 * 1e4 = 20 bps; fees 5 + 5 = 10 bps; net 10
    const a = bestPriceArbitrage('BTC', [quote('binance', { price: 100 }), quote('okx', { price: 100.2 })], fee)!
    expect(a).toEqual({
      type: 'price',
      coin: 'BTC',
      longExchange: 'binance',
      shortExchange: 'okx',
      grossBps: expect.closeTo(20, 9),
      feesBps: expect.closeTo(10, 9),
      netBps: expect.closeTo(10, 9),
      holdingHours: null,
      longPriceSource: 'mark',
      shortPriceSource: 'mark',
    })
  })

  it('buys at the ask and sells at the bid when the book top is known', () => {
    // ask 100.01 on binance, bid 100.19 on okx: (100.19 - 100.01) / 100.01 * 1e4 = 17.998 bps gross, 7.998 net
    const a = bestPriceArbitrage(
      'BTC',
      [quote('binance', { price: 100, bid: 99.99, ask: 100.01 }), quote('okx', { price: 100.2, bid: 100.19, ask: 100.21 })],
      fee,
    )!
    expect(a.grossBps).toBeCloseTo(((100.19 - 100.01) / 100.01) * 1e4, 9)
    expect(a.netBps).toBeCloseTo(((100.19 - 100.01) / 100.01) * 1e4 - 10, 9)
    expect([a.longPriceSource, a.shortPriceSource]).toEqual(['ask', 'bid'])
  })

  it('a venue without a book is priced by its tradable price, named: dYdX at its last trade, never its oracle', () => {
    // dydx's last trade 100.3, no book: buy binance's ask 100.01, sell dydx at 100.3: (100.3 − 100.01) / 100.01 × 1e4
    const a = bestPriceArbitrage('BTC', [quote('binance', { price: 100, bid: 99.99, ask: 100.01 }), quote('dydx', { price: 100.3, priceSource: 'last_trade' })], fee)!
    expect(a).toMatchObject({ longExchange: 'binance', shortExchange: 'dydx', longPriceSource: 'ask', shortPriceSource: 'last_trade' })
    expect(a.grossBps).toBeCloseTo(((100.3 - 100.01) / 100.01) * 1e4, 9)
  })

  it('a quote far off the other venues\' (a stale price) is no arbitrage: left out and named', () => {
    // prices 100, 100.1, 100.2 and dydx 80: median (100 + 100.1) / 2 = 100.05, |80 − 100.05| = 20.05 > 5 % of it (5.0025):
    // dydx is out; buying it at 80 would have shown (100.2 − 80) / 80 × 1e4 = 2 525 bps. The best left: binance 100 →
    // okx 100.2, 20 bps gross, 10 bps of fees (5 + 5)
    const venues = [quote('binance', { price: 100 }), quote('bybit', { price: 100.1 }), quote('okx', { price: 100.2 }), quote('dydx', { price: 80, priceSource: 'last_trade' })]
    const a = bestPriceArbitrage('BTC', venues, fee)!
    expect(a).toMatchObject({ longExchange: 'binance', shortExchange: 'okx' })
    expect(a.grossBps).toBeCloseTo(20, 9)
    const s = buildSnapshot([coin({ coin: 'BTC', venues })])
    expect(s.topArbitrage.map((x) => [x.type, x.longExchange, x.shortExchange])).toEqual([['price', 'binance', 'okx']])
    expect(s.quoteOutliers).toEqual([{ coin: 'BTC', exchange: 'dydx', reason: expect.stringContaining('from the venues\' median 100.05') }])
  })

  it('a spread below the fees is no opportunity', () => {
    // 5 bps gross < 10 bps fees
    expect(bestPriceArbitrage('BTC', [quote('binance', { price: 100 }), quote('okx', { price: 100.05 })], fee)).toBeNull()
  })

  it('funding differential normalized to 8 h, long the low venue, short the high, fees over a 24 h hold', () => {
    // hyperliquid 0.01 %/1h -> 0.08 %/8h = 8 bps; binance -0.01 %/8h = -1 bp. Differential 9 bps per 8 h,
    // x 3 settlements in 24 h = 27 bps; fees open + close both legs = 2 * (4.5 + 5) = 19 bps; net 8 bps.
    expect(fundingPer8h({ fundingRate: 0.0001, fundingIntervalHours: 1 })).toBeCloseTo(0.0008, 12)
    const a = bestFundingArbitrage(
      'ETH',
      [quote('hyperliquid', { fundingRate: 0.0001, fundingIntervalHours: 1 }), quote('binance', { fundingRate: -0.0001, fundingIntervalHours: 8 })],
      fee,
    )!
    expect(a).toEqual({
      type: 'funding',
      coin: 'ETH',
      longExchange: 'binance',
      shortExchange: 'hyperliquid',
      grossBps: expect.closeTo(27, 9),
      feesBps: expect.closeTo(19, 9),
      netBps: expect.closeTo(8, 9),
      holdingHours: 24,
      longPriceSource: null,
      shortPriceSource: null,
    })
  })

  it('top arbitrage: positive net edges only, sorted by net edge, at most N', () => {
    const venues = (spreadBps: number): VenueQuote[] => [
      quote('binance', { price: 100, fundingRate: 0.0001, fundingIntervalHours: 8 }),
      quote('bybit', { price: 100 * (1 + spreadBps / 1e4), fundingRate: 0.0001, fundingIntervalHours: 8 }),
    ]
    // binance 5 bps + bybit 5.5 bps = 10.5 bps of fees; spreads 30, 20, 12, 5 bps -> nets 19.5, 9.5, 1.5, none
    const inputs = [30, 20, 12, 5].map((bps, i) => coin({ coin: `C${i}`, venues: venues(bps) }))
    const s = buildSnapshot(inputs, { topArbitrage: 2 })
    expect(s.topArbitrage.map((a) => [a.coin, a.netBps])).toEqual([
      ['C0', expect.closeTo(19.5, 6)],
      ['C1', expect.closeTo(9.5, 6)],
    ])
    expect(buildSnapshot(inputs).topArbitrage).toHaveLength(3)
  })
})

describe('snapshot properties', () => {
  const arbCoin = fc.record({
    coin: fc.string({ minLength: 1, maxLength: 5 }),
    price: fc.option(fc.double({ min: 0.01, max: 1e5, noNaN: true })),
    fundingZ: fc.option(fc.double({ min: -10, max: 10, noNaN: true })),
    spreadZ: fc.option(fc.double({ min: -10, max: 10, noNaN: true })),
    oiChange24hPct: fc.option(fc.double({ min: -50, max: 50, noNaN: true })),
    priceChange24hPct: fc.option(fc.double({ min: -50, max: 50, noNaN: true })),
    regime: fc.option(fc.constantFrom<Regime>(...REGIMES)),
    divergence: fc.constant(null),
    venues: fc.uniqueArray(
      fc.record({
        exchange: fc.constantFrom(...EXCHANGE_IDS),
        price: fc.option(fc.double({ min: 99, max: 101, noNaN: true })),
        fundingRate: fc.option(fc.double({ min: -0.003, max: 0.003, noNaN: true })),
        fundingIntervalHours: fc.constantFrom(1, 4, 8),
      }),
      { selector: (v) => v.exchange, maxLength: 5 },
    ),
  })

  it('ranks are 1..n by descending score in [0, 100]; arbitrage positive, sorted, bounded', () => {
    fc.assert(
      fc.property(fc.array(arbCoin, { maxLength: 15 }), fc.integer({ min: 0, max: 12 }), (inputs, topN) => {
        const s = buildSnapshot(inputs, { topArbitrage: topN })
        expect(s.coins.map((c) => c.rank)).toEqual(inputs.map((_, i) => i + 1))
        s.coins.forEach((c, i) => {
          expect(c.score).toBeGreaterThanOrEqual(0)
          expect(c.score).toBeLessThanOrEqual(100 + 1e-9)
          if (i > 0) expect(c.score).toBeLessThanOrEqual(s.coins[i - 1]!.score)
        })
        expect(Object.keys(s.regimeDistribution).sort()).toEqual([...REGIMES].sort())
        expect(Object.values(s.regimeDistribution).reduce((a, b) => a + b, 0)).toBe(inputs.filter((c) => c.regime).length)
        expect(s.topArbitrage.length).toBeLessThanOrEqual(topN)
        s.topArbitrage.forEach((a, i) => {
          expect(a.netBps).toBeGreaterThan(0)
          expect(a.netBps).toBeCloseTo(a.grossBps - a.feesBps, 9)
          expect(a.longExchange).not.toBe(a.shortExchange)
          if (i > 0) expect(a.netBps).toBeLessThanOrEqual(s.topArbitrage[i - 1]!.netBps)
        })
      }),
    )
  })
})
