// GET /v1/markets/coins and the GraphQL field `coins`. Instruments, quotes and contract sizes are checked against the
// venues' own recorded market lists (CCXT's static markets and OKX's instruments in the exchange fixtures), the
// funding interval against the tickers the simulator fed in, the status against what the live cache holds.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedMarket, TEST_NOW } from '../helpers/market.js'
import { expectProblem, startTestService, type TestService } from '../helpers/service.js'
import { FIXTURES_DIR } from '../sources/connectors/offline.js'

interface Market {
  exchange: string
  market_type: string
  instrument: string
  quote_currency: string
  contract_size: number | null
  funding_interval_hours: number | null
  status: string
  note: string | null
}
interface CcxtMarket {
  base: string
  id: string
  type: string
  quote: string
  contractSize?: number | null
  info: Record<string, unknown>
}

const fixture = (p: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, p), 'utf8')) as unknown
const ccxtMarkets = (venue: string): CcxtMarket[] => {
  const j = fixture(`${venue}/ccxt_markets.json`) as CcxtMarket[] | Record<string, CcxtMarket>
  return Array.isArray(j) ? j : Object.values(j)
}

/** what the venue's recorded market list says of a coin's market: its own symbol, quote, coins per size unit */
function recorded(venue: string, coin: string, marketType: 'perp' | 'spot') {
  const m = ccxtMarkets(venue).find((x) => x.base === coin && x.type === (marketType === 'perp' ? 'swap' : 'spot'))
  if (!m) return undefined
  // Hyperliquid's CCXT id is the asset index; the venue's own name for the perp is info.name
  const instrument = venue === 'hyperliquid' ? String(m.info['name']) : m.id
  // OKX sizes swaps in contracts of ctVal coins (instruments.json); CCXT leaves dYdX's null, its sizes are coins
  const okx = venue === 'okx' && marketType === 'perp' ? (fixture('okx/instruments.json') as { data: { instId: string; ctVal: string }[] }).data.find((r) => r.instId === m.id) : undefined
  const contractSize = marketType === 'spot' ? 1 : okx ? Number(okx.ctVal) : (m.contractSize ?? 1)
  return { instrument, quote: m.quote, contractSize }
}

