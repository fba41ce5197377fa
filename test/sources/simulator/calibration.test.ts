// The simulated market against the real venues' own figures: trade counts, volumes, trade sizes and open interest
// of the order the venues report. The reference table below is the venues' recorded payloads (read raw from
// ../shared/fixtures/exchanges) and Binance's public kline archive; each simulated figure must lie within a factor
// of RANGE of the span of its references (the references themselves span quiet and busy days).
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { marketKeyString, type MinuteBar } from '../../../src/domain/minute-bars.js'
import { DAY_MS } from '../../../src/domain/time.js'
import type { OpenInterestEvent, TickerEvent } from '../../../src/domain/events.js'
import { MarketSimulator } from '../../../src/sources/simulator/index.js'
import { FIXTURES_DIR } from '../connectors/offline.js'

const RANGE = 3
const fixture = (p: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, p), 'utf8'))

type Figure = 'usdPerDay' | 'tradesPerMinute' | 'usdPerTrade' | 'oiUsd'
interface Ref {
  market: string
  figure: Figure
  value: number
  source: string
}

function references(): Ref[] {
  const refs: Ref[] = []
  const add = (market: string, figure: Figure, value: number, source: string) => refs.push({ market, figure, value, source })

  // Binance's public archive (data.binance.vision), rows as quoted in public code (no network here to re-fetch)
  add('binance:BTC:perp', 'usdPerDay', 8_572_615_379.78, 'USD-M BTCUSDT 1d kline 2025-01-01 (a holiday): quote volume')
  add('binance:BTC:perp', 'tradesPerMinute', 1_804_360 / 1440, 'USD-M BTCUSDT 1d kline 2025-01-01: count / 1440')
  add('binance:BTC:perp', 'usdPerTrade', 8_572_615_379.78 / 1_804_360, 'USD-M BTCUSDT 1d kline 2025-01-01')
  add('binance:BTC:perp', 'tradesPerMinute', 3_401, 'USD-M BTCUSDT 1m kline 2025-01-08 15:55 UTC: count')
  add('binance:BTC:perp', 'usdPerDay', 17_214_864.0122 * 1440, 'USD-M BTCUSDT 1m kline 2025-01-08 15:55 UTC: quote volume × 1440')
  add('binance:BTC:spot', 'usdPerDay', 1_723_958_338.68, 'spot BTCUSDT 1d kline 2026-06-01: quote volume')
  add('binance:BTC:spot', 'tradesPerMinute', 4_237_773 / 1440, 'spot BTCUSDT 1d kline 2026-06-01: count / 1440')

  // Bybit v5 linear BTCUSDT: REST tickers (2024-11-04) and the WebSocket recording of 2026-08-09 (a Sunday)
  const rest = fixture('bybit/tickers.json').result.list[0]
  add('bybit:BTC:perp', 'usdPerDay', Number(rest.turnover24h), 'bybit/tickers.json turnover24h')
  add('bybit:BTC:perp', 'oiUsd', Number(rest.openInterestValue), 'bybit/tickers.json openInterestValue (one-sided before 2026)')
  const ws = fixture('bybit/ws_tickers.json')[0].data
  add('bybit:BTC:perp', 'usdPerDay', Number(ws.turnover24h), 'bybit/ws_tickers.json turnover24h')
  add('bybit:BTC:perp', 'oiUsd', Number(ws.singleOpenInterest) * Number(ws.lastPrice), 'bybit/ws_tickers.json singleOpenInterest × lastPrice')
  const trades = (fixture('bybit/ws_public_trade.json') as { data: { v: string; p: string }[] }[]).flatMap((f) => f.data)
  add('bybit:BTC:perp', 'usdPerTrade', trades.reduce((s, t) => s + Number(t.v) * Number(t.p), 0) / trades.length, 'bybit/ws_public_trade.json mean notional')

  // OKX: BTC-USDT spot ticker (2024-03-13), BTC-USDT-SWAP open interest (2024-10-12)
  add('okx:BTC:spot', 'usdPerDay', Number(fixture('okx/ticker_spot.json').data[0].volCcy24h), 'okx/ticker_spot.json volCcy24h (USDT)')
  add('okx:BTC:perp', 'oiUsd', Number(fixture('okx/open_interest.json').data[0].oiUsd), 'okx/open_interest.json oiUsd')

  // Hyperliquid: the first dex's asset contexts (universe order BTC, ETH); its open interest may be two-sided, so
  // both the figure and its half are references
  const hl = fixture('hyperliquid/ws_all_dexs_asset_ctxs.json').data.ctxs[0][1]
  for (const [i, coin] of [[0, 'BTC'], [1, 'ETH']] as const) {
    add(`hyperliquid:${coin}:perp`, 'usdPerDay', Number(hl[i].dayNtlVlm), 'hyperliquid/ws_all_dexs_asset_ctxs.json dayNtlVlm')
    const oi = Number(hl[i].openInterest) * Number(hl[i].markPx)
    add(`hyperliquid:${coin}:perp`, 'oiUsd', oi, 'openInterest × markPx')
    add(`hyperliquid:${coin}:perp`, 'oiUsd', oi / 2, 'half of it (if two-sided)')
  }

  // dYdX v4 indexer (2025-12-08): 24 h volume, trade count and open interest; BTC's 1-minute candles
  const dydx = fixture('dydx/perpetual_markets.json').result.markets
  for (const coin of ['BTC', 'ETH', 'SOL']) {
    const m = dydx[`${coin}-USD`]
    add(`dydx:${coin}:perp`, 'usdPerDay', Number(m.volume24H), 'dydx/perpetual_markets.json volume24H')
    add(`dydx:${coin}:perp`, 'tradesPerMinute', m.trades24H / 1440, 'trades24H / 1440')
    add(`dydx:${coin}:perp`, 'usdPerTrade', Number(m.volume24H) / m.trades24H, 'volume24H / trades24H')
    add(`dydx:${coin}:perp`, 'oiUsd', Number(m.openInterest) * Number(m.oraclePrice), 'openInterest × oraclePrice')
  }
  for (const c of fixture('dydx/candles.json').result.candles as { trades: number }[]) add('dydx:BTC:perp', 'tradesPerMinute', c.trades, 'dydx/candles.json 1MIN trades')
  return refs
}

