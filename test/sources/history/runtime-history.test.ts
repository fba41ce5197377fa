// Done-when of issue 30 on Binance: the service started on a live source (MARKET_SOURCE=binance) with
// BINANCE_REST_URL / BINANCE_WS_URL pointing at the Binance venue double, on a fresh store, serves 30 days of OHLC,
// open-interest history, funding history and long/short from the double's pages (expected values derived from the
// double's own series, by hand), and coverage says the minutes came from klines.
import '../../helpers/no-network.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMarketRuntime, type MarketRuntime } from '../../../src/sources/runtime.js'
import { startTestService, type TestService } from '../../helpers/service.js'
import { startVenueDouble, type VenueDouble } from '../../helpers/venue-doubles/index.js'

const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR
const T0 = Date.UTC(2026, 10, 20, 12, 0, 30)

describe('a fresh live start on the Binance double serves 30 days of history', () => {
  const clock = () => T0
  let double: VenueDouble
  let t: TestService
  let runtime: MarketRuntime
  let key: string
  const end = Math.floor(T0 / MIN) * MIN

  beforeAll(async () => {
    double = await startVenueDouble('binance', { now: clock, seed: 3, coins: ['BTC'] })
    t = await startTestService({ env: { MARKET_SOURCE: 'binance', BACKFILL_DAYS: '30', ...double.env() }, clock })
    // the live feed's streams stay off: its minutes would be built from trades, and this is about the history
    runtime = await startMarketRuntime(t.services, { liveConnectorOptions: { now: clock, streams: { trades: false, books: false, liquidations: false } } })
    await runtime.backfill
    key = (await t.signup()).apiKey
  }, 240_000)
  afterAll(async () => {
    await runtime?.stop()
    await t?.close()
    await double?.close()
  })

  const data = async (path: string) => {
    const res = await t.get(path, key)
    expect(res.status, path).toBe(200)
    return ((await res.json()) as { data: any }).data
  }

  it('OHLC: every hour of 30 days is the double minutes folded by hand', async () => {
    const d = await data('/v1/markets/ohlc?coin=BTC&exchange=binance&interval=1h&lookback=30d')
    const first = Math.ceil((T0 - 30 * DAY) / HOUR) * HOUR
    expect(d.candles.map((c: any) => c.ts)).toEqual(Array.from({ length: (end - first) / HOUR }, (_, i) => first + i * HOUR))
    for (const c of d.candles) {
      const ms = double.history.candles('BTC', 'perp', c.ts, c.ts + HOUR).filter((x) => x.closed)
      expect([c.open, c.high, c.low, c.close]).toEqual([ms[0]!.open, Math.max(...ms.map((x) => x.high)), Math.min(...ms.map((x) => x.low)), ms.at(-1)!.close])
      expect(c.volume).toBeCloseTo(ms.reduce((a, x) => a + x.volume, 0), 6)
    }
    expect(d.coverage.partial).toBe(false)
  })

  it('open interest: each hour closes on the double last 5-minute value of the hour (30 days less the venue margin)', async () => {
    const d = await data('/v1/oi/history?coin=BTC&exchange=binance&interval=1h&lookback=30d&limit=5000')
    const points = d.exchanges.find((e: any) => e.exchange === 'binance').points as { ts: number; close: number }[]
    expect(points.length).toBeGreaterThan(29 * 24)
    for (const p of points) {
      const want = double.history.openInterest('BTC', p.ts, p.ts + HOUR)
      expect(p.close).toBe(want.at(-1)!.openInterest)
    }
  })

  it('funding: every settlement of 30 days with its rate and interval', async () => {
    const d = await data('/v1/funding/history?coin=BTC&exchange=binance&interval=1d&lookback=30d&limit=5000')
    const got = d.exchanges.find((e: any) => e.exchange === 'binance').settlements as { ts: number; rate: number; interval_hours: number }[]
    // the series' window starts at its first whole interval (a day)
    const first = Math.ceil((d.start as number) / DAY) * DAY
    expect(got.map((s) => [s.ts, s.rate, s.interval_hours])).toEqual(double.history.funding('BTC', first, end).map((p) => [p.ts, p.rate, p.intervalHours]))
  })

  it('long/short: the ratios are stored for the venue window', async () => {
    const rows = await t.services.db.sql.query<{ kind: string; n: string }>("SELECT kind, count(*) AS n FROM positioning_sample WHERE exchange = 'binance' AND coin = 'BTC' AND ts < $1 GROUP BY kind ORDER BY kind", [end])
    const want = double.history.longShort('BTC', 'account', T0 - 30 * DAY + 10 * MIN, end).length
    expect(rows.map((r) => [r.kind, Number(r.n)])).toEqual([['account', want], ['top_position', want]])
    const d = await data('/v1/positioning/long-short?coin=BTC&exchange=binance&interval=1h&lookback=7d&limit=5000')
    expect(JSON.stringify(d)).toContain('binance')
  })

  it('/healthz reports the history done for every kind', async () => {
    const h = (await (await t.get('/healthz')).json()) as any
    for (const kind of ['candles_perp', 'candles_spot', 'open_interest', 'funding', 'long_short']) expect(h.history.binance.kinds[kind], kind).toMatchObject({ pages_remaining: 0, holes: 0 })
    expect(h.history.binance.kinds.open_interest.ends.reason).toBe('retention')
  })
})
