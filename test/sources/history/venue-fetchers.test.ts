// The OKX, Hyperliquid and dYdX fetchers through CCXT's own request path (offline: recorded bodies answer): the
// implicit method each kind calls, the URL or body CCXT builds from the page's bounds, and the page made of the
// answer (what it covers, its bars and events, a listing found). The Bybit fetcher runs end to end against its
// venue double (bybit-history.test.ts).
import '../../helpers/no-network.js'
import ccxt, { type Exchange } from 'ccxt'
import { describe, expect, it } from 'vitest'
import { marketRef, type MarketRef } from '../../../src/sources/connectors/mapping.js'
import { DydxHistory } from '../../../src/sources/history/dydx.js'
import { HyperliquidHistory } from '../../../src/sources/history/hyperliquid.js'
import { OkxHistory } from '../../../src/sources/history/okx.js'
import type { HistoryRequest } from '../../../src/domain/venue-history.js'
import { fixture, fixtureText, offlineHttp, type Route } from '../connectors/offline.js'

const MIN = 60_000
const H = 3_600_000
const signal = new AbortController().signal

function offline(ex: Exchange, venue: MarketRef['exchange'], markets: string, symbols: string[], routes: Route[]) {
  ex.setMarkets(fixture(markets))
  const refs = symbols.map((s) => marketRef(venue, ex.market(s).base, ex.market(s)))
  const requests = offlineHttp(ex, routes)
  return { refs, requests, markets: () => refs as readonly MarketRef[], make: <T>(ctor: new (o: { ex: Exchange; markets: () => readonly MarketRef[] }) => T): T => new ctor({ ex, markets: () => refs }) }
}

const query = (url: string) => Object.fromEntries(new URL(url).searchParams)

describe('okx fetcher', () => {
  const setup = () => {
    const o = offline(new ccxt.okx(), 'okx', 'okx/ccxt_markets.json', ['BTC/USDT:USDT', 'BTC/USDT'], [
      ['/market/history-candles', fixtureText('okx/candles_swap.json')],
      ['/public/funding-rate-history', fixtureText('okx/funding_rate_history.json')],
      ['/rubik/stat/contracts/open-interest-history', JSON.stringify({ code: '0', msg: '', data: [['1701417600000', '731377.57500501', '111', '8888888'], ['1701417300000', '731377.57500501', '110', '8888888']] })],
    ])
    return { ...o, okx: o.make(OkxHistory) }
  }

  it('history-candles: after/before one off the page on each side, 1m, 300 a page; the SWAP volume in coins, no taker split', async () => {
    const { okx, requests } = setup()
    const req: HistoryRequest = { coin: 'BTC', kind: 'candles_perp', from: 1747094100000 - 300 * MIN, to: 1747094100000 }
    const page = await okx.fetch(req, signal)
    expect(new URL(requests[0]!.url).pathname).toBe('/api/v5/market/history-candles')
    expect(query(requests[0]!.url)).toEqual({ instId: 'BTC-USDT-SWAP', bar: '1m', after: String(req.to - 1), before: String(req.from - 1), limit: '300' })
    expect([page.from, page.to, page.exhaustedBefore]).toEqual([req.from, req.to, undefined])
    expect(page.bars.map((b) => [b.ts, b.volume, b.buyVolume, b.sellVolume, b.quoteVolume, b.trades, b.source])).toEqual([
      [1747093980000, 71.6404, null, null, 7364701.57952, null, 'venue_kline'],
      [1747094040000, 10.4037, null, null, 1069603.34883, null, 'venue_kline'],
    ])
  })

  it('a page older than the instrument (listTime / contTdSwTime) ends the series at its listing', async () => {
    const { okx } = setup()
    const listed = 1611916860000 // BTC-USDT-SWAP contTdSwTime in ccxt_markets.json
    const page = await okx.fetch({ coin: 'BTC', kind: 'candles_perp', from: listed - 100 * MIN, to: listed + 200 * MIN }, signal)
    expect(page.exhaustedBefore).toEqual({ ts: listed, reason: 'listing' })
  })

  it('funding-rate-history: the realized rate, each settlement with its 8-hour spacing, marked as venue history', async () => {
    const { okx, requests } = setup()
    const req: HistoryRequest = { coin: 'BTC', kind: 'funding', from: 1704038400000 - 100 * H, to: 1704067200000 + H }
    const page = await okx.fetch(req, signal)
    expect(query(requests[0]!.url)).toEqual({ instId: 'BTC-USDT-SWAP', after: String(req.to - 1), before: String(req.from - 1), limit: '400' })
    expect(page.events).toEqual([
      { type: 'funding', exchange: 'okx', coin: 'BTC', marketType: 'perp', ts: 1704038400000, rate: -0.00002, intervalHours: 8, source: 'venue_history' },
      { type: 'funding', exchange: 'okx', coin: 'BTC', marketType: 'perp', ts: 1704067200000, rate: 0.00015, intervalHours: 8, source: 'venue_history' },
    ])
  })

  it('open-interest-history: 5m, begin/end one off the page, 100 a page; oiCcy in coins', async () => {
    const { okx, requests } = setup()
    const req: HistoryRequest = { coin: 'BTC', kind: 'open_interest', from: 1701417600000 - 100 * 5 * MIN + 5 * MIN, to: 1701417600000 + 5 * MIN }
    const page = await okx.fetch(req, signal)
    expect(new URL(requests[0]!.url).pathname).toBe('/api/v5/rubik/stat/contracts/open-interest-history')
    expect(query(requests[0]!.url)).toEqual({ instId: 'BTC-USDT-SWAP', period: '5m', begin: String(req.from - 1), end: String(req.to - 1), limit: '100' })
    expect(page.events.map((e) => [e.ts, e.type === 'open_interest' && e.openInterest])).toEqual([[1701417300000, 110], [1701417600000, 111]])
  })
})

