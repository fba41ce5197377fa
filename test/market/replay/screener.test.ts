// The screener endpoints on the replayed fixture recording (real venue payloads through the connectors): large trades
// are the recorded trades of at least 100,000 USD (the Bybit ones checked against the raw payload), and the overview,
// funding arbitrage and regime answer from what the replay fed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bybitTrades } from './expected.js'
import { FIXTURES_RECORDING, startReplayService, type ReplayService } from './helpers.js'

let s: ReplayService
beforeAll(async () => {
  s = await startReplayService(FIXTURES_RECORDING, { start: Date.UTC(2026, 2, 2, 12, 0, 0), env: { LOG_LEVEL: 'silent' } })
  await s.playToEnd()
}, 120_000)
afterAll(async () => {
  await s?.close()
})

describe('screener endpoints on a replayed recording', () => {
  it('large trades: the recorded Bybit trades of at least 100,000 USD, with their ids, sides, prices and sizes', async () => {
    const want = bybitTrades().filter((x) => Number(x.p) * Number(x.v) >= 100_000)
    expect(want.length).toBeGreaterThan(0)
    const { status, body } = await s.get('/v1/flow/large-trades?min_usd=100000&exchange=bybit&limit=5000')
    expect(status).toBe(200)
    const got = body.data.trades
    expect(got.map((x: { trade_id: string }) => x.trade_id).sort()).toEqual(want.map((x) => (x as unknown as { i: string }).i).sort())
    for (const w of want) {
      const g = got.find((x: { trade_id: string }) => x.trade_id === (w as unknown as { i: string }).i)
      expect([g.price, g.size, g.side, g.coin, g.market_type]).toEqual([Number(w.p), Number(w.v), w.S === 'Buy' ? 'buy' : 'sell', 'BTC', 'perp'])
    }
    const stored = await s.t.services.db.sql.query<{ n: string }>('SELECT count(*) AS n FROM large_trade WHERE notional_usd < 100000')
    expect(Number(stored[0]!.n)).toBe(0)
  })

  it('overview, funding arbitrage and regime answer 200 with coverage', async () => {
    for (const p of ['/v1/markets/overview', '/v1/funding/arbitrage', '/v1/signals/regime?coin=BTC']) {
      const { status, body } = await s.get(p)
      expect(status, p).toBe(200)
      expect(body.data.coverage).toBeDefined()
    }
    const o = (await s.get('/v1/markets/overview')).body.data
    expect(o.coins.find((c: { coin: string }) => c.coin === 'BTC').price).toEqual(expect.any(Number))
  })
})
