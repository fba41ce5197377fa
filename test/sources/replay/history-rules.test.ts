// History calls in a replay (docs/recordings.md "History"): which calls are history calls on each venue, the window
// a request asks for in each venue's own parameters, the recorded page that covers a call, and the venue's empty
// answer (parsed by CCXT as an empty page) when none does. Calls outside a history fetch are matched as before.
import ccxt, { type Exchange } from 'ccxt'
import { describe, expect, it } from 'vitest'
import type { ExchangeId } from '../../../src/domain/exchanges.js'
import type { HttpLine } from '../../../src/sources/replay/format.js'
import { HISTORY_RULES, rowTime } from '../../../src/sources/replay/history-rules.js'
import { HttpIndex, requestKey } from '../../../src/sources/replay/http-match.js'
import { asHistoryFetch, HttpReplay } from '../../../src/sources/replay/http-replay.js'
import { VENUE_RULES } from '../../../src/sources/replay/venues.js'

const line = (venue: ExchangeId, at: number, url: string, body: unknown, extra: Partial<HttpLine> = {}): HttpLine => ({
  v: 1,
  venue,
  at,
  kind: 'http',
  method: 'GET',
  url,
  status: 200,
  body: typeof body === 'string' ? body : JSON.stringify(body),
  ...extra,
})
const index = (lines: HttpLine[]) => new HttpIndex(lines, VENUE_RULES, (t) => t)
const get = (url: string) => requestKey('GET', url)
const post = (url: string, body: unknown) => requestKey('POST', url, JSON.stringify(body))
const bodyOf = (c: ReturnType<HttpIndex['cover']>) => c && JSON.parse(c.response.line.body)

describe('the window a request asks for, in each venue\'s parameters', () => {
  it('Binance and Bybit: inclusive ms bounds; Bybit pages by cursor', () => {
    expect(HISTORY_RULES.binance.window(get('https://fapi.binance.com/fapi/v1/klines?symbol=BTCUSDT&interval=1m&startTime=1000&endTime=1999&limit=1500'))).toEqual({ from: 1000, to: 2000 })
    expect(HISTORY_RULES.binance.window(get('https://fapi.binance.com/fapi/v1/fundingRate?symbol=BTCUSDT&limit=10'))).toBeNull()
    expect(HISTORY_RULES.binance.window(get('https://fapi.binance.com/fapi/v1/klines?symbol=BTCUSDT&startTime=1000'))).toEqual({ from: 1000, to: null })
    expect(HISTORY_RULES.bybit.window(get('https://api.bybit.com/v5/market/kline?category=linear&symbol=BTCUSDT&interval=1&start=1000&end=1999'))).toEqual({ from: 1000, to: 2000 })
    const oi = get('https://api.bybit.com/v5/market/open-interest?category=linear&symbol=BTCUSDT&intervalTime=5min&startTime=1000&endTime=1999&cursor=abc')
    expect(HISTORY_RULES.bybit.window(oi)).toEqual({ from: 1000, to: 2000 })
    expect(HISTORY_RULES.bybit.cursor(oi)).toBe(true)
  })

  it('OKX: after is "older than", before "newer than" (exclusive); the statistics take begin and end', () => {
    expect(HISTORY_RULES.okx.window(get('https://www.okx.com/api/v5/market/history-candles?instId=BTC-USDT-SWAP&bar=1m&after=5000&limit=100'))).toEqual({ from: null, to: 5000 })
    expect(HISTORY_RULES.okx.window(get('https://www.okx.com/api/v5/market/history-candles?instId=BTC-USDT-SWAP&bar=1m&after=5000&before=1000'))).toEqual({ from: 1001, to: 5000 })
    expect(HISTORY_RULES.okx.window(get('https://www.okx.com/api/v5/rubik/stat/contracts/open-interest-history?instId=BTC-USDT-SWAP&period=5m&begin=1000&end=1999'))).toEqual({ from: 1000, to: 2000 })
  })

  it('Hyperliquid: startTime and endTime in the POST body (candleSnapshot nests them in req); dYdX: ISO 8601', () => {
    const candles = post('https://api.hyperliquid.xyz/info', { type: 'candleSnapshot', req: { coin: 'BTC', interval: '1m', startTime: 1000, endTime: 1999 } })
    expect(HISTORY_RULES.hyperliquid.window(candles)).toEqual({ from: 1000, to: 2000 })
    expect(HISTORY_RULES.dydx.window(get('https://indexer.dydx.trade/v4/candles/perpetualMarkets/BTC-USD?resolution=1MIN&fromISO=2026-01-01T00:00:00.000Z&toISO=2026-01-01T01:00:00.000Z'))).toEqual({
      from: Date.UTC(2026, 0, 1),
      to: Date.UTC(2026, 0, 1, 1) + 1,
    })
    expect(HISTORY_RULES.dydx.window(get('https://indexer.dydx.trade/v4/historicalFunding/BTC-USD?effectiveBeforeOrAt=2026-01-01T00:00:00.000Z'))).toEqual({ from: null, to: Date.UTC(2026, 0, 1) + 1 })
  })

  it('a row\'s time: an array row\'s first element, an object row\'s time field (ms, numeric string or ISO)', () => {
    expect(rowTime([1700000000000, '1', '2'])).toBe(1700000000000)
    expect(rowTime(['1700000000000', '1'])).toBe(1700000000000)
    expect(rowTime({ symbol: 'BTCUSDT', sumOpenInterest: '1', timestamp: 1700000000000 })).toBe(1700000000000)
    expect(rowTime({ fundingRateTimestamp: '1700000000000' })).toBe(1700000000000)
    expect(rowTime({ effectiveAt: '2026-01-01T00:00:00.000Z' })).toBe(Date.UTC(2026, 0, 1))
    expect(rowTime({ t: 5, T: 6 })).toBe(5)
    expect(rowTime({ nothing: 1 })).toBeNull()
  })
})

