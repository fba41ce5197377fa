// The REST envelope: snake_case data, and memoized payload parts ("pure fragments") serialized once per key.
// A fragment-built body must be byte-for-byte JSON-equivalent to the plain one, and a new key (new data
// version) must never serve the old JSON — checked end to end on /v1/markets/ohlc after the data changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FragmentCache, dataJson, snakeKeys } from '../../src/rest/envelope.js'
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

describe('dataJson with pure fragments', () => {
  it('gives the same JSON value as serializing the whole payload', () => {
    const cache = new FragmentCache()
    const plain = JSON.parse(JSON.stringify(snakeKeys(payload())))
    const viaFragments = JSON.parse(dataJson(payload(), { entries: new Map([['candles', { key: 'k1' }]]), cache }))
    expect(viaFragments).toEqual(plain)
    expect(viaFragments.candles[0]).toEqual({ ts: 1, open: 1.5, buy_volume: 2, exchanges: ['okx'] })
  })

  it('reuses the JSON written for a key, and writes new JSON for a new key', () => {
    const cache = new FragmentCache()
    const first = payload()
    dataJson(first, { entries: new Map([['candles', { key: 'k1' }]]), cache })
    const changed = payload()
    changed.candles[0]!.open = 7
    // same key: the fragment is what was written for the key (the key promises the value is the same)
    expect(JSON.parse(dataJson(changed, { entries: new Map([['candles', { key: 'k1' }]]), cache })).candles[0].open).toBe(1.5)
    // a new key: the new value
    expect(JSON.parse(dataJson(changed, { entries: new Map([['candles', { key: 'k2' }]]), cache })).candles[0].open).toBe(7)
  })

  it('puts JSON already held in place of a placeholder value', () => {
    const cache = new FragmentCache()
    const held = JSON.stringify([{ ts: 1 }])
    expect(JSON.parse(dataJson({ candles: [], a: 1 }, { entries: new Map([['candles', { key: 'h', json: held }]]), cache }))).toEqual({ a: 1, candles: [{ ts: 1 }] })
  })

  it('handles a payload that is only the fragment, null fragments and non-object data', () => {
    const cache = new FragmentCache()
    expect(JSON.parse(dataJson({ candles: [1, 2] }, { entries: new Map([['candles', { key: 'only' }]]), cache }))).toEqual({ candles: [1, 2] })
    expect(JSON.parse(dataJson({ candles: null, a: 1 }, { entries: new Map([['candles', { key: 'nul' }]]), cache }))).toEqual({ candles: null, a: 1 })
    expect(JSON.parse(dataJson([{ aB: 1 }], { entries: new Map([['x', { key: 'arr' }]]), cache }))).toEqual([{ a_b: 1 }])
  })

  it('keeps at most maxEntries fragments, dropping the least recently used', () => {
    const cache = new FragmentCache(2)
    cache.json('a', [1])
    cache.json('b', [2])
    cache.json('a', ['ignored: cached']) // a is now the most recently used
    cache.json('c', [3]) // evicts b
    expect(cache.json('a', ['new'])).toBe('[1]')
    expect(cache.json('b', ['new'])).toBe('["new"]')
  })
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
      body: JSON.stringify({ query: '{ ohlc(coin: "BTC", interval: "15m", lookback: "4h") { exchanges candles { ts close volume exchanges } } }' }),
    })
    return ((await res.json()) as { data: { ohlc: Json } }).data.ohlc
  }

  it('serves the new candles once the data changed, equal to GraphQL before and after', async () => {
    const before = await rest()
    expect(await rest()).toEqual(before) // served from the fragment cache
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
