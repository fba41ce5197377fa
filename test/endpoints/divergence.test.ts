// GET /v1/signals/divergence: the open-interest and funding legs' change over 1h and 4h after a backfill (samples
// every 5 minutes, as the service's own backfill writes them), derived again from the raw market_sample rows and
// compared with /v1/oi/changes and /v1/funding/weighted, on the embedded store and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HOUR_MS, MINUTE_MS } from '../../src/domain/time.js'
import { runBackfill } from '../../src/ingest/backfill.js'
import { MarketSimulator } from '../../src/sources/simulator/index.js'
import { freshSchema, requirePostgresInCi } from '../helpers/postgres.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { EXCHANGES, type Json } from '../rest/markets/helpers.js'

/** a whole minute: the divergence's last minute is 11:59, its windows end at 12:00 (as_of) */
const NOW = Date.UTC(2026, 2, 2, 12, 0, 0)
/** docs/methodology.md#oi-changes: a venue's sample stands for t when no older than 5 minutes */
const TOLERANCE_MS = 5 * MINUTE_MS
const WINDOWS = { '1h': HOUR_MS, '4h': 4 * HOUR_MS } as const

interface Venue {
  oi: number
  /** funding normalized to 8 h and the venue's OI in USD, its weight */
  rate8h: number
  oiUsd: number
}

/** each venue's latest sample stamped before t and no older than 5 minutes (raw SQL over market_sample) */
async function venuesAt(t: TestService, coin: string, at: number): Promise<Map<string, Venue>> {
  const rows = await t.services.db.sql.query<Json>(
    `SELECT exchange, ts, open_interest, mark_price, funding_rate, funding_interval_hours FROM market_sample
     WHERE coin = $1 AND market_type = 'perp' AND ts < $2 AND ts >= $3 ORDER BY ts DESC`,
    [coin, at, at - TOLERANCE_MS],
  )
  const out = new Map<string, Venue>()
  for (const r of rows) {
    if (out.has(r.exchange)) continue
    const oi = Number(r.open_interest)
    out.set(r.exchange, { oi, rate8h: (Number(r.funding_rate) * 8) / Number(r.funding_interval_hours), oiUsd: oi * Number(r.mark_price) })
  }
  return out
}

const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0)
/** OI-weighted funding, 8 h: Σ rate_8h × oi_usd / Σ oi_usd (docs/methodology.md#weighted-funding) */
const weighted = (vs: Venue[]) => sum(vs.map((v) => v.rate8h * v.oiUsd)) / sum(vs.map((v) => v.oiUsd))

async function call(t: TestService, key: string, path: string): Promise<Json[]> {
  const res = await t.get(path, key)
  expect(res.status, path).toBe(200)
  return ((await res.json()) as { data: Json[] }).data
}

/** backfill 12 h of BTC and ETH the way the service does (runBackfill: 5-minute samples) with the clock at NOW */
async function backfilled(env: Record<string, string> = {}) {
  let now = NOW
  const t = await startTestService({ env, clock: () => now })
  await runBackfill({ db: t.services.db, market: t.services.market, source: new MarketSimulator({ seed: 7, coins: ['BTC', 'ETH'] }), sourceName: 'simulator:7', now: NOW, days: 0.5 })
  const { apiKey } = await t.signup()
  return { t, key: apiKey, setNow: (x: number) => (now = x) }
}

/**
 * The OI leg's change over W is ln(Σ_S OI(as_of) / Σ_S OI(as_of − W)) and the funding leg's is f_S(as_of) − f_S(as_of − W),
 * S = the venues at both ends, each venue's value its latest sample stamped before that time (≤ 5 min old). That is
 * /v1/oi/changes' reading at as_of − 1 ms (it also counts a sample stamped at its `now`).
 */