describe('which recorded page answers a history call', () => {
  const BN = 'https://fapi.binance.com/fapi/v1/klines?symbol=BTCUSDT&interval=1m'
  const rows = (from: number, n: number) => Array.from({ length: n }, (_, i) => [from + i * 60_000, '1', '1', '1', '1', '1', 0, '1', 1, '1', '1', '0'])
  const pages = [
    line('binance', 10, `${BN}&startTime=0&endTime=5999999&limit=1500`, rows(0, 100)),
    line('binance', 20, `${BN}&startTime=6000000&endTime=11999999&limit=1500`, rows(6_000_000, 100)),
    line('binance', 30, `${BN}&startTime=0&endTime=11999999&limit=1500`, rows(0, 200)),
    line('binance', 40, `https://fapi.binance.com/fapi/v1/klines?symbol=ETHUSDT&interval=1m&startTime=0&endTime=11999999&limit=1500`, 'eth'),
    line('binance', 50, `${BN}&startTime=12000000&endTime=17999999&limit=1500`, { code: -1003, msg: 'Too many requests' }, { status: 429 }),
  ]

  it('the same request, else the narrowest page whose window covers the call, same symbol and interval', () => {
    const idx = index(pages)
    expect(idx.cover('binance', get(`${BN}&startTime=6000000&endTime=11999999&limit=1500`))).toMatchObject({ how: 'exact', response: { line: { at: 20 } } })
    // a narrowed call (the store held part of the page): the narrower of the two pages covering it
    expect(idx.cover('binance', get(`${BN}&startTime=6060000&endTime=6599999&limit=1500`))).toMatchObject({ how: 'covering', response: { line: { at: 20 } } })
    // across the two small pages: only the wide one covers it
    expect(idx.cover('binance', get(`${BN}&startTime=5000000&endTime=6599999&limit=1500`))).toMatchObject({ how: 'covering', response: { line: { at: 30 } } })
    // beyond every page, or another interval: none (a 429 answer never covers)
    expect(idx.cover('binance', get(`${BN}&startTime=12000000&endTime=12599999&limit=1500`))).toBeUndefined()
    expect(idx.cover('binance', get(`https://fapi.binance.com/fapi/v1/klines?symbol=BTCUSDT&interval=5m&startTime=0&endTime=5999999`))).toBeUndefined()
    expect(idx.cover('binance', get(`https://fapi.binance.com/fapi/v1/klines?symbol=SOLUSDT&interval=1m&startTime=0&endTime=5999999`))).toBeUndefined()
  })

  it('a request open on one side covers as far as its rows go; a cursor page only its rows\' span', () => {
    const OKX = 'https://www.okx.com/api/v5/market/history-candles?instId=BTC-USDT-SWAP&bar=1m'
    const okxRows = (newest: number, n: number) => Array.from({ length: n }, (_, i) => [String(newest - i * 60_000), '1', '1', '1', '1', '1', '1', '1', '1'])
    const idx = index([line('okx', 10, `${OKX}&after=6000000&limit=100`, { code: '0', msg: '', data: okxRows(5_940_000, 100) })])
    // rows 0 .. 5 940 000 (older than after=6 000 000): from the oldest row up to `after`
    expect(bodyOf(idx.cover('okx', get(`${OKX}&after=3000000&before=59999&limit=100`)))?.code).toBe('0')
    expect(idx.cover('okx', get(`${OKX}&after=7000000&before=5999999&limit=100`))).toBeUndefined()
    const BY = 'https://api.bybit.com/v5/market/open-interest?category=linear&symbol=BTCUSDT&intervalTime=5min&startTime=0&endTime=5999999&limit=200'
    const list = (newest: number, n: number) => Array.from({ length: n }, (_, i) => ({ openInterest: '1', timestamp: String(newest - i * 300_000) }))
    const cursorPages = index([line('bybit', 10, `${BY}&cursor=page2`, { retCode: 0, retMsg: 'OK', result: { category: 'linear', symbol: 'BTCUSDT', list: list(2_700_000, 10), nextPageCursor: 'page3' }, time: 1 })])
    // the page's rows are 0 .. 2 700 000: a call for later rows of the same window is not covered by it
    expect(cursorPages.cover('bybit', get('https://api.bybit.com/v5/market/open-interest?category=linear&symbol=BTCUSDT&intervalTime=5min&startTime=0&endTime=2699999&limit=200'))).toMatchObject({ how: 'covering' })
    expect(cursorPages.cover('bybit', get('https://api.bybit.com/v5/market/open-interest?category=linear&symbol=BTCUSDT&intervalTime=5min&startTime=3000000&endTime=5999999&limit=200'))).toBeUndefined()
  })

  it('Hyperliquid by its POST body (the coin), dYdX by its path (the market)', () => {
    const hl = (coin: string, from: number, to: number) => ({ type: 'candleSnapshot', req: { coin, interval: '1m', startTime: from, endTime: to } })
    const idx = index([
      line('hyperliquid', 10, 'https://api.hyperliquid.xyz/info', [{ t: 0 }], { method: 'POST', requestBody: JSON.stringify(hl('BTC', 0, 5_999_999)) }),
      line('dydx', 10, 'https://indexer.dydx.trade/v4/candles/perpetualMarkets/BTC-USD?resolution=1MIN&fromISO=1970-01-01T00:00:00.000Z&toISO=1970-01-01T01:39:59.999Z', { candles: [] }),
    ])
    expect(idx.cover('hyperliquid', post('https://api.hyperliquid.xyz/info', hl('BTC', 60_000, 120_000)))).toMatchObject({ how: 'covering' })
    expect(idx.cover('hyperliquid', post('https://api.hyperliquid.xyz/info', hl('ETH', 60_000, 120_000)))).toBeUndefined()
    expect(idx.cover('dydx', get('https://indexer.dydx.trade/v4/candles/perpetualMarkets/BTC-USD?resolution=1MIN&fromISO=1970-01-01T00:10:00.000Z&toISO=1970-01-01T00:20:00.000Z'))).toMatchObject({ how: 'covering' })
    expect(idx.cover('dydx', get('https://indexer.dydx.trade/v4/candles/perpetualMarkets/ETH-USD?resolution=1MIN&fromISO=1970-01-01T00:10:00.000Z&toISO=1970-01-01T00:20:00.000Z'))).toBeUndefined()
    // history calls are the history endpoints' calls with a window: not a market list, not a poll of the newest rows
    expect(idx.isHistoryCall('hyperliquid', post('https://api.hyperliquid.xyz/info', { type: 'metaAndAssetCtxs' }))).toBe(false)
    expect(idx.isHistoryCall('binance', get('https://fapi.binance.com/fapi/v1/fundingRate?symbol=BTCUSDT&limit=10'))).toBe(false)
    expect(idx.isHistoryCall('binance', get('https://fapi.binance.com/fapi/v1/fundingRate?symbol=BTCUSDT&startTime=0&limit=1000'))).toBe(true)
  })
})

