// Statistical sanity of 7 simulated days (4 coins, all their markets), their 1-minute bars through the real aggregator.
import { beforeAll, describe, expect, it } from 'vitest'
import { MarketSimulator } from '../../../src/sources/simulator/index.js'
import { MinuteAggregator } from '../../../src/ingest/aggregate/index.js'
import { marketKeyString, type MinuteBar } from '../../../src/domain/minute-bars.js'
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../../src/domain/time.js'
import { DEFAULT_COINS } from '../../../src/domain/coins.js'
import type { BookSnapshotEvent, FundingEvent, MarketEvent, OpenInterestEvent, TickerEvent } from '../../../src/domain/events.js'
import { validateBar, validateEvent } from './event-schema.js'

const FROM = Date.UTC(2025, 2, 10)
const DAYS = 7
const COINS = ['BTC', 'ETH', 'SOL', 'DOGE']
const PERP_VENUES = ['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'] as const

const mean = (x: readonly number[]) => x.reduce((a, b) => a + b, 0) / x.length
const median = (x: readonly number[]) => {
  const s = [...x].sort((a, b) => a - b)
  return s[s.length >> 1]!
}
const kurtosis = (x: readonly number[]) => {
  const m = mean(x)
  const v = mean(x.map((a) => (a - m) ** 2))
  return mean(x.map((a) => (a - m) ** 4)) / (v * v)
}
const corr = (x: readonly number[], y: readonly number[]) => {
  const mx = mean(x)
  const my = mean(y)
  let sxy = 0
  let sxx = 0
  let syy = 0
  for (let i = 0; i < x.length; i++) {
    sxy += (x[i]! - mx) * (y[i]! - my)
    sxx += (x[i]! - mx) ** 2
    syy += (y[i]! - my) ** 2
  }
  return sxy / Math.sqrt(sxx * syy)
}

let bars: Map<string, Map<number, MinuteBar>>
let tickers: Map<string, Map<number, TickerEvent>>
const funding: FundingEvent[] = []
const oi = new Map<string, OpenInterestEvent[]>()
const books: BookSnapshotEvent[] = []
let sim: MarketSimulator

beforeAll(() => {
  sim = new MarketSimulator({ seed: 20250310, coins: COINS })
  const agg = new MinuteAggregator()
  tickers = new Map()
  let invalid = 0
  let checked = 0
  const sink = {
    emit(e: MarketEvent) {
      // validate a sample of everything (all of it is covered in simulator.test.ts)
      if (checked++ % 97 === 0) {
        try {
          validateEvent(e)
        } catch {
          invalid++
        }
      }
      if (e.type === 'trade') agg.add(e)
      else if (e.type === 'ticker') {
        const k = marketKeyString(e)
        if (!tickers.has(k)) tickers.set(k, new Map())
        tickers.get(k)!.set(e.ts - (MINUTE_MS - 1), e)
      } else if (e.type === 'funding') funding.push(e)
      else if (e.type === 'open_interest') {
        const k = marketKeyString(e)
        if (!oi.has(k)) oi.set(k, [])
        oi.get(k)!.push(e)
      } else if (e.type === 'book') books.push(e)
    },
    emitBar(b: MinuteBar) {
      if (checked++ % 97 === 0) {
        try {
          validateBar(b)
        } catch {
          invalid++
        }
      }
      agg.emitBar(b)
    },
  }
  // day by day, as the backfill's progress bar would
  for (let d = 0; d < DAYS; d++) sim.simulateRange(FROM + d * DAY_MS, FROM + (d + 1) * DAY_MS, sink)
  expect(invalid).toBe(0)
  bars = new Map()
  for (const b of agg.drainAll()) {
    const k = marketKeyString(b)
    if (!bars.has(k)) bars.set(k, new Map())
    bars.get(k)!.set(b.ts, b)
  }
})

/** 1-minute log returns of the market's ticker lastPrice (every minute has one), aligned on minutes */
function returns(key: string): number[] {
  const t = tickers.get(key)!
  const out: number[] = []
  for (let m = FROM + MINUTE_MS; m < FROM + DAYS * DAY_MS; m += MINUTE_MS) out.push(Math.log(t.get(m)!.lastPrice! / t.get(m - MINUTE_MS)!.lastPrice!))
  return out
}

