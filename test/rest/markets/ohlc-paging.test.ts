// Paging on /v1/markets/ohlc (docs/contract.md#paging): limit slots per page, meta.next as the cursor, the cursor
// fixing the window so pages taken while the clock moves still join up; the pages together are the stored minutes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_NOW, seedMarket } from '../../helpers/market.js'
import { startTestService, type TestService } from '../../helpers/service.js'
import { HOUR, MINUTE, callBad, callOk, type Json } from './helpers.js'

let now = TEST_NOW
let t: TestService
let acct: { apiKey: string; accountId: string }

beforeAll(async () => {
  t = await startTestService({ clock: () => now })
  await seedMarket(t, { hours: 3, coins: ['BTC'] })
  acct = await t.signup()
})
afterAll(() => t.close())

const storedMinutes = async (from: number, to: number): Promise<number[]> =>
  (await t.services.db.sql.query<{ ts: string }>(`SELECT ts FROM candle_1m WHERE exchange = 'okx' AND coin = 'BTC' AND market_type = 'perp' AND ts >= $1 AND ts < $2 ORDER BY ts`, [from, to])).map((r) =>
    Number(r.ts),
  )

describe('GET /v1/markets/ohlc paging', () => {
  it('a window that fits one page has meta.next null and is unchanged by paging', async () => {
    const { data, meta } = await callOk(t, acct, '/v1/markets/ohlc?coin=BTC&exchange=okx&interval=1m&lookback=4h', 2)
    expect(meta.next).toBeNull()
    expect(data.candles.map((c: Json) => c.ts)).toEqual(await storedMinutes(Math.ceil((TEST_NOW - 4 * HOUR) / MINUTE) * MINUTE, TEST_NOW))
  })

  it('limit=50 pages through the window: each page at most 50 candles, ascending, joined equal to the stored minutes', async () => {
    const seen: number[] = []
    let path = '/v1/markets/ohlc?coin=BTC&exchange=okx&interval=1m&lookback=4h&limit=50'
    let pages = 0
    let window: [number, number] | null = null
    for (;;) {
      const { data, meta } = await callOk(t, acct, path, 2)
      pages++
      window ??= [data.start, data.end]
      // the cursor fixes the window: the clock moving between pages does not shift it
      expect([data.start, data.end]).toEqual(window)
      expect(data.candles.length).toBeLessThanOrEqual(50)
      seen.push(...data.candles.map((c: Json) => c.ts))
      now += 7_000
      if (meta.next === null) break
      expect(typeof meta.next).toBe('string')
      path = `/v1/markets/ohlc?coin=BTC&exchange=okx&interval=1m&lookback=4h&limit=50&cursor=${meta.next}`
    }
    now = TEST_NOW
    // 4 h of minute slots, 50 per page
    expect(pages).toBe(Math.ceil(240 / 50))
    expect(seen).toEqual([...seen].sort((a, b) => a - b))
    expect(seen).toEqual(await storedMinutes(Math.ceil((TEST_NOW - 4 * HOUR) / MINUTE) * MINUTE, TEST_NOW))
  })

  it('a cursor is refused with other parameters, or altered; nothing is charged', async () => {
    const { meta } = await callOk(t, acct, '/v1/markets/ohlc?coin=BTC&exchange=okx&interval=1m&lookback=4h&limit=10', 2)
    const next = meta.next as string
    const other = await callBad(t, acct, `/v1/markets/ohlc?coin=BTC&exchange=bybit&interval=1m&lookback=4h&limit=10&cursor=${next}`, 'cursor')
    expect(other.detail).toMatch(/same parameters/)
    await callBad(t, acct, `/v1/markets/ohlc?coin=BTC&exchange=okx&interval=5m&lookback=4h&cursor=${next}`, 'cursor')
    await callBad(t, acct, `/v1/markets/ohlc?coin=BTC&exchange=okx&interval=1m&lookback=4h&cursor=${next.slice(0, -3)}`, 'cursor')
    // only limit may change between pages
    const ok = await callOk(t, acct, `/v1/markets/ohlc?coin=BTC&exchange=okx&interval=1m&lookback=4h&limit=20&cursor=${next}`, 2)
    expect(ok.data.candles.length).toBeLessThanOrEqual(20)
  })

  it('GraphQL pages the same way through the next field', async () => {
    const q = `query($c: String) { ohlc(coin: "BTC", exchange: OKX, interval: M1, lookback: H4, limit: 100, cursor: $c) { candles { ts } next } }`
    const first = await t.graphql(q, { c: null }, acct.apiKey)
    const rest = await callOk(t, acct, '/v1/markets/ohlc?coin=BTC&exchange=okx&interval=1m&lookback=4h&limit=100', 2)
    expect(first.data.ohlc.next).toBe(rest.meta.next)
    const second = await t.graphql(q, { c: first.data.ohlc.next }, acct.apiKey)
    expect(second.data.ohlc.candles[0].ts).toBeGreaterThan(first.data.ohlc.candles.at(-1).ts)
  })
})