describe('hyperliquid fetcher', () => {
  const setup = (candles: string) => {
    const o = offline(new ccxt.hyperliquid(), 'hyperliquid', 'hyperliquid/ccxt_markets.json', ['BTC/USDC:USDC'], [
      [(_u, body) => !!body && JSON.parse(body).type === 'fundingHistory', fixtureText('hyperliquid/funding_history.json')],
      [(_u, body) => !!body && JSON.parse(body).type === 'candleSnapshot' && JSON.parse(body).req.startTime === 0, '[]'],
      [(_u, body) => !!body && JSON.parse(body).type === 'candleSnapshot', candles],
    ])
    return { ...o, hl: o.make(HyperliquidHistory) }
  }

  it('candleSnapshot: POST /info with the coin, 1m and the page bounds (endTime inclusive); v in coins, n trades, no quote volume', async () => {
    const { hl, requests } = setup(fixtureText('hyperliquid/candles.json'))
    const first = 1684699200000
    const req: HistoryRequest = { coin: 'BTC', kind: 'candles_perp', from: first, to: first + 5000 * MIN }
    const page = await hl.fetch(req, signal)
    expect(requests).toHaveLength(1)
    expect(new URL(requests[0]!.url).pathname).toBe('/info')
    expect(JSON.parse(requests[0]!.body!)).toEqual({ type: 'candleSnapshot', req: { coin: 'BTC', interval: '1m', startTime: req.from, endTime: req.to - 1 } })
    expect(page.bars).toHaveLength(24)
    expect(page.bars[0]).toMatchObject({ ts: first, volume: 520665683, trades: 709, buyVolume: null, quoteVolume: null, source: 'venue_kline' })
    expect([page.from, page.to, page.exhaustedBefore]).toEqual([req.from, req.to, undefined])
  })

  it('no candle from the page start and nothing older kept: one probe from the epoch finds the listing', async () => {
    const { hl, requests } = setup(fixtureText('hyperliquid/candles.json'))
    const first = 1684699200000
    const page = await hl.fetch({ coin: 'BTC', kind: 'candles_perp', from: first - 60 * MIN, to: first + 4000 * MIN }, signal)
    expect(requests).toHaveLength(2)
    expect(JSON.parse(requests[1]!.body!).req).toEqual({ coin: 'BTC', interval: '1m', startTime: 0, endTime: first - 1 })
    expect(page.exhaustedBefore).toEqual({ ts: first, reason: 'listing' })
  })

  it('an answer at the 500-row cap covers up to its newest row only (the runner asks for the rest)', async () => {
    const t0 = Date.UTC(2026, 10, 1)
    const rows = Array.from({ length: 500 }, (_, i) => ({ t: t0 + i * MIN, T: t0 + i * MIN + MIN - 1, s: 'BTC', i: '1m', o: '1', c: '1', h: '1', l: '1', v: '2', n: 3 }))
    const { hl } = setup(JSON.stringify(rows))
    const page = await hl.fetch({ coin: 'BTC', kind: 'candles_perp', from: t0, to: t0 + 5000 * MIN }, signal)
    expect([page.from, page.to, page.bars.length]).toEqual([t0, t0 + 500 * MIN, 500])
  })

  it('fundingHistory: startTime/endTime, each settlement with the spacing it shows (8 h in May 2023)', async () => {
    const { hl, requests } = setup('[]')
    const req: HistoryRequest = { coin: 'BTC', kind: 'funding', from: 1683849600000, to: 1683849600000 + 499 * H }
    const page = await hl.fetch(req, signal)
    expect(JSON.parse(requests[0]!.body!)).toEqual({ type: 'fundingHistory', coin: 'BTC', startTime: req.from, endTime: req.to - 1 })
    const rows = fixture<{ time: number; fundingRate: string }[]>('hyperliquid/funding_history.json')
    expect(page.events.map((e) => [e.ts, e.type === 'funding' && e.rate, e.type === 'funding' && e.intervalHours])).toEqual(rows.map((r) => [r.time, Number(r.fundingRate), 8]))
    expect(page.to).toBe(req.to)
  })

  it('publishes no open-interest or long/short history', () => {
    const { hl } = setup('[]')
    expect([...hl.kinds].sort()).toEqual(['candles_perp', 'funding'])
  })
})