const FROM = Date.UTC(2025, 5, 2)
const DAYS = 3
const sim: Record<string, Record<Figure | 'peakTradesPerMinute', number>> = {}

beforeAll(() => {
  const acc = new Map<string, { trades: number; peak: number; usd: number; minutes: number; oiUsd: number; oiN: number }>()
  const mark = new Map<string, number>()
  const get = (k: string) => {
    let a = acc.get(k)
    if (!a) acc.set(k, (a = { trades: 0, peak: 0, usd: 0, minutes: 0, oiUsd: 0, oiN: 0 }))
    return a
  }
  new MarketSimulator({ seed: 1, coins: ['BTC', 'ETH', 'SOL'] }).simulateRange(FROM, FROM + DAYS * DAY_MS, {
    emit(e) {
      const k = marketKeyString(e)
      if (e.type === 'ticker') mark.set(k, (e as TickerEvent).markPrice ?? (e as TickerEvent).lastPrice!)
      else if (e.type === 'open_interest') {
        const a = get(k)
        a.oiUsd += (e as OpenInterestEvent).openInterest * mark.get(k)!
        a.oiN++
      }
    },
    emitBar(b: MinuteBar) {
      const a = get(marketKeyString(b))
      a.trades! += b.trades!
      a.peak = Math.max(a.peak, b.trades!)
      a.usd += b.quoteVolume!
      a.minutes++
    },
  })
  for (const [k, a] of acc)
    sim[k] = { usdPerDay: (a.usd / a.minutes) * 1440, tradesPerMinute: a.trades / a.minutes, peakTradesPerMinute: a.peak, usdPerTrade: a.usd / a.trades, oiUsd: a.oiUsd / a.oiN }
  expect(acc.get('binance:BTC:perp')!.minutes).toBe(DAYS * 1440)
})

describe('simulated activity against the venues’ recorded figures', () => {
  const refs = references()
  const groups = new Map<string, Ref[]>()
  for (const r of refs) {
    const k = `${r.market} ${r.figure}`
    if (!groups.has(k)) groups.set(k, [])
    groups.get(k)!.push(r)
  }

  it.each([...groups.keys()])('%s lies within the span of its references (× 1/%d … × %d)', (k) => {
    const rs = groups.get(k)!
    const [market, figure] = [rs[0]!.market, rs[0]!.figure]
    const lo = Math.min(...rs.map((r) => r.value)) / RANGE
    const hi = Math.max(...rs.map((r) => r.value)) * RANGE
    const v = sim[market]![figure]
    expect(v, `${k}: simulated ${v.toPrecision(4)} vs references ${rs.map((r) => `${r.value.toPrecision(4)} (${r.source})`).join('; ')}`).toBeGreaterThanOrEqual(lo)
    expect(v).toBeLessThanOrEqual(hi)
  })

  it('covers every venue and both market types, and BTC perp on Binance trades thousands of times a minute at its peak', () => {
    expect(new Set(refs.map((r) => r.market.split(':')[0]))).toEqual(new Set(['binance', 'bybit', 'okx', 'hyperliquid', 'dydx']))
    expect(refs.some((r) => r.market.endsWith(':spot'))).toBe(true)
    expect(sim['binance:BTC:perp']!.tradesPerMinute).toBeGreaterThan(1000)
    expect(sim['binance:BTC:perp']!.peakTradesPerMinute).toBeGreaterThan(3000)
    // the venues keep their order: dYdX trades a small fraction of what Binance does
    expect(sim['dydx:BTC:perp']!.usdPerDay / sim['binance:BTC:perp']!.usdPerDay).toBeLessThan(0.05)
  })
})
