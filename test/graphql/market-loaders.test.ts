import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'

// Resolvers batch through dataloaders: asking for all coins is one store query per table, not one per coin.
describe('market dataloaders', () => {
  let t: TestService
  let key: string
  const queries: string[] = []
  beforeAll(async () => {
    t = await startTestService({ clock: () => TEST_NOW })
    await seedMarket(t, { hours: 3, coins: ['BTC', 'ETH', 'SOL', 'XRP'] })
    key = (await t.signup()).apiKey
    const sql = t.services.db.sql
    const original = sql.query.bind(sql)
    sql.query = ((text: string, params?: unknown[]) => {
      if (/FROM (candle_1m|candle_1h|market_sample|order_book|funding_rate)\b/.test(text)) queries.push(text.match(/FROM (\w+)/)![1]!)
      return original(text, params)
    }) as typeof sql.query
  })
  afterAll(() => t.close())

  const count = async (path: string) => {
    queries.length = 0
    t.services.market.reader.bump('candles')
    t.services.market.reader.bump('samples')
    t.services.market.reader.bump('books')
    const res = await t.get(path, key)
    expect(res.status, await res.clone().text()).toBe(200)
    const body = (await res.json()) as { data: unknown[] }
    return { tables: [...queries].sort(), data: body.data }
  }

  // spread, weighted funding and OI changes read the hot series (src/read/market-data.ts), not the store
  it.each([
    ['/v1/structure/spread', [] as string[]],
    ['/v1/funding/weighted', []],
    ['/v1/oi/changes', []],
  ])('%s for every coin reads each table once', async (path, tables) => {
    const { tables: seen, data } = await count(path)
    expect(data.length).toBe(t.services.market.coins().length)
    expect(seen).toEqual(tables)
  })

  it('one GraphQL operation asking spread for four coins through aliases reads no table (one view of every coin)', async () => {
    queries.length = 0
    t.services.market.reader.bump('samples')
    const res = await t.fetch(`/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: '{ a: spread(coin: "BTC") { coin } b: spread(coin: "ETH") { coin } c: spread(coin: "SOL") { coin } d: spread(coin: "XRP") { coin } }' }),
    })
    const body = (await res.json()) as { data: Record<string, { coin: string }[]> }
    expect(Object.values(body.data).map((v) => v[0]!.coin)).toEqual(['BTC', 'ETH', 'SOL', 'XRP'])
    expect(queries).toEqual([])
  })

  it('repeated calls between flushes are served from memory (no query)', async () => {
    await count('/v1/structure/spread')
    queries.length = 0
    expect((await t.get('/v1/structure/spread', key)).status).toBe(200)
    expect(queries).toEqual([])
  })
})
