// GET /v1/funding/arbitrage (5 credits): every pair recomputed by hand from the live funding rates and the documented
// fee table (docs/methodology.md#funding-arbitrage: the venues' base-tier taker fees), ranking, staleness and errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_NOW, seedMarket } from '../../helpers/market.js'
import { startTestService, type TestService } from '../../helpers/service.js'
import { EXCHANGES, callBad, callOk, expectClose, sortedKeys, withLiveTicker, type Json } from '../markets/helpers.js'

let t: TestService
let acct: { apiKey: string; accountId: string }

// the documented table (docs/methodology.md#funding-arbitrage), typed here by hand
const FEES: Record<string, number> = { binance: 0.0005, bybit: 0.00055, okx: 0.0005, hyperliquid: 0.00045, dydx: 0.0005 }

beforeAll(async () => {
  t = await startTestService({ clock: () => TEST_NOW })
  await seedMarket(t, { hours: 2, coins: ['BTC', 'ETH'] })
  acct = await t.signup()
}, 180_000)
afterAll(() => t.close())

const tickerOf = (e: string, coin: string) => t.services.market.live.tickers.get(`${e}:${coin}:perp`)!
const QUOTE: Record<string, string> = { binance: 'USDT', bybit: 'USDT', okx: 'USDT', hyperliquid: 'USDC', dydx: 'USDC' }

/** dYdX publishes no mark apart from its oracle: its tradable price is its last trade, the newest stored 1-minute close with trades of the last 5 minutes */
async function dydxLastTrade(coin: string): Promise<number> {
  const rows = await t.services.db.sql.query<{ close: number }>(
    `SELECT close FROM candle_1m WHERE exchange = 'dydx' AND coin = $1 AND market_type = 'perp' AND trades > 0 AND ts >= $2 AND ts <= $3 ORDER BY ts DESC LIMIT 1`,
    [coin, TEST_NOW - 5 * 60_000, TEST_NOW],
  )
  return Number(rows[0]!.close)
}
const priceOf = async (e: string, coin: string) => (e === 'dydx' ? dydxLastTrade(coin) : tickerOf(e, coin).markPrice!)

