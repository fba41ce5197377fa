// The samples the all-coins views and the snapshot read (seriesHistory, src/read/signal-inputs.ts): the part
// before the hour in progress is kept across live writes, and what is served is always exactly one read of the
// whole windows from the series as it is at that moment, in the same order.
import { describe, expect, it } from 'vitest'
import { DAY_MS, HOUR_MS, MINUTE_MS, floorTo } from '../../src/domain/time.js'
import { LiveMarket } from '../../src/read/live.js'
import { byExchange, seriesHistory } from '../../src/read/signal-inputs.js'
import { CoinSeries } from '../../src/read/series.js'
import type { MarketState } from '../../src/read/state.js'
import { rng, sample, writes } from '../helpers/series.js'

const NOW = Date.UTC(2026, 10, 20, 12, 30, 17)

const marketOf = (series: CoinSeries) => ({ series, live: new LiveMarket(), clock: () => NOW }) as unknown as MarketState

/** the whole windows read in one go, as seriesHistory read them before it kept the older part */
function readWhole(series: CoinSeries, coin: string, now: number) {
  const as = (c: ReturnType<CoinSeries['hours']['perpSamples']>[number]) => ({ exchange: c.exchange, ts: c.ts, fundingRate: c.rate, fundingIntervalHours: c.interval, markPrice: c.mark, openInterest: c.oi })
  return {
    fundingSamples: series.hours.perpSamples(coin, now - 7 * DAY_MS - HOUR_MS, now).map(as),
    oiSamples: series.minutes.perpSamples(coin, now - DAY_MS - 10 * MINUTE_MS, now).map(as),
  }
}

describe('seriesHistory', () => {
  it('equals one read of the whole windows after every live write, minute and hour boundary included', () => {
    const series = new CoinSeries()
    series.hours.coveredFrom = 0
    series.minutes.coveredFrom = 0
    const h = writes(21, HOUR_MS, 8 * 24, NOW)
    const m = writes(22, MINUTE_MS, 26 * 60, NOW)
    series.apply({ hourBars: h.bars, samples: h.samples }, NOW)
    series.apply({ minuteBars: m.bars, samples: m.samples }, NOW)
    const market = marketOf(series)
    const r = rng(23)
    let now = NOW
    let served = 0
    for (let step = 0; step < 400; step++) {
      now += Math.floor(r() * 9_000) // live writes every few seconds, across 40 minutes and an hour's start
      const exchange = (['okx', 'binance', 'hyperliquid', 'dydx'] as const)[Math.floor(r() * 4)]!
      // a write of the hour in progress, now and then one reaching back into an earlier hour (a late sample)
      const at = r() < 0.1 ? floorTo(now, HOUR_MS) - Math.floor(r() * 5) * HOUR_MS - 1000 : now - Math.floor(r() * 3000)
      series.apply({ samples: [sample(r, 'BTC', exchange, at)] }, now)
      const got = seriesHistory(market, 'BTC', now)
      expect(got).toEqual(readWhole(series, 'BTC', now))
      served += got.oiSamples.length
    }
    expect(served).toBeGreaterThan(400 * 100)
  })

  it('joins two reads by exchange in the series order, whoever has which venue', () => {
    const row = (exchange: 'binance' | 'bybit' | 'okx', ts: number) => ({ exchange, ts })
    expect(byExchange([row('binance', 1), row('binance', 2), row('okx', 1)], [row('binance', 3), row('bybit', 3), row('okx', 2)])).toEqual([
      row('binance', 1), row('binance', 2), row('binance', 3), row('bybit', 3), row('okx', 1), row('okx', 2),
    ])
    expect(byExchange([], [row('okx', 1)])).toEqual([row('okx', 1)])
    expect(byExchange([row('bybit', 1)], [])).toEqual([row('bybit', 1)])
  })
})
