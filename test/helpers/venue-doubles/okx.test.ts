// The OKX double against its documented rules (okx.ts header): after/before and end/begin paging, page sizes, the
// 1,440-entry statistics window, 3 months of funding, per-endpoint limits (429 / 50011), and book frames whose
// CRC32 checksums hold under the connector's own verifier.
import '../no-network.js'
import ccxt from 'ccxt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { installOkxChecksum } from '../../../src/sources/connectors/okx.js'
import { applyVenueAccess } from '../../../src/sources/connectors/venue-access.js'
import { startVenueDouble, type VenueDouble } from './index.js'

const MIN = 60_000
const DAY = 86_400_000
const T0 = Date.UTC(2026, 10, 20, 12, 0, 30)

describe('OKX double', () => {
  let clock = T0
  let d: VenueDouble
  const get = async (path: string) => {
    const res = await fetch(d.restUrl + path)
    return { status: res.status, body: (await res.json()) as any }
  }

  beforeAll(async () => {
    d = await startVenueDouble('okx', { now: () => clock, seed: 3 })
  })
  afterAll(() => d.close())

  it('instruments: the recorded SWAP list and the SPOT pairs', async () => {
    expect((await get('/api/v5/public/instruments?instType=SWAP')).body.data.map((x: any) => x.instId)).toEqual(['BTC-USDT-SWAP', 'ETH-USDT-SWAP', 'SOL-USDT-SWAP'])
    expect((await get('/api/v5/public/instruments?instType=SPOT')).body.data.map((x: any) => x.instId)).toEqual(['BTC-USDT', 'ETH-USDT'])
  })

  it('history-candles: newest first, after pages to older rows (exclusive), max 300, SWAP volume in contracts', async () => {
    const a = (await get('/api/v5/market/history-candles?instId=BTC-USDT-SWAP&bar=1m&limit=300')).body.data
    expect(a).toHaveLength(300)
    expect(Number(a[0][0])).toBe(Math.floor(T0 / MIN) * MIN)
    expect(a[0][8]).toBe('0') // the open minute
    expect(a[1][8]).toBe('1')
    const b = (await get(`/api/v5/market/history-candles?instId=BTC-USDT-SWAP&bar=1m&limit=300&after=${a.at(-1)[0]}`)).body.data
    expect(Number(b[0][0])).toBe(Number(a.at(-1)[0]) - MIN)
    // one row = the minute's trades; 0.01 BTC a contract
    const row = b[0]
    const trades = d.history.trades('BTC', 'perp', Number(row[0]), Number(row[0]) + MIN)
    const vol = trades.reduce((s, t) => s + t.size, 0)
    expect(row).toHaveLength(9)
    expect(Number(row[1])).toBe(trades[0]!.price)
    expect(Number(row[5])).toBeCloseTo(vol / 0.01, 6)
    expect(Number(row[6])).toBeCloseTo(vol, 8)
    expect((await get('/api/v5/market/history-candles?instId=BTC-USDT-SWAP&bar=1m&limit=301')).body.code).toBe('51000')
    // before and after together: strictly between them
    const between = (await get(`/api/v5/market/history-candles?instId=BTC-USDT-SWAP&bar=1m&after=${T0 - 10 * MIN}&before=${T0 - 20 * MIN}`)).body.data.map((r: string[]) => Number(r[0]))
    expect(between).toEqual(Array.from({ length: 20 }, (_, i) => Math.floor((T0 - 10 * MIN - 1) / MIN) * MIN - i * MIN).filter((t) => t > T0 - 20 * MIN))
  })

  it('open-interest-history and long/short: the latest 1,440 entries, end pages back (exclusive), max 100', async () => {
    const seen: number[] = []
    let end: number | undefined
    for (let i = 0; i < 20; i++) {
      const r = (await get(`/api/v5/rubik/stat/contracts/open-interest-history?instId=ETH-USDT-SWAP&period=5m&limit=100${end ? `&end=${end}` : ''}`)).body.data
      if (r.length === 0) break
      expect(r.length).toBeLessThanOrEqual(100)
      seen.push(...r.map((x: string[]) => Number(x[0])))
      end = Number(r.at(-1)[0])
      clock += 2001 // a fresh window for the 10-per-2-s limit
    }
    expect(seen).toHaveLength(1440)
    expect(seen.every((t, i) => i === 0 || seen[i - 1]! - t === 300_000)).toBe(true)
    const oi = (await get('/api/v5/rubik/stat/contracts/open-interest-history?instId=ETH-USDT-SWAP&period=5m&limit=1')).body.data[0]
    expect(Number(oi[1])).toBeCloseTo(Number(oi[2]) / 0.1, 6)
    expect((await get('/api/v5/rubik/stat/contracts/open-interest-history?instId=ETH-USDT-SWAP&period=5m&limit=101')).body.code).toBe('51000')
    const ls = (await get('/api/v5/rubik/stat/contracts/long-short-account-ratio-contract?instId=BTC-USDT-SWAP&period=5m&limit=2')).body.data
    expect(ls).toHaveLength(2)
    const p = d.history.longShort('BTC', 'account', Number(ls[0][0]), Number(ls[0][0]) + 1)[0]!
    expect(Number(ls[0][1])).toBe(p.ratio)
  })

  it('funding-rate-history: 3 months, newest first, after pages back, max 400', async () => {
    clock += 2001
    expect((await get('/api/v5/public/funding-rate-history?instId=BTC-USDT-SWAP&limit=401')).body.code).toBe('51000')
    expect((await get('/api/v5/public/funding-rate-history?instId=BTC-USDT-SWAP&limit=400')).body.data).toHaveLength(270) // 90 days at 8 h
    const all: number[] = []
    let after: string | undefined
    for (let i = 0; i < 10; i++) {
      clock += 2001 // a fresh window for the 10-per-2-s limit
      const r = (await get(`/api/v5/public/funding-rate-history?instId=BTC-USDT-SWAP&limit=100${after ? `&after=${after}` : ''}`)).body.data
      if (r.length === 0) break
      all.push(...r.map((x: any) => Number(x.fundingTime)))
      after = r.at(-1).fundingTime
    }
    expect(all.at(-1)).toBeGreaterThanOrEqual(clock - 90 * DAY)
    expect(all.at(-1)! - (clock - 90 * DAY)).toBeLessThan(8 * 3_600_000)
    expect(all.every((t, i) => i === 0 || all[i - 1]! - t === 8 * 3_600_000)).toBe(true)
  })

  it('over 20 history-candles requests in 2 s: HTTP 429 with code 50011', async () => {
    clock = Math.floor(clock / 2000) * 2000 + 2000
    const statuses: number[] = []
    for (let i = 0; i < 21; i++) statuses.push((await get('/api/v5/market/history-candles?instId=SOL-USDT-SWAP&limit=1')).status)
    expect(statuses.findIndex((s) => s !== 200)).toBe(20)
    const r = await get('/api/v5/market/history-candles?instId=SOL-USDT-SWAP&limit=1')
    expect([r.status, r.body]).toEqual([429, { msg: 'Too Many Requests', code: '50011' }])
  })

  it('books: a snapshot then updates whose checksums hold under the connector\'s own CRC32 check', async () => {
    const ex = new ccxt.pro.okx({})
    applyVenueAccess(ex, { restUrl: d.restUrl, wsUrl: d.wsUrl })
    ex.has['fetchCurrencies'] = false
    ;(ex.options as any)['fetchMarkets'] = { types: ['swap'] }
    installOkxChecksum(ex)
    try {
      await ex.loadMarkets()
      let nonce = 0
      for (let i = 0; i < 8; i++) {
        clock += 10_000 // a new 10-second size draw: every push changes levels (a book that did not change sends nothing)
        const ob = await ex.watchOrderBook('BTC/USDT:USDT')
        expect(ob.nonce).toBeGreaterThanOrEqual(nonce)
        nonce = ob.nonce as number
        expect(ob.bids.length).toBeGreaterThan(100)
      }
    } finally {
      await ex.close()
    }
  })
})
