// GET /v1/signals/regime (3 credits) on a constructed case: one venue's hourly closes, 36 hours zigzagging ±1 % then 36
// hours rising 0.5 % an hour. Every history point is checked against the classifier's documented rules evaluated by
// hand on those closes (docs/methodology.md#regime: trend when ER ≥ 0.5 and |net move| ≥ 1 %; with under 48 history
// windows the volatility rules are not assessed, so everything else is ranging); paging; errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emptyMinuteBar } from '../../../src/domain/minute-bars.js'
import { Ingest } from '../../../src/ingest/ingest.js'
import { TEST_NOW } from '../../helpers/market.js'
import { startTestService, type TestService } from '../../helpers/service.js'
import { HOUR, callBad, callOk, expectClose, type Json } from '../markets/helpers.js'

let t: TestService
let acct: { apiKey: string; accountId: string }
const CURRENT_HOUR = Math.floor(TEST_NOW / HOUR) * HOUR
const N = 72
const FIRST = CURRENT_HOUR - N * HOUR
const closes = Array.from({ length: N }, (_, k) => (k < 36 ? (k % 2 ? 101 : 100) : 101 * 1.005 ** (k - 35)))

beforeAll(async () => {
  t = await startTestService({ clock: () => TEST_NOW })
  const { db, market } = t.services
  const ingest = new Ingest({ db, market, trackLive: false })
  closes.forEach((c, k) => {
    // one traded minute per hour: the hour's close is that minute's close
    const bar = emptyMinuteBar({ exchange: 'binance', coin: 'BTC', marketType: 'perp' }, FIRST + k * HOUR + 30 * 60_000)
    Object.assign(bar, { open: c, high: c, low: c, close: c, volume: 1, buyVolume: 0.5, sellVolume: 0.5, quoteVolume: c, trades: 1 })
    ingest.emitBar(bar)
  })
  await ingest.flush({ final: true })
  acct = await t.signup()
}, 120_000)
afterAll(() => t.close())

/** the classifier's rules by hand on the closes of hours 0..k */
function byHand(k: number): { regime: string | null; er: number | null; net: number | null } {
  if (k + 1 < 25) return { regime: null, er: null, net: null }
  const r = Array.from({ length: 24 }, (_, i) => Math.log(closes[k - 23 + i]! / closes[k - 24 + i]!))
  const net = r.reduce((s, x) => s + x, 0)
  const path = r.reduce((s, x) => s + Math.abs(x), 0)
  const er = path > 0 ? Math.abs(net) / path : 0
  return { regime: er >= 0.5 && Math.abs(net) >= 0.01 ? (net > 0 ? 'trending_up' : 'trending_down') : 'ranging', er, net }
}

describe('GET /v1/signals/regime', () => {
  it('1h history: one point per hour with a close, each the rules by hand; the current regime is the last complete window', async () => {
    const { data, meta } = await callOk(t, acct, '/v1/signals/regime?coin=BTC&lookback=7d&limit=5000', 3)
    expect(meta.next).toBeNull()
    expect(data.history.map((p: Json) => p.ts)).toEqual(closes.map((_, k) => FIRST + k * HOUR))
    const seen = new Set<string | null>()
    data.history.forEach((p: Json, k: number) => {
      const want = byHand(k)
      expect(p.as_of).toBe(p.ts + HOUR)
      expect(p.regime, `hour ${k}`).toBe(want.regime)
      seen.add(p.regime)
      if (want.er === null) expect(p.note).toMatch(/insufficient history/)
      else {
        expectClose(p.efficiency_ratio, want.er, 1e-9, `ER hour ${k}`)
        expectClose(p.net_move, want.net!, 1e-9, `net hour ${k}`)
        expect(p.vol_percentile).toBeNull()
        expect(p.exchanges).toEqual(['binance'])
      }
    })
    // the constructed path passes through all three outcomes
    expect([...seen].sort()).toEqual([null, 'ranging', 'trending_up'].sort())
    expect(data.current.regime).toBe('trending_up')
    expect(data.current.as_of).toBe(CURRENT_HOUR)
    expectClose(data.current.net_move, 24 * Math.log(1.005), 1e-9, 'current net move')
    expectClose(data.current.efficiency_ratio, 1, 1e-12, 'current ER')
    expect(data.thresholds).toMatchObject({ trend_efficiency_ratio: 0.5, min_trend_move: 0.01, high_vol_percentile: 90, low_vol_percentile: 10, oi_build: 0.03, window_hours: 24 })
  })

  it('4h and 1d: each point is the classification at its interval\'s end (or the current hour)', async () => {
    const hourly = (await callOk(t, acct, '/v1/signals/regime?coin=BTC&lookback=7d&limit=5000', 3)).data.history
    const byAsOf = new Map(hourly.map((p: Json) => [p.as_of, p.regime]))
    for (const interval of ['4h', '1d']) {
      const { data } = await callOk(t, acct, `/v1/signals/regime?coin=BTC&interval=${interval}&lookback=7d`, 3)
      expect(data.history.length).toBeGreaterThan(0)
      for (const p of data.history) expect(p.regime, `${interval} ${p.ts}`).toBe(byAsOf.get(p.as_of))
    }
  })

  it('pages with limit and cursor; the pages join to the whole history', async () => {
    const whole = (await callOk(t, acct, '/v1/signals/regime?coin=BTC&lookback=7d&limit=5000', 3)).data.history.map((p: Json) => p.ts)
    const seen: number[] = []
    let path = '/v1/signals/regime?coin=BTC&lookback=7d&limit=40'
    for (;;) {
      const { data, meta } = await callOk(t, acct, path, 3)
      seen.push(...data.history.map((p: Json) => p.ts))
      if (meta.next === null) break
      path = `/v1/signals/regime?coin=BTC&lookback=7d&limit=40&cursor=${meta.next}`
    }
    expect(seen).toEqual(whole)
  })

  it('bad parameters are 400 naming the parameter; nothing charged', async () => {
    expect((await callBad(t, acct, '/v1/signals/regime?coin=BTC&interval=5m', 'interval')).allowed).toEqual(['1h', '4h', '1d'])
    await callBad(t, acct, '/v1/signals/regime', 'coin')
    await callBad(t, acct, '/v1/signals/regime?coin=BTC&lookback=1h&interval=4h', 'interval')
    await callBad(t, acct, '/v1/signals/regime?coin=BTC&lookback=7d&start_time=1767225600000', 'lookback')
    await callBad(t, acct, '/v1/signals/regime?coin=BTC&cursor=abc', 'cursor')
    await callBad(t, acct, '/v1/signals/regime?coin=BTC&limit=0', 'limit')
  })
})