describe('a history call through CCXT in a replay', () => {
  const recorded = [
    line('binance', 100, 'https://fapi.binance.com/fapi/v1/klines?symbol=BTCUSDT&interval=1m&startTime=0&endTime=5999999&limit=1500', [[0, '1', '2', '0.5', '1.5', '10', 59_999, '15', 3, '4', '6', '0']]),
    line('hyperliquid', 100, 'https://api.hyperliquid.xyz/info', [{ coin: 'BTC', fundingRate: '0.0001', premium: '0', time: 3_600_000 }], {
      method: 'POST',
      requestBody: JSON.stringify({ type: 'fundingHistory', coin: 'BTC', startTime: 0 }),
    }),
  ]
  const replay = () => {
    const r = new HttpReplay({ index: index(recorded), position: () => ({ pass: 0, compressed: 0 }), ended: () => true, unanswerable: () => {} })
    const ex = (e: Exchange, venue: ExchangeId) => (r.install(venue, e), e as unknown as Record<string, (p: unknown) => Promise<unknown>>)
    return { r, ex }
  }

  it('covered: the recorded page; not covered: the venue\'s empty answer, which CCXT takes as an empty page', async () => {
    const { r, ex } = replay()
    const binance = ex(new ccxt.binanceusdm(), 'binance')
    const page = await asHistoryFetch(() => binance['fapiPublicGetKlines']!({ symbol: 'BTCUSDT', interval: '1m', startTime: 60_000, endTime: 119_999, limit: 1500 }))
    expect(page).toEqual(JSON.parse(recorded[0]!.body))
    expect(await asHistoryFetch(() => binance['fapiPublicGetKlines']!({ symbol: 'BTCUSDT', interval: '1m', startTime: 6_000_000, endTime: 6_059_999, limit: 1500 }))).toEqual([])
    const empties: Array<[ExchangeId, Exchange, string, unknown, (body: any) => unknown]> = [
      ['bybit', new ccxt.bybit(), 'publicGetV5MarketKline', { category: 'linear', symbol: 'BTCUSDT', interval: '1', start: 0, end: 59_999 }, (b) => b.result.list],
      ['bybit', new ccxt.bybit(), 'publicGetV5MarketOpenInterest', { category: 'linear', symbol: 'BTCUSDT', intervalTime: '5min', startTime: 0, endTime: 59_999 }, (b) => b.result.list],
      ['okx', new ccxt.okx(), 'publicGetMarketHistoryCandles', { instId: 'BTC-USDT-SWAP', bar: '1m', after: 60_000 }, (b) => b.data],
      ['okx', new ccxt.okx(), 'publicGetRubikStatContractsOpenInterestHistory', { instId: 'BTC-USDT-SWAP', period: '5m', begin: 0, end: 59_999 }, (b) => b.data],
      ['hyperliquid', new ccxt.hyperliquid(), 'publicPostInfo', { type: 'candleSnapshot', req: { coin: 'BTC', interval: '1m', startTime: 0, endTime: 59_999 } }, (b) => b],
      ['dydx', new ccxt.dydx(), 'indexerGetCandlesPerpetualMarketsMarket', { market: 'BTC-USD', resolution: '1MIN', fromISO: '1970-01-01T00:00:00.000Z', toISO: '1970-01-01T00:01:00.000Z' }, (b) => b.candles],
      ['dydx', new ccxt.dydx(), 'indexerGetHistoricalFundingMarket', { market: 'BTC-USD', effectiveBeforeOrAt: '1970-01-01T00:01:00.000Z' }, (b) => b.historicalFunding],
    ]
    for (const [venue, e, method, params, rowsOf] of empties) expect(rowsOf(await asHistoryFetch(() => ex(e, venue)[method]!(params))), `${venue} ${method}`).toEqual([])
    expect(r.history).toEqual({ exact: 0, covering: 1, uncovered: 1 + empties.length })
  })

  it('outside a history fetch the same calls are matched as before: the window ignored, the replay clock obeyed', async () => {
    const { r, ex } = replay()
    const hl = ex(new ccxt.hyperliquid(), 'hyperliquid')
    // a connector's funding poll asks the last hours: the recorded answer, whatever its window
    await expect(hl['publicPostInfo']!({ type: 'fundingHistory', coin: 'BTC', startTime: 99_000_000 })).rejects.toThrow(/the recording has ended/)
    expect(r.history).toEqual({ exact: 0, covering: 0, uncovered: 0 })
    // inside a history fetch: by its window (none covers 99 000 000 onwards: an empty page), even after the end
    expect(await asHistoryFetch(() => hl['publicPostInfo']!({ type: 'fundingHistory', coin: 'BTC', startTime: 99_000_000 }))).toEqual([])
    expect(await asHistoryFetch(() => hl['publicPostInfo']!({ type: 'fundingHistory', coin: 'BTC', startTime: 0 }))).toEqual(JSON.parse(recorded[1]!.body))
    expect(r.history).toEqual({ exact: 1, covering: 0, uncovered: 1 })
  })
})
