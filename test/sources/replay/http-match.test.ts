// Which recorded response answers a call (docs/recordings.md "Matching a call").
import { describe, expect, it } from 'vitest'
import type { HttpLine } from '../../../src/sources/replay/format.js'
import { HttpIndex, requestKey } from '../../../src/sources/replay/http-match.js'
import { VENUE_RULES } from '../../../src/sources/replay/venues.js'
import type { ExchangeId } from '../../../src/domain/exchanges.js'

const line = (venue: ExchangeId, at: number, url: string, body: string, extra: Partial<HttpLine> = {}): HttpLine => ({ v: 1, venue, at, kind: 'http', method: 'GET', url, status: 200, body, ...extra })
const index = (lines: HttpLine[]) => new HttpIndex(lines, VENUE_RULES, (t) => t)
const get = (url: string) => requestKey('GET', url)

describe('matching a call to a recorded response', () => {
  const BN = 'https://fapi.binance.com'
  const lines = [
    line('binance', 100, `${BN}/fapi/v1/depth?symbol=BTCUSDT&limit=1000`, 'btc-1'),
    line('binance', 200, `${BN}/fapi/v1/depth?symbol=ETHUSDT&limit=1000`, 'eth-1'),
    line('binance', 300, `${BN}/fapi/v1/depth?symbol=BTCUSDT&limit=1000`, 'btc-2'),
    line('binance', 400, `${BN}/fapi/v1/depth?symbol=BTCUSDT&limit=5`, 'btc-5'),
  ]

  it('newest at or before the replay clock, same path and parameters', () => {
    const idx = index(lines)
    expect(idx.match('binance', get(`${BN}/fapi/v1/depth?symbol=BTCUSDT&limit=1000`), 250, 0)?.line.body).toBe('btc-1')
    expect(idx.match('binance', get(`${BN}/fapi/v1/depth?symbol=BTCUSDT&limit=1000`), 350, 0)?.line.body).toBe('btc-2')
    // an exact match wins over a newer response that differs only in an ignored parameter
    expect(idx.match('binance', get(`${BN}/fapi/v1/depth?symbol=BTCUSDT&limit=1000`), 500, 0)?.line.body).toBe('btc-2')
    // another symbol never answers
    expect(idx.match('binance', get(`${BN}/fapi/v1/depth?symbol=ETHUSDT&limit=1000`), 500, 0)?.line.body).toBe('eth-1')
    expect(idx.match('binance', get(`${BN}/fapi/v1/depth?symbol=SOLUSDT&limit=1000`), 500, 0)).toBeUndefined()
    // other venue, other path: nothing
    expect(idx.match('bybit', get(`${BN}/fapi/v1/depth?symbol=BTCUSDT&limit=1000`), 500, 0)).toBeUndefined()
    expect(idx.match('binance', get(`${BN}/fapi/v1/openInterest?symbol=BTCUSDT`), 500, 0)).toBeUndefined()
  })

  it('time-window and paging parameters are ignored (the venue list), the others are not', () => {
    const idx = index(lines)
    // limit=20 was never recorded: the same symbol with any limit answers, the newest first
    expect(idx.match('binance', get(`${BN}/fapi/v1/depth?symbol=BTCUSDT&limit=20`), 500, 0)?.line.body).toBe('btc-5')
    expect(idx.match('binance', get(`${BN}/fapi/v1/depth?symbol=BTCUSDT&limit=20`), 350, 0)?.line.body).toBe('btc-2')
    expect([...VENUE_RULES.binance.ignoredParams]).toEqual(expect.arrayContaining(['startTime', 'endTime', 'limit']))
    expect([...VENUE_RULES.okx.ignoredParams]).toEqual(expect.arrayContaining(['after', 'before', 'limit']))
    expect([...VENUE_RULES.bybit.ignoredParams]).toEqual(expect.arrayContaining(['cursor', 'limit', 'start', 'end']))
  })

  it('before the first recorded answer: the first one (first pass), the recording\'s last (later passes)', () => {
    const idx = index(lines)
    const call = get(`${BN}/fapi/v1/depth?symbol=BTCUSDT&limit=1000`)
    expect(idx.match('binance', call, 50, 0)?.line.body).toBe('btc-1')
    expect(idx.match('binance', call, 50, 1)?.line.body).toBe('btc-2')
  })

  it('compatible: a recorded answer for one instrument answers a call for all (OKX mark-price), never one for another', () => {
    const OKX = 'https://www.okx.com'
    const idx = index([line('okx', 10, `${OKX}/api/v5/public/mark-price?instType=SWAP&instId=BTC-USDT-SWAP`, 'btc-mark')])
    expect(idx.match('okx', get(`${OKX}/api/v5/public/mark-price?instType=SWAP`), 20, 0)?.line.body).toBe('btc-mark')
    expect(idx.match('okx', get(`${OKX}/api/v5/public/mark-price?instType=SWAP&instId=ETH-USDT-SWAP`), 20, 0)).toBeUndefined()
    expect(idx.match('okx', get(`${OKX}/api/v5/public/mark-price?instType=SPOT`), 20, 0)).toBeUndefined()
  })

  it('Hyperliquid POST /info: the JSON body selects the answer, its time fields do not', () => {
    const HL = 'https://api.hyperliquid.xyz/info'
    const post = (at: number, body: string, answer: string) => line('hyperliquid', at, HL, answer, { method: 'POST', requestBody: body })
    const idx = index([
      post(10, '{"type":"metaAndAssetCtxs"}', 'meta'),
      post(20, '{"type":"fundingHistory","coin":"BTC","startTime":1681923833000,"endTime":1684811870000}', 'btc-funding'),
      post(30, '{"type":"candleSnapshot","req":{"coin":"kPEPE","interval":"1h","startTime":1,"endTime":2}}', 'kpepe-1h'),
    ])
    const call = (body: string) => idx.match('hyperliquid', requestKey('POST', HL, body), 100, 0)?.line.body
    expect(call('{"type":"metaAndAssetCtxs"}')).toBe('meta')
    expect(call('{"type":"fundingHistory","coin":"BTC","startTime":1700000000000}')).toBe('btc-funding')
    expect(call('{"type":"fundingHistory","coin":"ETH","startTime":1700000000000}')).toBeUndefined()
    expect(call('{"type":"candleSnapshot","req":{"coin":"kPEPE","interval":"1h","startTime":5,"endTime":9}}')).toBe('kpepe-1h')
    expect(call('{"type":"candleSnapshot","req":{"coin":"kPEPE","interval":"1m","startTime":5,"endTime":9}}')).toBeUndefined()
    expect(call('{"type":"l2Book","coin":"BTC"}')).toBeUndefined()
  })

  it('request keys: path and query, or the JSON body flattened', () => {
    const k = requestKey('post', 'https://api.hyperliquid.xyz/info?x=1', '{"type":"candleSnapshot","req":{"coin":"BTC","startTime":5}}')
    expect(k.method).toBe('POST')
    expect(k.path).toBe('/info')
    expect(Object.fromEntries(k.params)).toEqual({ x: '1', type: 'candleSnapshot', 'req.coin': 'BTC', 'req.startTime': '5' })
  })
})