describe('GET /v1/markets/coins', () => {
  let t: TestService
  let key: string
  beforeAll(async () => {
    t = await startTestService({ clock: () => TEST_NOW })
    await seedMarket(t, { hours: 1, coins: ['BTC', 'ETH'] })
    key = (await t.signup()).apiKey
  })
  afterAll(() => t.close())

  const get = async (q = '') => {
    const res = await t.get(`/v1/markets/coins${q}`, key)
    expect(res.status).toBe(200)
    return { res, body: (await res.json()) as { data: { coin: string; markets: Market[] }[] } }
  }

  it('lists every supported coin, costs 1 credit', async () => {
    const { res, body } = await get()
    expect(res.headers.get('x-credits-charged')).toBe('1')
    expect(body.data.map((c) => c.coin)).toEqual([...t.services.market.coins()].sort())
    // perps on all five venues, spot on the three CEXes
    for (const c of body.data) expect(c.markets.map((m) => `${m.exchange}:${m.market_type}`)).toEqual(['binance:perp', 'binance:spot', 'bybit:perp', 'bybit:spot', 'okx:perp', 'okx:spot', 'hyperliquid:perp', 'dydx:perp'])
  })

  it('instrument, quote and contract size as the venues record them', async () => {
    const { body } = await get()
    let checked = 0
    for (const c of body.data.filter((x) => ['BTC', 'ETH', 'SOL'].includes(x.coin))) {
      for (const m of c.markets) {
        const r = recorded(m.exchange, c.coin, m.market_type as 'perp' | 'spot')
        if (!r) continue // not in the trimmed fixtures
        expect({ instrument: m.instrument, quote: m.quote_currency, contractSize: m.contract_size }, `${c.coin} ${m.exchange} ${m.market_type}`).toEqual(r)
        checked++
      }
    }
    // BTC and ETH on every market the fixtures hold, SOL and the rest where they hold them
    expect(checked).toBe(16)
  })

  it('an OKX swap whose contract value is not known says so instead of guessing', async () => {
    const { body } = await get('?coin=xrp&exchange=okx')
    const perp = body.data[0]!.markets.find((m) => m.market_type === 'perp')!
    expect(perp.instrument).toBe('XRP-USDT-SWAP')
    expect(perp.contract_size).toBeNull()
    expect(perp.note).toMatch(/ctVal/)
  })

  it('funding interval from the market ticker; status listed where data arrives, else why not', async () => {
    const { body } = await get()
    const live = t.services.market.live.tickers
    for (const c of body.data) {
      for (const m of c.markets) {
        const tick = live.get(`${m.exchange}:${c.coin}:${m.market_type}`)
        expect(m.status, `${c.coin} ${m.exchange} ${m.market_type}`).toBe(tick ? 'listed' : 'no_data')
        if (m.market_type === 'spot') expect(m.funding_interval_hours).toBeNull()
        else if (tick) expect(m.funding_interval_hours).toBe(tick.fundingIntervalHours)
        else expect(m.note).toMatch(/default/)
      }
    }
    const btc = body.data.find((c) => c.coin === 'BTC')!
    // the fixtures: Bybit's instruments-info says 480 minutes; Hyperliquid and dYdX settle hourly
    const bybit = (fixture('bybit/instruments.json') as { result: { list: { symbol: string; fundingInterval: number }[] } }).result.list.find((r) => r.symbol === 'BTCUSDT')!
    expect(btc.markets.find((m) => m.exchange === 'bybit' && m.market_type === 'perp')!.funding_interval_hours).toBe(Number(bybit.fundingInterval) / 60)
    expect(btc.markets.filter((m) => m.exchange === 'hyperliquid' || m.exchange === 'dydx').map((m) => m.funding_interval_hours)).toEqual([1, 1])
    expect(btc.markets.every((m) => m.status === 'listed' && m.note === null)).toBe(true)
    expect(body.data.find((c) => c.coin === 'SOL')!.markets.every((m) => m.status === 'no_data')).toBe(true)
  })

  it('coin and exchange filter', async () => {
    const { body } = await get('?coin=eth&exchange=hyperliquid')
    expect(body.data).toHaveLength(1)
    expect(body.data[0]!.coin).toBe('ETH')
    expect(body.data[0]!.markets.map((m) => [m.exchange, m.market_type, m.instrument, m.quote_currency])).toEqual([['hyperliquid', 'perp', 'ETH', 'USDC']])
  })

  it('400 naming the parameter for an unknown coin or exchange', async () => {
    expect((await expectProblem(await t.get('/v1/markets/coins?coin=NOPE', key), 400, 'invalid_parameter')).parameter).toBe('coin')
    expect((await expectProblem(await t.get('/v1/markets/coins?exchange=kraken', key), 400, 'invalid_parameter')).parameter).toBe('exchange')
  })

  it('GraphQL answers the same as REST', async () => {
    const query = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'schema', 'operations', 'v1', 'coins.graphql'), 'utf8')
    const res = await t.fetch('/graphql', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables: { coin: 'BTC', exchange: 'OKX' } }) })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-credits-charged')).toBe('1')
    const gql = (await res.json()) as { data: { coins: { coin: string; markets: Record<string, unknown>[]; delistedAt: number | null }[] } }
    const { body } = await get('?coin=BTC&exchange=okx')
    const snake = (k: string) => k.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`)
    expect(gql.data.coins.map((c) => ({ coin: c.coin, markets: c.markets.map((m) => Object.fromEntries(Object.entries(m).map(([k, v]) => [snake(k), v]))), delisted_at: c.delistedAt }))).toEqual(body.data)
    expect(body.data[0]!.markets.map((m) => [m.instrument, m.contract_size])).toEqual([['BTC-USDT-SWAP', 0.01], ['BTC-USDT', 1]])
  })
})