describe('simulated market statistics (7 days)', () => {
  it('has a bar in every minute of every market, trading from a few times a minute (dYdX) to thousands (binance BTC)', () => {
    for (const [k, m] of bars) {
      expect(m.size, k).toBe(DAYS * 1440)
      let n = 0
      for (const b of m.values()) n += b.trades!
      expect(n / m.size, k).toBeGreaterThan(1)
    }
    expect(bars.size).toBe(COINS.length * 8)
    const rate = (k: string) => [...bars.get(k)!.values()].reduce((n, b) => n + b.trades!, 0) / (DAYS * 1440)
    expect(rate('binance:BTC:perp')).toBeGreaterThan(1000)
    expect(rate('dydx:DOGE:perp')).toBeLessThan(100)
  })

  it('cross-exchange dispersion is a few bps: median max-min over the perp venues between 1 and 20 bps', () => {
    for (const coin of COINS) {
      const spreads: number[] = []
      for (let m = FROM; m < FROM + DAYS * DAY_MS; m += MINUTE_MS) {
        const closes = PERP_VENUES.map((v) => bars.get(`${v}:${coin}:perp`)!.get(m)?.close).filter((x): x is number => x !== undefined)
        if (closes.length < 4) continue
        spreads.push(((Math.max(...closes) - Math.min(...closes)) / Math.min(...closes)) * 1e4)
      }
      const med = median(spreads)
      expect(med, coin).toBeGreaterThan(1)
      expect(med, coin).toBeLessThan(20)
    }
  })

  it('spot trades slightly apart from perp by the premium (a few bps)', () => {
    const spot = tickers.get('binance:BTC:spot')!
    const perp = tickers.get('binance:BTC:perp')!
    const diffs: number[] = []
    for (const [m, p] of perp) diffs.push((p.markPrice! / spot.get(m)!.lastPrice! - 1) * 1e4)
    expect(Math.abs(median(diffs))).toBeLessThan(10)
    expect(Math.max(...diffs.map(Math.abs))).toBeGreaterThan(1)
  })

  it('returns are fat-tailed (kurtosis > 3) and clearly positively correlated across coins', () => {
    for (const coin of COINS) expect(kurtosis(returns(`binance:${coin}:perp`)), coin).toBeGreaterThan(3)
    const btc = returns('binance:BTC:perp')
    for (const coin of ['ETH', 'SOL', 'DOGE']) expect(corr(btc, returns(`binance:${coin}:perp`)), coin).toBeGreaterThan(0.25)
  })

  it('funding has the sign of the average premium over its interval most of the time (> 70 %)', () => {
    let agree = 0
    let n = 0
    for (const f of funding) {
      // dYdX publishes no mark apart from its oracle (mark = index): its premium is not observable
      if (f.exchange === 'dydx') continue
      const t = tickers.get(marketKeyString(f))!
      const ps: number[] = []
      for (let m = f.ts - f.intervalHours * HOUR_MS; m < f.ts; m += MINUTE_MS) {
        const x = t.get(m)
        if (x) ps.push(x.markPrice! / x.indexPrice! - 1)
      }
      if (ps.length < (f.intervalHours * 60) / 2) continue
      n++
      if (Math.sign(mean(ps)) === Math.sign(f.rate)) agree++
    }
    expect(n).toBeGreaterThan(500)
    expect(agree / n).toBeGreaterThan(0.7)
  })

  it('open interest moves: up and down hour to hour, builds in trends, drops in liquidation cascades', () => {
    for (const coin of COINS) {
      const series = oi.get(`binance:${coin}:perp`)!.map((e) => e.openInterest)
      const hourly: number[] = []
      for (let i = 60; i < series.length; i += 60) hourly.push(Math.log(series[i]! / series[i - 60]!))
      expect(Math.max(...hourly), coin).toBeGreaterThan(0.002)
      expect(Math.min(...hourly), coin).toBeLessThan(-0.002)
    }
    // the slow layer over a year of all default coins: cascades cut OI, trends build it
    const all = new MarketSimulator({ seed: 20250310 })
    const cascade: number[] = []
    const trending: number[] = []
    const ranging: number[] = []
    for (const coin of DEFAULT_COINS) {
      for (let t = Date.UTC(2024, 0, 1); t < Date.UTC(2025, 0, 1); t += HOUR_MS) {
        const s = all.hourState(coin, t)
        const next = all.hourState(coin, t + HOUR_MS)
        const d = Math.log(next.openInterest / s.openInterest)
        if (s.cascade) cascade.push(d)
        else (s.trending ? trending : ranging).push(d)
      }
    }
    expect(cascade.length).toBeGreaterThan(20)
    expect(mean(cascade)).toBeLessThan(-0.03)
    expect(mean(trending)).toBeGreaterThan(mean(ranging))
    expect(mean(trending)).toBeGreaterThan(0)
  })

  it('books: symmetric-ish, depth thinning away from mid, covering ±5 %', () => {
    const ratios: number[] = []
    for (const b of books) {
      const mid = (b.bids[0]!.price + b.asks[0]!.price) / 2
      expect(b.bids.length).toBeGreaterThanOrEqual(50)
      expect(b.bids.length).toBeLessThanOrEqual(200)
      expect(b.bids.at(-1)!.price).toBeLessThanOrEqual(mid * 0.951)
      expect(b.asks.at(-1)!.price).toBeGreaterThanOrEqual(mid * 1.049)
      const depth = (ls: { price: number; size: number }[]) => ls.reduce((s, l) => s + l.size, 0)
      ratios.push(depth(b.bids) / depth(b.asks))
      // depth per % band decays: the band within 1 % of mid holds more than the band 4-5 % away
      const band = (lo: number, hi: number) =>
        b.bids.filter((l) => 1 - l.price / mid >= lo && 1 - l.price / mid < hi).reduce((s, l) => s + l.size, 0)
      expect(band(0, 0.01)).toBeGreaterThan(band(0.04, 0.05))
    }
    expect(books.length).toBe(COINS.length * 8 * 24 * DAYS)
    expect(median(ratios)).toBeGreaterThan(0.8)
    expect(median(ratios)).toBeLessThan(1.25)
    // slight random asymmetry, not a mirror image
    expect(ratios.some((r) => Math.abs(Math.log(r)) > 0.05)).toBe(true)
  })

  it('taker buy/sell imbalance correlates with the minute return', () => {
    for (const coin of COINS) {
      const im: number[] = []
      const r: number[] = []
      for (const b of bars.get(`binance:${coin}:perp`)!.values()) {
        im.push((b.buyVolume! - b.sellVolume!) / b.volume)
        r.push(Math.log(b.close / b.open))
      }
      expect(corr(im, r), coin).toBeGreaterThan(0.2)
    }
  })

  it('trade sizes are fat-tailed (max trade far above the median), and volume per minute varies widely', () => {
    // individual trades exist live only: two minutes of ETH on binance
    const live = new MarketSimulator({ seed: 20250310, coins: ['ETH'] })
    const sizes: number[] = []
    live.live({ emit: (e) => void (e.type === 'trade' && e.exchange === 'binance' && e.marketType === 'perp' && sizes.push(e.size)) }, { manual: true, fromTs: FROM })
    live.pump(FROM + 2 * MINUTE_MS)
    live.stop()
    expect(sizes.length).toBeGreaterThan(1000)
    expect(Math.max(...sizes) / median(sizes)).toBeGreaterThan(10)
    const perMinute = [...bars.get('binance:ETH:perp')!.values()].map((b) => b.volume)
    expect(Math.max(...perMinute) / median(perMinute)).toBeGreaterThan(4)
  })

  it('volatility regimes and trends exist: calm, normal and stressed hours; some coins trend while others range', () => {
    const regimes = new Set<string>()
    let trendHours = 0
    let hours = 0
    for (let t = Date.UTC(2024, 0, 1); t < Date.UTC(2024, 6, 1); t += HOUR_MS) {
      regimes.add(sim.hourState('BTC', t).regime)
      for (const c of COINS) {
        hours++
        if (sim.hourState(c, t).trending) trendHours++
      }
    }
    expect([...regimes].sort()).toEqual(['calm', 'normal', 'stressed'])
    expect(trendHours / hours).toBeGreaterThan(0.1)
    expect(trendHours / hours).toBeLessThan(0.6)
  })
})