describe('dydx fetcher', () => {
  const setup = (routes: Route[] = []) => {
    const result = (path: string) => JSON.stringify(fixture<{ result: unknown }>(path).result)
    const o = offline(new ccxt.dydx(), 'dydx', 'dydx/ccxt_markets.json', ['BTC/USDC:USDC'], [
      ...routes,
      ['/v4/candles/perpetualMarkets/BTC-USD', result('dydx/candles.json')],
      ['/v4/historicalFunding/BTC-USD', result('dydx/historical_funding.json')],
    ])
    return { ...o, dydx: o.make(DydxHistory) }
  }

  it('candles: the ticker in the path, 1MIN, fromISO/toISO, 1 000 a page; baseTokenVolume, usdVolume, trades; no taker split', async () => {
    const { dydx, requests } = setup()
    const from = Date.UTC(2025, 11, 8, 16, 9)
    const page = await dydx.fetch({ coin: 'BTC', kind: 'candles_perp', from, to: from + 3 * MIN }, signal)
    expect(new URL(requests[0]!.url).pathname).toBe('/v4/candles/perpetualMarkets/BTC-USD')
    expect(query(requests[0]!.url)).toEqual({ resolution: '1MIN', fromISO: '2025-12-08T16:09:00.000Z', toISO: '2025-12-08T16:11:59.999Z', limit: '1000' })
    expect(page.bars.map((b) => [b.ts, b.volume, b.quoteVolume, b.trades, b.buyVolume])).toEqual([
      [from, 1.2221, 109940.752, 41, null],
      [from + MIN, 3.9023, 351009.0795, 72, null],
      [from + 2 * MIN, 3.2767, 294697.4391, 49, null],
    ])
    expect([page.from, page.to, page.exhaustedBefore]).toEqual([from, from + 3 * MIN, undefined])
  })

  it('open interest: the 5MINS candles, each startingOpenInterest at its candle start', async () => {
    const five = JSON.stringify({ candles: [{ startedAt: '2025-12-08T16:10:00.000Z', ticker: 'BTC-USD', resolution: '5MINS', low: '1', high: '1', open: '1', close: '1', baseTokenVolume: '1', usdVolume: '1', trades: 1, startingOpenInterest: '382.3498' }, { startedAt: '2025-12-08T16:05:00.000Z', ticker: 'BTC-USD', resolution: '5MINS', low: '1', high: '1', open: '1', close: '1', baseTokenVolume: '1', usdVolume: '1', trades: 1, startingOpenInterest: '380.1' }] })
    const { dydx, requests } = setup([[(u) => u.includes('resolution=5MINS'), five]])
    const from = Date.UTC(2025, 11, 8, 16, 5)
    const page = await dydx.fetch({ coin: 'BTC', kind: 'open_interest', from, to: from + 10 * MIN }, signal)
    expect(query(requests[0]!.url)).toMatchObject({ resolution: '5MINS', limit: '1000' })
    expect(page.events).toEqual([
      { type: 'open_interest', exchange: 'dydx', coin: 'BTC', marketType: 'perp', ts: from, openInterest: 380.1, source: 'venue_history' },
      { type: 'open_interest', exchange: 'dydx', coin: 'BTC', marketType: 'perp', ts: from + 5 * MIN, openInterest: 382.3498, source: 'venue_history' },
    ])
  })

  it('a page whose first candle is after its start asks for the newest candle before it; none: the listing', async () => {
    const { dydx, requests } = setup([[(u) => u.includes('limit=1&') || u.endsWith('limit=1'), JSON.stringify({ candles: [] })]])
    const first = Date.UTC(2025, 11, 8, 16, 9)
    const page = await dydx.fetch({ coin: 'BTC', kind: 'candles_perp', from: first - 30 * MIN, to: first + 3 * MIN }, signal)
    expect(query(requests[1]!.url)).toEqual({ resolution: '1MIN', toISO: '2025-12-08T16:08:59.999Z', limit: '1' })
    expect(page.exhaustedBefore).toEqual({ ts: first, reason: 'listing' })
  })

  it('historicalFunding: effectiveBeforeOrAt the page end, the hourly rate at effectiveAt', async () => {
    const { dydx, requests } = setup()
    const to = Date.UTC(2025, 11, 8, 17)
    const page = await dydx.fetch({ coin: 'BTC', kind: 'funding', from: to - 999 * H, to }, signal)
    expect(new URL(requests[0]!.url).pathname).toBe('/v4/historicalFunding/BTC-USD')
    expect(query(requests[0]!.url)).toEqual({ effectiveBeforeOrAt: '2025-12-08T16:59:59.999Z', limit: '1000' })
    expect(page.events.map((e) => [e.ts, e.type === 'funding' && e.rate, e.type === 'funding' && e.intervalHours])).toEqual([
      [Date.parse('2025-12-08T14:00:00.112Z'), 0.000000625, 1],
      [Date.parse('2025-12-08T15:00:00.586Z'), 0.000000375, 1],
      [Date.parse('2025-12-08T16:00:00.219Z'), 0.000002375, 1],
    ])
  })
})
