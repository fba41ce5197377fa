// The REST envelope: snake_case data, and memoized payload parts ("pure fragments") serialized once per key.
// A fragment-built body must be byte-for-byte JSON-equivalent to the plain one, and a new key (new data
// version) must never serve the old JSON — checked end to end on /v1/markets/ohlc after the data changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { removeExchangeData, type Json } from './markets/helpers.js'

const payload = () => ({
  coin: 'BTC',
  exchanges: ['binance', 'okx'],
  candles: [
    { ts: 1, open: 1.5, buyVolume: 2, exchanges: ['okx'] },
    { ts: 2, open: 1.25, buyVolume: 0, exchanges: [] },
  ],
  asOf: 99,
  missing: [],
})


describe('ohlc through the fragment cache', () => {
  let t: TestService
  let key: string
  beforeAll(async () => {
    t = await startTestService({ clock: () => TEST_NOW })
    await seedMarket(t, { hours: 3, coins: ['BTC'] })
    key = (await t.signup()).apiKey
  }, 60_000)
  afterAll(() => t.close())

  const rest = async () => ((await (await t.get('/v1/markets/ohlc?coin=BTC&interval=15m&lookback=4h', key)).json()) as { data: Json }).data
  const gql = async () => {
    const res = await t.fetch(`/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: '{ ohlc(coin: "BTC", interval: M15, lookback: H4) { exchanges candles { ts close volume exchanges } } }' }),
    })
    return ((await res.json()) as { data: { ohlc: Json } }).data.ohlc
  }

  it('serves the new candles once the data changed, equal to GraphQL before and after', async () => {
    const before = await rest()
    expect(await rest()).toEqual(before) // served from the version-keyed cache
    expect(before.exchanges).toContain('okx')
    const g0 = await gql()
    expect(before.candles.map((c: Json) => [c.ts, c.close, c.volume])).toEqual(g0.candles.map((c: Json) => [c.ts, c.close, c.volume]))

    await removeExchangeData(t, 'okx', 'BTC') // rewrites the store and the series, bumps the data version
    const after = await rest()
    expect(after.exchanges).not.toContain('okx')
    for (const c of after.candles) expect(c.exchanges).not.toContain('okx')
    expect(after.candles).not.toEqual(before.candles)
    const g1 = await gql()
    expect(after.candles.map((c: Json) => [c.ts, c.close, c.volume, c.exchanges])).toEqual(g1.candles.map((c: Json) => [c.ts, c.close, c.volume, c.exchanges]))
  })
})
