// The four screener endpoints on PostgreSQL: the same derivations as the embedded-store tests, against the server's
// rows (skips where no server answers; REQUIRE_POSTGRES=1 makes that a failure).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Ingest } from '../../../src/ingest/ingest.js'
import { MarketSimulator } from '../../../src/sources/simulator/index.js'
import { TEST_NOW, seedMarket } from '../../helpers/market.js'
import { freshSchema, requirePostgresInCi } from '../../helpers/postgres.js'
import { startTestService, type TestService } from '../../helpers/service.js'
import { HOUR, MINUTE, callOk, expectClose, type Json } from '../markets/helpers.js'

let t: TestService | undefined
let drop: (() => Promise<void>) | undefined
let acct: { apiKey: string; accountId: string }
let up = false
const NOW_MINUTE = Math.floor(TEST_NOW / MINUTE) * MINUTE

beforeAll(async () => {
  up = await requirePostgresInCi()
  if (!up) return
  const schema = await freshSchema('screener')
  drop = schema.drop
  t = await startTestService({ clock: () => TEST_NOW, env: { DATABASE_URL: schema.url } })
  await seedMarket(t, { hours: 3, coins: ['BTC'] })
  // ten more minutes of live trades for the large-trade table
  const ingest = new Ingest({ db: t.services.db, market: t.services.market })
  const sim = new MarketSimulator({ seed: 9, coins: ['BTC'] })
  sim.live(ingest, { manual: true, fromTs: TEST_NOW - 10 * MINUTE })
  sim.pump(TEST_NOW)
  ingest.advance(TEST_NOW)
  await ingest.flush({ final: true })
  acct = await t.signup()
}, 180_000)
afterAll(async () => {
  await t?.close()
  await drop?.()
})

const q = <T>(text: string, params: unknown[] = []) => t!.services.db.sql.query<T>(text, params)

describe('screener endpoints on PostgreSQL', () => {
  it('overview: 24h volume and 1h change from the stored candles', async (ctx) => {
    if (!up) return ctx.skip()
    const { data } = await callOk(t!, acct, '/v1/markets/overview?sort=coin&order=asc', 3)
    const btc = data.coins.find((c: Json) => c.coin === 'BTC')
    const vol = await q<{ v: number }>(`SELECT sum(quote_volume) AS v FROM candle_1m WHERE coin = 'BTC' AND market_type = 'perp' AND ts >= $1 AND ts < $2`, [NOW_MINUTE - 24 * HOUR, NOW_MINUTE])
    expectClose(btc.volume_24h_usd, Number(vol[0]!.v), 1e-9, 'volume_24h_usd')
    const close = async (ts: number) => {
      const r = await q<{ c: number }>(`SELECT sum(close * volume) / nullif(sum(volume), 0) AS c FROM candle_1m WHERE coin = 'BTC' AND market_type = 'perp' AND ts = $1`, [ts])
      return Number(r[0]!.c)
    }
    const [now, then] = [await close(btc.price_ts), await close(btc.price_ts - HOUR)]
    expectClose(btc.price, now, 1e-9, 'price')
    expectClose(btc.change_1h_pct, ((now - then) / then) * 100, 1e-9, 'change_1h_pct')
  })

  it('arbitrage: every pair of BTC venues, net APR from the live rates and the fee table', async (ctx) => {
    if (!up) return ctx.skip()
    const { data } = await callOk(t!, acct, '/v1/funding/arbitrage?coin=BTC', 5)
    expect(data.opportunities).toHaveLength(10)
    const fee: Record<string, number> = { binance: 0.0005, bybit: 0.00055, okx: 0.0005, hyperliquid: 0.00045, dydx: 0.0005 }
    const r8 = (e: string) => {
      const tk = t!.services.market.live.tickers.get(`${e}:BTC:perp`)!
      return (tk.fundingRate! * 8) / tk.fundingIntervalHours!
    }
    for (const o of data.opportunities) expectClose(o.net_apr, (r8(o.short.exchange) - r8(o.long.exchange)) * 1095 - 2 * (fee[o.long.exchange]! + fee[o.short.exchange]!) * 365, 1e-9, 'net_apr')
  })

  it('large trades: the stored rows at or above min_usd, newest first, across pages', async (ctx) => {
    if (!up) return ctx.skip()
    const stored = await q<{ trade_id: string }>('SELECT trade_id FROM large_trade WHERE notional_usd >= 100000 ORDER BY ts DESC, seq DESC')
    expect(stored.length).toBeGreaterThan(0)
    const seen: string[] = []
    let path = '/v1/flow/large-trades?min_usd=100000&limit=4'
    for (;;) {
      const { data, meta } = await callOk(t!, acct, path, 3)
      seen.push(...data.trades.map((x: Json) => x.trade_id))
      if (meta.next === null) break
      path = `/v1/flow/large-trades?min_usd=100000&limit=4&cursor=${meta.next}`
    }
    expect(seen).toEqual(stored.map((r) => r.trade_id))
  })

  it('regime: one point per stored hour; too little history is null with a note', async (ctx) => {
    if (!up) return ctx.skip()
    const { data } = await callOk(t!, acct, '/v1/signals/regime?coin=BTC&lookback=24h', 3)
    const hours = await q<{ ts: string }>(`SELECT DISTINCT ts FROM candle_1h WHERE coin = 'BTC' AND market_type = 'perp' AND ts >= $1 AND ts < $2 ORDER BY ts`, [TEST_NOW - 24 * HOUR, Math.floor(TEST_NOW / HOUR) * HOUR])
    expect(data.history.map((p: Json) => p.ts)).toEqual(hours.map((h) => Number(h.ts)))
    for (const p of data.history) expect([p.regime, p.note]).toEqual([null, expect.stringMatching(/insufficient history/)])
    expect(data.current.regime).toBeNull()
  })
})
