// /v1/positioning/long-short on the simulator's stored ratios: every figure derived here from the positioning_sample
// rows themselves (SQL), never from the code under test; bad parameters → 400 naming the parameter, nothing charged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { HOUR, callBad, callOk, type Json } from './markets/helpers.js'

let t: TestService
let acct: { apiKey: string; accountId: string }

interface Row {
  exchange: string
  kind: string
  ts: number
  long: number
  short: number
  ratio: number
}

let rows: Row[] = []

beforeAll(async () => {
  t = await startTestService({ clock: () => TEST_NOW })
  await seedMarket(t, { hours: 6, coins: ['BTC', 'ETH'] })
  acct = await t.signup()
  rows = (await t.services.db.sql.query<Record<string, unknown>>(`SELECT exchange, kind, ts, long_share, short_share, ratio FROM positioning_sample WHERE coin = 'BTC'`)).map((r) => ({
    exchange: String(r['exchange']), kind: String(r['kind']), ts: Number(r['ts']), long: Number(r['long_share']), short: Number(r['short_share']), ratio: Number(r['ratio']),
  }))
})
afterAll(() => t.close())

describe('GET /v1/positioning/long-short', () => {
  it("each point is its interval's last stored sample; latest is the window's last; the DEXs are not available", async () => {
    expect(rows.length).toBeGreaterThan(0)
    const { data } = await callOk(t, acct, '/v1/positioning/long-short?coin=BTC&interval=1h&lookback=4h', 3)
    const from = data.start
    const byVenue = new Map((data.exchanges as Json[]).map((v) => [v.exchange, v]))
    expect([...byVenue.keys()]).toEqual(['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'])
    const check = (venue: string, kind: string, s: Json) => {
      const mine = rows.filter((r) => r.exchange === venue && r.kind === kind && r.ts >= from && r.ts < data.end).sort((a, b) => a.ts - b.ts)
      expect(mine.length, `${venue} ${kind}`).toBeGreaterThan(0)
      const last = mine[mine.length - 1]!
      expect(s.latest).toEqual({ ts: last.ts, sampled_at: last.ts, long_share: last.long, short_share: last.short, ratio: last.ratio })
      const slots = [...new Set(mine.map((r) => Math.floor(r.ts / HOUR) * HOUR))].filter((h) => h >= Math.ceil(from / HOUR) * HOUR)
      expect(s.points.map((p: Json) => p.ts)).toEqual(slots)
      for (const p of s.points) {
        const inSlot = mine.filter((r) => r.ts >= p.ts && r.ts < p.ts + HOUR)
        const l = inSlot[inSlot.length - 1]!
        expect(p).toEqual({ ts: p.ts, sampled_at: l.ts, long_share: l.long, short_share: l.short, ratio: l.ratio })
      }
    }
    for (const venue of ['binance', 'bybit', 'okx']) {
      expect(byVenue.get(venue)!.available).toBe(true)
      check(venue, 'account', byVenue.get(venue)!.account)
    }
    check('binance', 'top_position', byVenue.get('binance')!.top_position)
    expect(byVenue.get('bybit')!.top_position).toBeNull()
    for (const dex of ['hyperliquid', 'dydx']) {
      expect(byVenue.get(dex)).toMatchObject({ available: false, account: null, top_position: null, feed: { published: false, source: null } })
      expect(data.coverage.missing).toContainEqual({ exchange: dex, status: 'not_published', reason: 'a DEX: publishes no long/short ratios' })
    }
    // the DEXs publish none: not_published does not make the answer partial (6 stored hours cover the 4-hour window)
    expect(data.coverage.partial).toBe(false)
  })

  it('one venue, paged: pages join into the whole series', async () => {
    const whole = (await callOk(t, acct, '/v1/positioning/long-short?coin=BTC&exchange=binance&interval=15m&lookback=4h', 3)).data
    const seen: Json[] = []
    let path = '/v1/positioning/long-short?coin=BTC&exchange=binance&interval=15m&lookback=4h&limit=3'
    for (;;) {
      const { data, meta } = await callOk(t, acct, path, 3)
      expect(data.exchanges.map((v: Json) => v.exchange)).toEqual(['binance'])
      seen.push(...data.exchanges[0].account.points)
      if (meta.next === null) break
      path = `/v1/positioning/long-short?coin=BTC&exchange=binance&interval=15m&lookback=4h&limit=3&cursor=${meta.next}`
    }
    expect(seen).toEqual(whole.exchanges[0].account.points)
    expect(seen.length).toBe(16)
  })

  it('bad parameters are 400 naming the parameter; nothing charged', async () => {
    await callBad(t, acct, '/v1/positioning/long-short?interval=1h', 'coin')
    await callBad(t, acct, '/v1/positioning/long-short?coin=BTC&interval=2h', 'interval')
    await callBad(t, acct, '/v1/positioning/long-short?coin=BTC&exchange=ftx', 'exchange')
    await callBad(t, acct, '/v1/positioning/long-short?coin=BTC&lookback=24h&start_time=1700000000000', 'lookback')
    await callBad(t, acct, '/v1/positioning/long-short?coin=BTC&cursor=@@', 'cursor')
  })
})
