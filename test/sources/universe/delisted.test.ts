// A coin delisted from the universe keeps its history and says it is delisted: in GET /v1/markets/coins (status and
// delisted_at) and in the coverage of its figures (coverage.delisted); "all coins" no longer includes it, while its
// name stays a valid parameter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExchangeId } from '../../../src/domain/exchanges.js'
import type { Universe } from '../../../src/sources/universe/universe.js'
import { writeUniverse } from '../../../src/sources/universe/store.js'
import { TEST_NOW, seedMarket } from '../../helpers/market.js'
import { startTestService, type TestService } from '../../helpers/service.js'

type Json = any // eslint-disable-line @typescript-eslint/no-explicit-any

/** a universe of these coins with these venues, as a refresh would find it */
function universe(coins: Record<string, ExchangeId[]>, listedElsewhere: Record<string, ExchangeId[]> = {}): Universe {
  const all = { ...listedElsewhere, ...coins }
  return {
    coins: Object.entries(coins).map(([coin, venues]) => ({ coin, venues })),
    excluded: [],
    venues: ['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'],
    listed: new Map(Object.entries(all)),
  }
}

describe('a delisted coin', () => {
  let t: TestService
  let key: string
  const delistedAt = TEST_NOW - 2 * 3_600_000
  beforeAll(async () => {
    t = await startTestService({ clock: () => TEST_NOW })
    await seedMarket(t, { hours: 6, coins: ['BTC', 'ATOM'] })
    const { db, market } = t.services
    // a refresh found ATOM on Binance and Hyperliquid; a later one on Binance alone
    await writeUniverse(db, universe({ BTC: ['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'], ATOM: ['binance', 'hyperliquid'] }), TEST_NOW - 86_400_000)
    const change = await writeUniverse(db, universe({ BTC: ['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'] }, { ATOM: ['binance'] }), delistedAt)
    expect(change.delisted).toEqual(['ATOM'])
    await market.refreshCoins()
    const { accountId, apiKey } = await t.signup()
    await t.setCredits(accountId, 10_000)
    key = apiKey
  }, 120_000)
  afterAll(() => t?.close())

  it('says so in /v1/markets/coins: delisted_at, and every market of it delisted with why', async () => {
    const body = (await (await t.get('/v1/markets/coins?coin=ATOM', key)).json()) as Json
    const [atom] = body.data
    expect(atom.delisted_at).toBe(delistedAt)
    expect(atom.markets.length).toBe(8)
    for (const m of atom.markets) {
      expect(m.status).toBe('delisted')
      expect(m.note).toContain(`ATOM left the universe on ${new Date(delistedAt).toISOString()}: listed on binance then, fewer than 2; its history is kept`)
    }
    const all = (await (await t.get('/v1/markets/coins', key)).json()) as Json
    // the listing is where a coin's state is read: the delisted coin is in it
    expect(all.data.find((c: Json) => c.coin === 'ATOM').delisted_at).toBe(delistedAt)
    expect(all.data.find((c: Json) => c.coin === 'BTC').delisted_at).toBeNull()
  })

  it('keeps its history, and its figures say it is delisted in their coverage', async () => {
    const body = (await (await t.get('/v1/markets/ohlc?coin=ATOM&interval=1h&lookback=24h', key)).json()) as Json
    expect(body.data.candles.length).toBeGreaterThan(0)
    expect(body.data.coverage.delisted).toEqual({ since: delistedAt, note: `ATOM left the universe on ${new Date(delistedAt).toISOString()} (listed on binance, fewer than 2): its history is kept, nothing newer arrives` })
    const btc = (await (await t.get('/v1/markets/ohlc?coin=BTC&interval=1h&lookback=24h', key)).json()) as Json
    expect(btc.data.coverage.delisted).toBeNull()
    const gql = await t.graphql('{ fundingHistory(coin: "ATOM", interval: H1, lookback: H24) { coverage { delisted { since note } } } }', {}, key)
    expect(gql.errors).toBeUndefined()
    expect(gql.data.fundingHistory.coverage.delisted.since).toBe(delistedAt)
  })

  it('is no longer among "all coins", and is still a valid coin parameter', async () => {
    const weighted = (await (await t.get('/v1/funding/weighted', key)).json()) as Json
    expect(weighted.data.map((c: Json) => c.coin)).not.toContain('ATOM')
    expect(weighted.data.map((c: Json) => c.coin)).toContain('BTC')
    expect((await t.get('/v1/funding/weighted?coin=ATOM', key)).status).toBe(200)
  })
})