describe('GET /v1/funding/arbitrage', () => {
  it('every pair of venues per coin, legs and figures equal to the live rates and the fee table by hand', async () => {
    const { data } = await callOk(t, acct, '/v1/funding/arbitrage?coin=BTC&holding_hours=72', 5)
    expect(sortedKeys(data)).toEqual(['as_of', 'coverage', 'fees', 'holding_hours', 'missing', 'opportunities'])
    expect(data.holding_hours).toBe(72)
    expect(Object.fromEntries(data.fees.map((f: Json) => [f.exchange, f.taker_fee]))).toEqual(FEES)
    for (const f of data.fees) expect(f.source).toMatch(/^https:\/\//)
    expect(data.opportunities).toHaveLength(10) // C(5, 2)
    expect(data.missing).toEqual([])
    const pairs = new Set(data.opportunities.map((o: Json) => [o.long.exchange, o.short.exchange].sort().join('/')))
    expect(pairs.size).toBe(10)
    for (const o of data.opportunities) {
      const r8 = (e: string) => (tickerOf(e, 'BTC').fundingRate! * 8) / tickerOf(e, 'BTC').fundingIntervalHours!
      const [l, s] = [o.long.exchange, o.short.exchange]
      expect(r8(l)).toBeLessThanOrEqual(r8(s))
      expectClose(o.long.rate_8h, r8(l), 1e-12, 'long rate8h')
      expect(o.long.rate).toBe(tickerOf(l, 'BTC').fundingRate)
      expect(o.short.next_funding_time).toBe(tickerOf(s, 'BTC').nextFundingTime)
      const diff = r8(s) - r8(l)
      expectClose(o.differential_8h, diff, 1e-12, 'differential_8h')
      expectClose(o.differential_apr, diff * 3 * 365, 1e-12, 'differential_apr')
      const fees = 2 * (FEES[l]! + FEES[s]!)
      expectClose(o.fees_round_trip, fees, 1e-12, 'fees_round_trip')
      expectClose(o.net_apr, diff * 1095 - (fees * 8760) / 72, 1e-12, 'net_apr')
      const [pl, ps] = [await priceOf(l, 'BTC'), await priceOf(s, 'BTC')]
      expect([o.long.price, o.short.price]).toEqual([pl, ps])
      expectClose(o.price_spread_bps, ((ps - pl) / ((ps + pl) / 2)) * 1e4, 1e-9, 'price_spread_bps')
      // each leg says its quote, which price it is and which rate; a USDT/USDC pair says it mixes them
      for (const leg of [o.long, o.short])
        expect(leg).toMatchObject({ quote: QUOTE[leg.exchange], price_source: leg.exchange === 'dydx' ? 'last_trade' : 'mark', funding_kind: 'predicted', price_outlier: false })
      expect(o.mixed_quotes).toBe(QUOTE[l] !== QUOTE[s])
      expect(o.quotes).toEqual([...new Set([QUOTE[l], QUOTE[s]])])
      expect(o.price_spread_note).toBeNull()
    }
    // dYdX's leg is never its oracle (its stored mark)
    expect(await dydxLastTrade('BTC')).not.toBe(tickerOf('dydx', 'BTC').markPrice)
    // ranked by net APR
    const nets = data.opportunities.map((o: Json) => o.net_apr)
    expect(nets).toEqual([...nets].sort((a, b) => b - a))
    expect(data.opportunities.map((o: Json) => o.rank)).toEqual([...Array(10).keys()].map((i) => i + 1))
  })

  it('all coins: ranks across coins; an unseeded coin is listed in missing, never a zero rate', async () => {
    const { data } = await callOk(t, acct, '/v1/funding/arbitrage', 5)
    expect(new Set(data.opportunities.map((o: Json) => o.coin))).toEqual(new Set(['BTC', 'ETH']))
    expect(data.missing.filter((m: Json) => m.coin === 'ADA').map((m: Json) => m.exchange)).toEqual([...EXCHANGES])
    expect(data.holding_hours).toBe(24)
  })

  it('a venue whose rate is older than 5 minutes is left out and named', async () => {
    await withLiveTicker(t, 'okx:BTC:perp', { ts: TEST_NOW - 6 * 60_000 }, async () => {
      const { data } = await callOk(t, acct, '/v1/funding/arbitrage?coin=BTC', 5)
      expect(data.opportunities).toHaveLength(6) // C(4, 2)
      expect(data.opportunities.some((o: Json) => o.long.exchange === 'okx' || o.short.exchange === 'okx')).toBe(false)
      expect(data.missing).toEqual([{ coin: 'BTC', exchange: 'okx', reason: expect.stringMatching(/older than 5 minutes/) }])
    })
  })

  it('a venue price more than 5 % from the median of the coin\'s venues is an outlier: named on its legs, no price spread with it', async () => {
    const bad = tickerOf('binance', 'BTC').markPrice! * 1.2
    await withLiveTicker(t, 'binance:BTC:perp', { markPrice: bad }, async () => {
      const { data } = await callOk(t, acct, '/v1/funding/arbitrage?coin=BTC', 5)
      const withBinance = data.opportunities.filter((o: Json) => o.long.exchange === 'binance' || o.short.exchange === 'binance')
      expect(withBinance).toHaveLength(4)
      for (const o of withBinance) {
        const leg = o.long.exchange === 'binance' ? o.long : o.short
        expect(leg).toMatchObject({ price: bad, price_outlier: true })
        expect(o.price_spread_bps).toBeNull()
        expect(o.price_spread_note).toMatch(/binance price .* from the venues' median .* outlier/)
      }
      for (const o of data.opportunities.filter((x: Json) => !withBinance.includes(x))) expect(o.price_spread_bps).not.toBeNull()
    })
  })

  it('bad holding_hours and coin are 400 naming the parameter; nothing charged', async () => {
    for (const h of ['0', '8761', '1.5', 'x']) await callBad(t, acct, `/v1/funding/arbitrage?holding_hours=${h}`, 'holding_hours')
    await callBad(t, acct, '/v1/funding/arbitrage?coin=NOPE', 'coin')
  })
})