async function checkLegs(t: TestService, key: string, setNow: (x: number) => void) {
  // the all-coins views first, at as_of − 1 ms; then the divergence at as_of
  setNow(NOW - 1)
  const oiChanges = await call(t, key, '/v1/oi/changes')
  const funding = await call(t, key, '/v1/funding/weighted')
  setNow(NOW)
  const divergence = await call(t, key, '/v1/signals/divergence')
  for (const coin of ['BTC', 'ETH']) {
    const d = divergence.find((c) => c.coin === coin)!
    expect(d.as_of).toBe(NOW)
    const leg = (pair: string, timeframe: string) => d.pairs.find((p: Json) => p.pair === pair && p.timeframe === timeframe).legs[1] as Json
    const current = await venuesAt(t, coin, NOW)
    expect([...current.keys()].sort(), `${coin}: every venue has a sample in the last 5 minutes`).toEqual([...EXCHANGES].sort())
    const fundingNow = funding.find((c) => c.coin === coin)!
    expect(Math.abs(fundingNow.weighted_rate - weighted([...current.values()])), `${coin}: /v1/funding/weighted reads the same samples`).toBeLessThan(1e-15)
    const got: Record<string, { oi: number; funding: number }> = {}
    for (const [tf, w] of Object.entries(WINDOWS)) {
      const then = await venuesAt(t, coin, NOW - w)
      const both = EXCHANGES.filter((e) => current.has(e) && then.has(e))
      expect(both, `${coin} ${tf}: every venue at both ends (so the chain over the window is the plain ratio)`).toEqual([...EXCHANGES])
      const oiNow = sum(both.map((e) => current.get(e)!.oi))
      const oiThen = sum(both.map((e) => then.get(e)!.oi))
      const oiLeg = leg('oi_price', tf)
      const fundingLeg = leg('funding_price', tf)
      expect(oiLeg.series).toBe('open_interest')
      expect(oiLeg.exchanges).toEqual(both)
      expect(Math.abs(oiLeg.change - Math.log(oiNow / oiThen)), `${coin} ${tf} OI leg ${oiLeg.change} vs ln(${oiNow} / ${oiThen})`).toBeLessThan(1e-12)
      const fundingChange = weighted(both.map((e) => current.get(e)!)) - weighted(both.map((e) => then.get(e)!))
      expect(fundingLeg.series).toBe('funding_rate')
      expect(fundingLeg.exchanges).toEqual(both)
      expect(Math.abs(fundingLeg.change - fundingChange), `${coin} ${tf} funding leg ${fundingLeg.change} vs ${fundingChange}`).toBeLessThan(1e-15)
      // /v1/oi/changes over the same window and venues: its % change is the same ratio
      const agg = oiChanges.find((c) => c.coin === coin)!.aggregate
      const pct = agg.changes[`change_${tf}`]
      expect(agg.exchanges).toEqual([...EXCHANGES])
      expect(Math.abs(oiLeg.change - Math.log1p(pct.pct / 100)), `${coin} ${tf}: ln(1 + ${pct.pct} %)`).toBeLessThan(1e-12)
      got[tf] = { oi: oiLeg.change, funding: fundingLeg.change }
    }
    // the windows moved differently, and so do the legs (they were equal, then both 0, before the fix)
    expect(Math.abs(got['1h']!.oi - got['4h']!.oi), `${coin}: OI 1h vs 4h`).toBeGreaterThan(1e-5)
    expect(Math.abs(got['1h']!.funding - got['4h']!.funding), `${coin}: funding 1h vs 4h`).toBeGreaterThan(1e-7)
  }
}

describe('divergence OI and funding legs after a backfill', () => {
  let svc: Awaited<ReturnType<typeof backfilled>>
  beforeAll(async () => {
    svc = await backfilled()
  }, 120_000)
  afterAll(() => svc?.t.close())

  it('each leg over 1h and 4h equals the change of the sampled OI and OI-weighted funding over that window (embedded store)', async () => {
    await checkLegs(svc.t, svc.key, svc.setNow)
  })
})

describe('divergence OI and funding legs after a backfill, PostgreSQL', () => {
  let svc: Awaited<ReturnType<typeof backfilled>> | undefined
  let drop: (() => Promise<void>) | undefined
  afterAll(async () => {
    await svc?.t.close()
    await drop?.()
  })

  it('the same on PostgreSQL', async (ctx) => {
    if (!(await requirePostgresInCi())) return ctx.skip()
    const schema = await freshSchema('divlegs')
    drop = schema.drop
    svc = await backfilled({ DATABASE_URL: schema.url })
    await checkLegs(svc.t, svc.key, svc.setNow)
  }, 180_000)
})
