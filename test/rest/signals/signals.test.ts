// REST contract of /v1/signals/divergence (5 credits) and /v1/signals/snapshot (10 credits): field by field against
// docs/contract.md#payloads and the stored operations, values checked independently (raw SQL over candle_1m / candle_1h /
// market_sample, the live maps, the documented formulas of docs/methodology.md re-implemented here, and the other
// endpoints the snapshot summarizes), failures that charge nothing, the snapshot cache, and GraphQL = REST.
//
// One service:
//   BTC 30 h  -> 1h divergence z-scores from ≥ 24 hourly windows, 4h history too short (null + note); a regime
//   SOL 30 h  -> the same, and then a short-covering rally injected into its last 30 stored minutes (perp price
//                +4 %, open interest −5 %, taker flow balanced): an active bearish oi_price divergence on 1h
//   ETH 3 h   -> 1h history too short, no 4h window at all; no regime
//   the 9 other coins: no data at all
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { EXCHANGES as EXCHANGE_INFO } from '../../../src/domain/exchanges.js'
import { Ingest } from '../../../src/ingest/ingest.js'
import { TEST_NOW, seedMarket } from '../../helpers/market.js'
import { startTestService, type TestService } from '../../helpers/service.js'
import { DEFAULT_COINS, EXCHANGES, HOUR, MINUTE, balance, callBad, callOk, expectClose, sortedKeys, type Json } from '../markets/helpers.js'
import { callFail, expectMatchesTree, floorTo, graphqlOp, operationTree, snakeDeep, sum, type Acct } from './helpers.js'

let now = TEST_NOW
let t: TestService
let acct: Acct

const CURRENT_MINUTE = floorTo(TEST_NOW, MINUTE) // 12:00, open (not stored yet)
const LAST_MINUTE = CURRENT_MINUTE - MINUTE // 11:59, the last stored minute
const RALLY_FROM = CURRENT_MINUTE - 30 * MINUTE

beforeAll(async () => {
  t = await startTestService({ clock: () => now })
  await seedMarket(t, { hours: 30, coins: ['BTC', 'SOL'] })
  await seedMarket(t, { hours: 3, coins: ['ETH'] })
  await injectShortCoveringRally('SOL')
  acct = await t.signup()
  await t.setCredits(acct.accountId, 100_000)
}, 120_000)
afterAll(() => t?.close())

/**
 * Rewrite the coin's last 30 stored perp minutes through the real ingest pipeline: every venue trades at its own
 * close ramped up to +4 % (buy and sell volume equal, so CVD is flat) while every venue's open interest is ramped
 * down to −5 % (mark and funding unchanged). A rally on falling OI: short covering, bearish by the documented readings.
 */
async function injectShortCoveringRally(coin: string): Promise<void> {
  const { db, market } = t.services
  const bars = await db.sql.query<Json>(
    `SELECT exchange, ts, close, volume FROM candle_1m WHERE coin = $1 AND market_type = 'perp' AND ts >= $2 AND ts < $3`,
    [coin, RALLY_FROM, CURRENT_MINUTE],
  )
  const samples = await db.sql.query<Json>(`SELECT * FROM market_sample WHERE coin = $1 AND market_type = 'perp' AND ts >= $2 AND ts < $3`, [coin, RALLY_FROM, CURRENT_MINUTE])
  expect(bars.length).toBeGreaterThan(5 * 28) // a quiet venue may skip a minute
  expect(samples.length).toBe(5 * 30)
  const ingest = new Ingest({ db, market, trackLive: false, sampleEveryMs: MINUTE })
  const step = (ts: number) => (ts - RALLY_FROM) / MINUTE + 1 // 1..30
  for (const b of bars) {
    const ts = Number(b.ts)
    const price = b.close * (1 + (0.04 * step(ts)) / 30)
    for (const side of ['buy', 'sell'] as const)
      ingest.emit({ type: 'trade', exchange: b.exchange, coin, marketType: 'perp', ts: ts + 1000, id: `rally-${ts}-${side}`, price, size: Math.max(b.volume, 1) / 2, side })
  }
  for (const s of samples) {
    const ts = Number(s.ts)
    ingest.emit({
      type: 'ticker', exchange: s.exchange, coin, marketType: 'perp', ts, markPrice: s.mark_price, indexPrice: s.index_price, lastPrice: s.last_price,
      fundingRate: s.funding_rate, fundingIntervalHours: s.funding_interval_hours, nextFundingTime: s.next_funding_time == null ? null : Number(s.next_funding_time),
    })
    ingest.emit({ type: 'open_interest', exchange: s.exchange, coin, marketType: 'perp', ts, openInterest: s.open_interest * (1 - (0.05 * step(ts)) / 30) })
  }
  await ingest.flush({ final: true })
}

// ---- independent readings of the store -----------------------------------------------------------------------

/** the coin's composite perp close of one minute: Σ close × volume / Σ volume over the venues (raw SQL) */
async function compositeClose(coin: string, ts: number, table = 'candle_1m'): Promise<number | null> {
  const rows = await t.services.db.sql.query<Json>(`SELECT close, volume FROM ${table} WHERE coin = $1 AND market_type = 'perp' AND ts = $2`, [coin, ts])
  if (!rows.length) return null
  const vol = sum(rows.map((r) => r.volume))
  return vol > 0 ? sum(rows.map((r) => r.close * r.volume)) / vol : sum(rows.map((r) => r.close)) / rows.length
}

/** Σ taker buy − sell of the minutes opening in (from, to] */
async function netFlow(coin: string, marketType: string, from: number, to: number): Promise<number> {
  const rows = await t.services.db.sql.query<Json>(
    `SELECT sum(buy_volume - sell_volume) AS f FROM candle_1m WHERE coin = $1 AND market_type = $2 AND ts > $3 AND ts <= $4`,
    [coin, marketType, from, to],
  )
  return Number(rows[0]!.f)
}

/** aggregate OI (Σ venues, coins) and OI-weighted funding normalized to 8 h at one sample minute */
async function oiAndFunding(coin: string, ts: number): Promise<{ oi: number; funding8h: number }> {
  const rows = await t.services.db.sql.query<Json>(
    `SELECT open_interest, mark_price, funding_rate, funding_interval_hours FROM market_sample WHERE coin = $1 AND market_type = 'perp' AND ts = $2`,
    [coin, ts],
  )
  expect(rows, `${coin} has a sample of every venue at ${new Date(ts).toISOString()}`).toHaveLength(5)
  const usd = rows.map((r) => r.open_interest * r.mark_price)
  return {
    oi: sum(rows.map((r) => r.open_interest)),
    funding8h: sum(rows.map((r, i) => ((r.funding_rate * 8) / r.funding_interval_hours) * usd[i]!)) / sum(usd),
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Divergence

const PAIRS = ['oi_price', 'cvd_price', 'funding_price', 'spot_perp_cvd']
const LEGS: Record<string, [string, string]> = {
  oi_price: ['price', 'open_interest'],
  cvd_price: ['price', 'cvd'],
  funding_price: ['price', 'funding_rate'],
  spot_perp_cvd: ['spot_cvd', 'perp_cvd'],
}
const SIGNAL_KEYS = ['active', 'direction', 'divergence', 'legs', 'note', 'pair', 'points', 'statistic', 'timeframe', 'z_score']

const moveSign = (z: number) => (z >= 0.5 ? 1 : z <= -0.5 ? -1 : 0)

/**
 * docs/methodology.md#divergence step 5: legs read up/down at |z| ≥ 0.5, then the readings table (rows: first leg
 * down, flat, up; columns: second leg down, flat, up)
 */
const READINGS: Record<string, string[][]> = {
  oi_price: [['bullish', 'none', 'bearish'], ['none', 'none', 'none'], ['bearish', 'none', 'bullish']],
  cvd_price: [['none', 'none', 'bullish'], ['none', 'none', 'none'], ['bearish', 'none', 'none']],
  funding_price: [['bullish', 'none', 'bearish'], ['bullish', 'none', 'bearish'], ['bullish', 'none', 'bearish']],
  spot_perp_cvd: [['none', 'none', 'bearish'], ['none', 'none', 'none'], ['bullish', 'none', 'none']],
}
function documentedDirection(pair: string, za: number, zb: number): string {
  return READINGS[pair]![moveSign(za) + 1]![moveSign(zb) + 1]!
}

/** step 4: the quadrant statistic, z_a + z_b when both legs moved the same way, else z_a − z_b */
const quadrantSign = (za: number, zb: number) => (moveSign(za) * moveSign(zb) > 0 ? 1 : -1)

/** the per-entry rules every divergence signal obeys */
function checkSignal(coin: string, p: Json): void {
  const what = `${coin} ${p.pair} ${p.timeframe}`
  expect(sortedKeys(p)).toEqual(SIGNAL_KEYS)
  expect(['bullish', 'bearish', 'none']).toContain(p.direction)
  expect(typeof p.active).toBe('boolean')
  expect(Number.isInteger(p.points) && p.points >= 0 && p.points <= 120, `${what}: points`).toBe(true)
  expect(p.legs.map((l: Json) => l.series), `${what}: legs`).toEqual(LEGS[p.pair])
  for (const l of p.legs) {
    expect(sortedKeys(l)).toEqual(['change', 'exchanges', 'series', 'z'])
    expect(EXCHANGES.filter((e) => l.exchanges.includes(e)), `${what}: leg venues in exchange order`).toEqual(l.exchanges)
    expect(l.change === null || typeof l.change === 'number').toBe(true)
    expect(l.z === null || typeof l.z === 'number').toBe(true)
  }
  expect(p.active, `${what}: active iff |z| >= 2 and a direction`).toBe(p.z_score !== null && Math.abs(p.z_score) >= 2 && p.direction !== 'none')
  if (p.z_score === null) {
    expect(typeof p.note, `${what}: a null z_score carries a note`).toBe('string')
    expect(p.note.length).toBeGreaterThan(3)
  } else {
    expect(typeof p.z_score).toBe('number')
    expect(p.note, `${what}: note only explains a missing z`).toBeNull()
    expect(p.points, `${what}: a z-score needs ≥ 24 history windows`).toBeGreaterThanOrEqual(24)
  }
  const [za, zb] = p.legs.map((l: Json) => l.z as number | null)
  if (za === null || zb === null) {
    expect(p.direction, `${what}: no direction without both leg z`).toBe('none')
    expect(p.z_score).toBeNull()
    expect(p.divergence).toBeNull()
    expect(p.statistic).toBeNull()
  } else {
    const sign = quadrantSign(za, zb)
    expect(p.statistic).toBe(sign > 0 ? 'sum' : 'difference')
    expectClose(p.divergence, za + sign * zb, 1e-12, `${what}: divergence = z_a ± z_b by quadrant`)
    expect(p.direction, `${what}: the documented reading of z_a ${za}, z_b ${zb}`).toBe(documentedDirection(p.pair, za, zb))
  }
}

describe('GET /v1/signals/divergence (5 credits)', () => {
  let all: Json[]

  it('coin omitted = every coin once, in coin order; each with exactly 8 entries (4 pairs on 1h, then on 4h); exact keys', async () => {
    const { data, meta } = await callOk<Json[]>(t, acct, '/v1/signals/divergence', 5)
    all = data
    expect(meta.as_of).toBe(TEST_NOW)
    expectMatchesTree(data, operationTree('divergence'))
    expect(data.map((c) => c.coin)).toEqual(DEFAULT_COINS)
    for (const c of data) {
      expect(sortedKeys(c)).toEqual(['as_of', 'coin', 'coverage', 'pairs'])
      // 30 h (BTC, SOL) or 3 h (ETH) of the ~20 days the 4h z-scores read: partial; coins without data cover nothing
      expect(c.coverage.partial).toBe(true)
      if (['BTC', 'SOL', 'ETH'].includes(c.coin)) expect(c.coverage.exchanges).toEqual([...EXCHANGES])
      else expect(c.coverage.exchanges).toEqual([])
      expect(c.pairs).toHaveLength(8)
      expect(c.pairs.map((p: Json) => `${p.pair}/${p.timeframe}`)).toEqual([...PAIRS.map((p) => `${p}/1h`), ...PAIRS.map((p) => `${p}/4h`)])
      for (const p of c.pairs) checkSignal(c.coin, p)
    }
  })

  it('one coin (case-insensitive) = that coin\'s entry of the all-coins answer; as_of = end of the last stored minute', async () => {
    for (const coin of ['btc', 'Sol', 'ETH', 'ada']) {
      const { data } = await callOk<Json[]>(t, acct, `/v1/signals/divergence?coin=${coin}`, 5)
      expect(data).toHaveLength(1)
      expect(data[0]).toEqual(all.find((c) => c.coin === coin.toUpperCase()))
    }
    for (const coin of ['BTC', 'SOL', 'ETH']) expect(all.find((c) => c.coin === coin)!.as_of).toBe(CURRENT_MINUTE)
  })

  it('BTC and SOL (30 h): 1h z-scores from ≥ 24 windows; 4h history is short → every 4h z null with an "insufficient history" note', () => {
    for (const coin of ['BTC', 'SOL']) {
      const pairs = all.find((c) => c.coin === coin)!.pairs as Json[]
      for (const p of pairs.slice(0, 4)) {
        expect(typeof p.z_score, `${coin} ${p.pair} 1h`).toBe('number')
        expect(p.points).toBeGreaterThanOrEqual(24)
        for (const l of p.legs) expect(typeof l.z).toBe('number')
      }
      for (const p of pairs.slice(4)) {
        expect(p).toMatchObject({ z_score: null, active: false, direction: 'none', divergence: null })
        expect(p.points).toBeLessThan(24)
        expect(p.note).toMatch(/insufficient history/)
        for (const l of p.legs) expect(typeof l.change, `${coin} ${p.pair} 4h leg change still known`).toBe('number')
      }
    }
  })

  it('the current 1h window\'s leg changes, recomputed from candle_1m and market_sample (price/OI log change, funding difference, perp and spot CVD)', async () => {
    const s = LAST_MINUTE - HOUR
    for (const coin of ['BTC', 'SOL']) {
      const pairs = all.find((c) => c.coin === coin)!.pairs as Json[]
      const leg = (pair: string, series: string) => pairs.find((p) => p.pair === pair && p.timeframe === '1h')!.legs.find((l: Json) => l.series === series)!.change
      const price = Math.log((await compositeClose(coin, LAST_MINUTE))! / (await compositeClose(coin, s))!)
      const [a, b] = [await oiAndFunding(coin, s), await oiAndFunding(coin, LAST_MINUTE)]
      const perp = await netFlow(coin, 'perp', s, LAST_MINUTE)
      const spot = await netFlow(coin, 'spot', s, LAST_MINUTE)
      for (const pair of ['oi_price', 'cvd_price', 'funding_price']) expectClose(leg(pair, 'price'), price, 1e-9, `${coin} ${pair} price change`)
      expectClose(leg('oi_price', 'open_interest'), Math.log(b.oi / a.oi), 1e-9, `${coin} OI log change`)
      expectClose(leg('funding_price', 'funding_rate'), b.funding8h - a.funding8h, 1e-6, `${coin} funding change`)
      expectClose(leg('cvd_price', 'cvd'), perp, 1e-9, `${coin} perp CVD`)
      expectClose(leg('spot_perp_cvd', 'perp_cvd'), perp, 1e-9, `${coin} perp CVD (spot pair)`)
      expectClose(leg('spot_perp_cvd', 'spot_cvd'), spot, 1e-9, `${coin} spot CVD`)
    }
    // each leg names the venues behind it: traded minutes of the window (price: its first minute too), and for OI
    // and funding the venues with a sample at both ends of a minute step inside it
    for (const coin of ['BTC', 'SOL']) {
      const pairs = all.find((c) => c.coin === coin)!.pairs as Json[]
      const legVenues = (pair: string, series: string) => pairs.find((p) => p.pair === pair && p.timeframe === '1h')!.legs.find((l: Json) => l.series === series)!.exchanges
      const q = async (text: string) => (await t.services.db.sql.query<Json>(text, [coin, s, LAST_MINUTE])).map((r) => r.exchange as string)
      const order = (xs: string[]) => EXCHANGES.filter((e) => xs.includes(e))
      const traded = order(await q(`SELECT DISTINCT exchange FROM candle_1m WHERE coin = $1 AND market_type = 'perp' AND ts >= $2 AND ts <= $3`))
      const tradedAfter = order(await q(`SELECT DISTINCT exchange FROM candle_1m WHERE coin = $1 AND market_type = 'perp' AND ts > $2 AND ts <= $3`))
      const spotAfter = order(await q(`SELECT DISTINCT exchange FROM candle_1m WHERE coin = $1 AND market_type = 'spot' AND ts > $2 AND ts <= $3`))
      const matched = order(
        await q(`SELECT DISTINCT a.exchange FROM market_sample a JOIN market_sample b ON b.exchange = a.exchange AND b.coin = a.coin AND b.market_type = a.market_type AND b.ts = a.ts + ${MINUTE}
                 WHERE a.coin = $1 AND a.market_type = 'perp' AND b.ts > $2 AND b.ts <= $3 AND a.open_interest IS NOT NULL AND b.open_interest IS NOT NULL`),
      )
      expect(traded.length).toBeGreaterThan(0)
      expect(legVenues('oi_price', 'price'), `${coin} price venues`).toEqual(traded)
      expect(legVenues('cvd_price', 'cvd'), `${coin} perp CVD venues`).toEqual(tradedAfter)
      expect(legVenues('spot_perp_cvd', 'spot_cvd'), `${coin} spot CVD venues`).toEqual(spotAfter)
      expect(legVenues('oi_price', 'open_interest'), `${coin} OI venues`).toEqual(matched)
      expect(legVenues('funding_price', 'funding_rate'), `${coin} funding venues`).toEqual(matched)
    }
    // the injected rally really is in the data: SOL +4 % on −5 % OI over the last 30 minutes
    const sol = all.find((c) => c.coin === 'SOL')!.pairs[0]
    expect(sol.legs[0].change).toBeGreaterThan(0.03)
    expect(sol.legs[1].change).toBeLessThan(-0.04)
  })

  it('1h z-scores rebuilt from the store as documented (minute points for the last 6 h, hourly points at each hour\'s last minute before): oi_price and cvd_price', async () => {
    // docs/methodology.md#divergence steps 1-4 and "How the models are fed"; history = the previous 1h windows, ending at :59
    const tailStart = floorTo(CURRENT_MINUTE - 6 * HOUR, HOUR)
    const { sql } = t.services.db
    const sd = (xs: number[]) => {
      const m = sum(xs) / xs.length
      return Math.sqrt(sum(xs.map((x) => (x - m) ** 2)) / (xs.length - 1))
    }
    const z = (x: number, h: number[]) => (x - sum(h) / h.length) / sd(h)
    for (const coin of ['BTC', 'SOL']) {
      const first = Number((await sql.query<Json>(`SELECT min(ts) AS ts FROM candle_1h WHERE coin = $1 AND market_type = 'perp'`, [coin]))[0]!.ts)
      const t0 = first + HOUR - MINUTE // the first hourly point sits at its hour's last minute
      const price = async (ts: number) => (ts >= tailStart ? compositeClose(coin, ts) : compositeClose(coin, floorTo(ts, HOUR), 'candle_1h'))
      const oi = async (ts: number) => (await oiAndFunding(coin, ts)).oi
      const flow = async (end: number) => {
        const rows = await sql.query<Json>(`SELECT sum(buy_volume - sell_volume) AS f FROM candle_1h WHERE coin = $1 AND market_type = 'perp' AND ts = $2`, [coin, floorTo(end, HOUR)])
        return Number(rows[0]!.f)
      }
      const a: number[] = [] // price log change per window, current first
      const b: number[] = [] // OI log change
      const c: number[] = [] // perp CVD change (net flow of the hour ending at the window's end)
      for (let e = LAST_MINUTE; e - HOUR >= t0; e -= HOUR) {
        a.push(Math.log((await price(e))! / (await price(e - HOUR))!))
        b.push(Math.log((await oi(e)) / (await oi(e - HOUR))))
        c.push(await flow(e))
      }
      const pairs = all.find((x) => x.coin === coin)!.pairs as Json[]
      for (const [pair, second] of [['oi_price', b], ['cvd_price', c]] as const) {
        const p = pairs.find((x) => x.pair === pair && x.timeframe === '1h')!
        const ha = a.slice(1)
        const hb = second.slice(1)
        expect(p.points, `${coin} ${pair}: history windows`).toBe(ha.length)
        const za = z(a[0]!, ha)
        const zb = z(second[0]!, hb)
        expectClose(p.legs[0].z, za, 1e-6, `${coin} ${pair} price z`)
        expectClose(p.legs[1].z, zb, 1e-6, `${coin} ${pair} ${p.legs[1].series} z`)
        const [ma, mb, sa, sb] = [sum(ha) / ha.length, sum(hb) / hb.length, sd(ha), sd(hb)]
        const sign = quadrantSign(za, zb)
        const hd = ha.map((x, i) => (x - ma) / sa + (sign * (hb[i]! - mb)) / sb)
        expectClose(p.z_score, z(za + sign * zb, hd), 1e-6, `${coin} ${pair} z_score`)
      }
    }
  })

  it('SOL\'s short-covering rally (price up, OI down) is an active bearish oi_price divergence on 1h; the rest of SOL is consistent', () => {
    const sol = all.find((c) => c.coin === 'SOL')!.pairs as Json[]
    const oi = sol.find((p) => p.pair === 'oi_price' && p.timeframe === '1h')!
    expect(oi).toMatchObject({ direction: 'bearish', active: true })
    expect(oi.z_score).toBeGreaterThanOrEqual(2)
    expect(oi.legs[0].z).toBeGreaterThanOrEqual(0.5)
    expect(oi.legs[1].z).toBeLessThanOrEqual(-0.5)
    // the flow was kept balanced: no CVD-led reading
    expect(sol.find((p) => p.pair === 'cvd_price' && p.timeframe === '1h')!.direction).not.toBe('bullish')
  })

  it('short or no history: ETH (3 h) has no 1h z (insufficient history) and no 4h window; a coin without data says "no data"', () => {
    const eth = all.find((c) => c.coin === 'ETH')!.pairs as Json[]
    for (const p of eth) expect(p).toMatchObject({ z_score: null, active: false, direction: 'none' })
    for (const p of eth.slice(0, 4)) {
      expect(p.note).toMatch(/insufficient history/)
      expect(p.points).toBeLessThan(24)
    }
    for (const p of eth.slice(4)) {
      expect(p.note).toMatch(/4h window/)
      expect(p.legs[0].change).toBeNull()
    }
    for (const coin of DEFAULT_COINS.filter((c) => !['BTC', 'ETH', 'SOL'].includes(c))) {
      const c = all.find((x) => x.coin === coin)!
      expect(c.as_of, `${coin} has no data`).toBeNull()
      for (const p of c.pairs) {
        expect(p).toMatchObject({ z_score: null, active: false, direction: 'none', divergence: null, points: 0, note: 'no data' })
        expect(p.legs.every((l: Json) => l.change === null && l.z === null)).toBe(true)
      }
    }
  })

  it('bad parameters: 400 invalid_parameter naming the parameter, nothing charged', async () => {
    const bad = await callBad(t, acct, '/v1/signals/divergence?coin=NOTACOIN', 'coin')
    expect(bad.allowed).toEqual(DEFAULT_COINS)
    await callBad(t, acct, '/v1/signals/divergence?coin=BTC&exchange=binance', 'exchange')
    await callBad(t, acct, '/v1/signals/divergence?timeframe=1h', 'timeframe')
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Snapshot

const REGIMES = ['trending_up', 'trending_down', 'ranging', 'high_volatility', 'squeeze']
const SNAPSHOT_KEYS = ['as_of', 'coins', 'computed_at', 'coverage', 'divergences', 'regime_distribution', 'top_arbitrage']
const COIN_KEYS = ['active_divergences', 'coin', 'components', 'funding_z', 'oi_change_24h_pct', 'price', 'price_change_24h_pct', 'rank', 'regime', 'regime_exchanges', 'score', 'spread_z']
const ARB_KEYS = ['coin', 'fees_bps', 'gross_bps', 'holding_hours', 'long_exchange', 'long_price_source', 'net_bps', 'short_exchange', 'short_price_source', 'type']
/** docs/methodology.md#snapshot: weights, units, cap 4, normalized by 4 × Σ weights = 17 */
const WEIGHTS = { funding: 1, spread: 0.5, oi: 1, divergence: 1, momentum: 0.75 }
const UNITS = { funding: 1, spread: 1, oi: 5, divergence: 1, momentum: 5 }
const part = (k: keyof typeof WEIGHTS, x: number | null) => (x === null ? 0 : (100 * WEIGHTS[k] * Math.min(4, Math.abs(x) / UNITS[k])) / 17)
const FEE = new Map(EXCHANGE_INFO.map((e) => [e.id as string, e.takerFee]))

describe('GET /v1/signals/snapshot (10 credits)', () => {
  let snap: Json

  it('exact keys of the stored operation; every coin exactly once, ranked 1..n by descending score (ties by coin name)', async () => {
    const { data, meta } = await callOk(t, acct, '/v1/signals/snapshot', 10)
    snap = data
    expect(sortedKeys(data)).toEqual(SNAPSHOT_KEYS)
    expectMatchesTree(data, operationTree('snapshot'))
    expect(data.as_of).toBe(TEST_NOW)
    expect(meta.as_of).toBe(TEST_NOW)
    expect(data.computed_at).toBeLessThanOrEqual(TEST_NOW)
    // every venue has a fresh ticker; 30 h of the ~20 days of history the snapshot's 4h divergences read
    expect(data.coverage).toMatchObject({ exchanges: [...EXCHANGES], requested_to: TEST_NOW, partial: true })
    expect(data.coverage.requested_from).toBe(CURRENT_MINUTE - (121 * 240 + 1) * MINUTE)
    const coins = data.coins as Json[]
    expect(coins.map((c) => c.coin).sort()).toEqual(DEFAULT_COINS)
    coins.forEach((c, i) => {
      expect(sortedKeys(c)).toEqual(COIN_KEYS)
      expect(sortedKeys(c.components)).toEqual(['divergence', 'funding', 'momentum', 'oi', 'spread'])
      expect(c.rank).toBe(i + 1)
      if (i > 0) {
        const prev = coins[i - 1]!
        expect(prev.score, `rank ${i} vs ${i + 1}`).toBeGreaterThanOrEqual(c.score)
        if (prev.score === c.score) expect(prev.coin < c.coin, 'ties by coin name').toBe(true)
      }
    })
  })

  it('score within 0..100 = Σ components; each component = the documented formula of the coin\'s raw field', () => {
    for (const c of snap.coins as Json[]) {
      expect(c.score).toBeGreaterThanOrEqual(0)
      expect(c.score).toBeLessThanOrEqual(100)
      expectClose(sum(Object.values(c.components) as number[]), c.score, 1e-12, `${c.coin}: Σ components = score`)
      expectClose(c.components.funding, part('funding', c.funding_z), 1e-12, `${c.coin} funding`)
      expectClose(c.components.spread, part('spread', c.spread_z), 1e-12, `${c.coin} spread`)
      expectClose(c.components.oi, part('oi', c.oi_change_24h_pct), 1e-12, `${c.coin} oi`)
      expectClose(c.components.divergence, part('divergence', c.active_divergences), 1e-12, `${c.coin} divergence`)
      expectClose(c.components.momentum, part('momentum', c.price_change_24h_pct), 1e-12, `${c.coin} momentum`)
    }
    // the data makes the score mean something: SOL's active divergence and rally put it first
    expect(snap.coins[0].coin).toBe('SOL')
    for (const c of snap.coins as Json[]) if (!['BTC', 'ETH', 'SOL'].includes(c.coin)) expect(c).toMatchObject({ score: 0, price: null, regime: null })
  })

  it('raw fields agree with their own endpoints (funding, spread, OI changes, divergence) and with the stored closes', async () => {
    const funding = (await callOk<Json[]>(t, acct, '/v1/funding/weighted', 3)).data
    const spread = (await callOk<Json[]>(t, acct, '/v1/structure/spread', 3)).data
    const oi = (await callOk<Json[]>(t, acct, '/v1/oi/changes', 3)).data
    const div = (await callOk<Json[]>(t, acct, '/v1/signals/divergence', 5)).data
    for (const c of snap.coins as Json[]) {
      expect(c.funding_z, `${c.coin} funding_z`).toBe(funding.find((f) => f.coin === c.coin)!.z_score)
      expect(c.spread_z, `${c.coin} spread_z`).toBe(spread.find((s) => s.coin === c.coin)!.z_score)
      expect(c.oi_change_24h_pct, `${c.coin} oi_change_24h_pct`).toBe(oi.find((o) => o.coin === c.coin)!.aggregate.changes.change_24h.pct)
      expect(c.active_divergences, `${c.coin} active_divergences`).toBe(div.find((d) => d.coin === c.coin)!.pairs.filter((p: Json) => p.active).length)
      // price: the composite perp close of the last stored minute
      const p = await compositeClose(c.coin, LAST_MINUTE)
      if (p === null) expect(c.price).toBeNull()
      else expectClose(c.price, p, 1e-12, `${c.coin} price`)
      if (p === null || (await compositeClose(c.coin, LAST_MINUTE - 24 * HOUR)) === null) expect(c.price_change_24h_pct, `${c.coin}: no 24 h change without a close 24 h ago`).toBeNull()
      else expect(typeof c.price_change_24h_pct).toBe('number')
    }
    const sol = snap.coins.find((c: Json) => c.coin === 'SOL')
    expect(sol.active_divergences).toBeGreaterThanOrEqual(1)
  })

  it('price_change_24h_pct compares the latest close with the close of the minute exactly 24 h before it', async () => {
    // docs/methodology.md#snapshot: "priceChange24hPct: price change over 24 h". The latest stored minute is 11:59
    // (the current minute is open), so the reference is the 11:59 minute of the day before.
    for (const coin of ['BTC', 'SOL']) {
      const c = snap.coins.find((x: Json) => x.coin === coin)
      const p = (await compositeClose(coin, LAST_MINUTE))!
      const ref = (await compositeClose(coin, LAST_MINUTE - 24 * HOUR))!
      expectClose(c.price_change_24h_pct, ((p - ref) / ref) * 100, 1e-9, `${coin} price_change_24h_pct over 24 h`)
    }
  })

  it('regime_distribution: all five regimes, counts = coins per regime, Σ = coins with a regime; regime iff ≥ 25 hourly closes, by the trend rule', async () => {
    const dist = snap.regime_distribution as Json
    expect(sortedKeys(dist)).toEqual([...REGIMES].sort())
    for (const r of REGIMES) {
      expect(Number.isInteger(dist[r])).toBe(true)
      expect(dist[r], r).toBe(snap.coins.filter((c: Json) => c.regime === r).length)
    }
    const withRegime = snap.coins.filter((c: Json) => c.regime !== null)
    expect(sum(Object.values(dist) as number[])).toBe(withRegime.length)
    expect(withRegime.map((c: Json) => c.coin).sort()).toEqual(['BTC', 'SOL'])
    // the regime names the venues whose closes or OI entered its window (every venue traded BTC and SOL); none without one
    for (const c of snap.coins as Json[]) expect(c.regime_exchanges, c.coin).toEqual(c.regime === null ? [] : [...EXCHANGES])
    // with < 48 history windows only the trend rules and ranging apply: ER ≥ 0.5 and |net| ≥ 1 % over the last 24 hourly returns
    for (const coin of ['BTC', 'SOL']) {
      const rows = await t.services.db.sql.query<Json>(
        `SELECT ts, sum(close * volume) / sum(volume) AS close FROM candle_1h WHERE coin = $1 AND market_type = 'perp' AND ts < $2 GROUP BY ts ORDER BY ts`,
        [coin, floorTo(TEST_NOW, HOUR)],
      )
      expect(rows.length).toBeGreaterThanOrEqual(25)
      const closes = rows.slice(-25).map((r) => Number(r.close))
      const r = closes.slice(1).map((c, i) => Math.log(c / closes[i]!))
      const net = sum(r)
      const er = Math.abs(net) / sum(r.map(Math.abs))
      const expected = er >= 0.5 && Math.abs(net) >= 0.01 ? (net > 0 ? 'trending_up' : 'trending_down') : 'ranging'
      expect(snap.coins.find((c: Json) => c.coin === coin).regime, `${coin}: ER ${er}, net ${net}`).toBe(expected)
    }
  })

  it('divergences: exactly the active entries of /v1/signals/divergence (same numbers), sorted by |z_score| descending', async () => {
    const div = (await callOk<Json[]>(t, acct, '/v1/signals/divergence', 5)).data
    const active = div.flatMap((c) => c.pairs.filter((p: Json) => p.active).map((p: Json) => ({ coin: c.coin, pair: p.pair, timeframe: p.timeframe, direction: p.direction, z_score: p.z_score })))
    expect(active.length).toBeGreaterThan(0) // SOL's injected divergence at least
    for (const d of snap.divergences as Json[]) expect(sortedKeys(d)).toEqual(['coin', 'direction', 'pair', 'timeframe', 'z_score'])
    const key = (d: Json) => `${d.coin}/${d.pair}/${d.timeframe}`
    expect([...snap.divergences].sort((a: Json, b: Json) => key(a).localeCompare(key(b)))).toEqual(active.sort((a, b) => key(a).localeCompare(key(b))))
    for (let i = 1; i < snap.divergences.length; i++) expect(Math.abs(snap.divergences[i - 1].z_score)).toBeGreaterThanOrEqual(Math.abs(snap.divergences[i].z_score))
  })

  it('top_arbitrage: recomputed from the live books and tickers — best positive price and funding edge per coin, net = gross − fees, sorted by net', async () => {
    const arbs = snap.top_arbitrage as Json[]
    const expected: Json[] = []
    for (const coin of DEFAULT_COINS) {
      // dYdX's tradable price is its last trade (it has no mark apart from its oracle): the close of its latest stored
      // minute with trades, current as of that minute's end, within 60 s of now
      const trades = await t.services.db.sql.query<{ ts: number; close: number }>(
        `SELECT ts, close FROM candle_1m WHERE coin = $1 AND exchange = 'dydx' AND market_type = 'perp' AND trades > 0 AND ts + 60000 <= $2 AND ts + 60000 >= $2 - 60000 ORDER BY ts DESC LIMIT 1`,
        [coin, TEST_NOW],
      )
      const venues = EXCHANGES.flatMap((e) => {
        const tk = t.services.market.live.tickers.get(`${e}:${coin}:perp`)
        if (!tk || TEST_NOW - tk.ts > 60_000) return []
        const book = t.services.market.live.books.get(`${e}:${coin}:perp`)
        const fresh = book && TEST_NOW - book.ts <= 60_000
        const price = e === 'dydx' ? (trades[0] ? Number(trades[0].close) : null) : tk.markPrice!
        const source = e === 'dydx' ? 'last_trade' : 'mark'
        const bid = fresh && book.bids.length ? { p: Math.max(...book.bids.map((l) => l.price)), src: 'bid' } : price === null ? null : { p: price, src: source }
        const ask = fresh && book.asks.length ? { p: Math.min(...book.asks.map((l) => l.price)), src: 'ask' } : price === null ? null : { p: price, src: source }
        return [{ e, bid, ask, rate8h: (tk.fundingRate! * 8) / tk.fundingIntervalHours! }]
      })
      let price: Json | null = null
      let funding: Json | null = null
      for (const a of venues)
        for (const b of venues) {
          if (a.e === b.e) continue
          if (a.ask && b.bid) {
            const pg = ((b.bid.p - a.ask.p) / a.ask.p) * 1e4
            const pf = (FEE.get(a.e)! + FEE.get(b.e)!) * 1e4
            if (pg - pf > 0 && (!price || pg - pf > price.net_bps))
              price = { type: 'price', coin, long_exchange: a.e, short_exchange: b.e, gross_bps: pg, fees_bps: pf, net_bps: pg - pf, holding_hours: null, long_price_source: a.ask.src, short_price_source: b.bid.src }
          }
          if (b.rate8h > a.rate8h) {
            const fg = (b.rate8h - a.rate8h) * 1e4 * 3
            const ff = 2 * (FEE.get(a.e)! + FEE.get(b.e)!) * 1e4
            if (fg - ff > 0 && (!funding || fg - ff > funding.net_bps)) funding = { type: 'funding', coin, long_exchange: a.e, short_exchange: b.e, gross_bps: fg, fees_bps: ff, net_bps: fg - ff, holding_hours: 24, long_price_source: null, short_price_source: null }
          }
        }
      if (price) expected.push(price)
      if (funding) expected.push(funding)
    }
    expected.sort((a, b) => b.net_bps - a.net_bps)
    expect(expected.length, 'the seeded market has some positive edge').toBeGreaterThan(0)
    expect(arbs.length).toBe(Math.min(10, expected.length))
    arbs.forEach((a, i) => {
      expect(sortedKeys(a)).toEqual(ARB_KEYS)
      expect(['price', 'funding']).toContain(a.type)
      expect(a.net_bps, 'positive edges only').toBeGreaterThan(0)
      expectClose(a.net_bps, a.gross_bps - a.fees_bps, 1e-12, 'net = gross − fees')
      if (i > 0) expect(arbs[i - 1]!.net_bps).toBeGreaterThanOrEqual(a.net_bps)
      expect(a.holding_hours).toBe(a.type === 'price' ? null : 24)
      const e = expected[i]!
      expect({ type: a.type, coin: a.coin, long: a.long_exchange, short: a.short_exchange }).toEqual({ type: e.type, coin: e.coin, long: e.long_exchange, short: e.short_exchange })
      expect([a.long_price_source, a.short_price_source]).toEqual([e.long_price_source, e.short_price_source])
      expectClose(a.gross_bps, e.gross_bps, 1e-9, `${a.coin} ${a.type} gross`)
      expectClose(a.fees_bps, e.fees_bps, 1e-9, `${a.coin} ${a.type} fees`)
    })
  })

  it('bad parameters: snapshot takes none (400, nothing charged); a balance below 10 gets 402 and is not touched', async () => {
    await callBad(t, acct, '/v1/signals/snapshot?coin=BTC', 'coin')
    await callBad(t, acct, '/v1/signals/snapshot?foo=1', 'foo')
    const poor = await t.signup()
    await t.setCredits(poor.accountId, 9)
    const p = await callFail(t, poor, '/v1/signals/snapshot', 402, 'insufficient_credits')
    expect(p).toMatchObject({ credits_required: 10, credits_remaining: 9 })
    expect(await balance(t, poor.accountId)).toBe(9)
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe('GraphQL gives the same numbers as REST (the stored operation, POST /graphql)', () => {
  it('divergence (one coin and all coins)', async () => {
    const one = (await callOk(t, acct, '/v1/signals/divergence?coin=SOL', 5)).data
    expect(snakeDeep(await graphqlOp(t, acct, 'divergence', 'divergence', { coin: 'SOL' }, 5))).toEqual(one)
    const all = (await callOk(t, acct, '/v1/signals/divergence', 5)).data
    expect(snakeDeep(await graphqlOp(t, acct, 'divergence', 'divergence', {}, 5))).toEqual(all)
  })

  it('snapshot', async () => {
    const rest = (await callOk(t, acct, '/v1/signals/snapshot', 10)).data
    expect(snakeDeep(await graphqlOp(t, acct, 'snapshot', 'snapshot', {}, 10))).toEqual(rest)
  })
})

// Last: it changes the data.
describe('snapshot cache', () => {
  it('computed_at ≤ now; served from the cache while young; after a data refresh the old one is served at once, then the new one; never older than a refresh period plus one tick', async () => {
    // docs/methodology.md#snapshot: recomputed on the 2 s data tick; a cached one is served while ≤ 2 s + 2 s old
    const first = (await callOk(t, acct, '/v1/signals/snapshot', 10)).data
    expect(first.computed_at).toBeLessThanOrEqual(TEST_NOW)
    now = first.computed_at + 2_000
    try {
      const again = await callOk(t, acct, '/v1/signals/snapshot', 10)
      expect(again.data.computed_at, 'no data changed: the cached snapshot').toBe(first.computed_at)
      expect(again.data).toEqual(first)
      expect(again.meta.as_of).toBe(first.as_of)

      // new data: one open-interest sample through the ingest pipeline
      now = first.computed_at + 3_000
      const ingest = new Ingest({ db: t.services.db, market: t.services.market, trackLive: false })
      const oi = t.services.market.live.openInterest.get('binance:BTC:perp')!
      ingest.emit({ type: 'open_interest', exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: TEST_NOW + 2_500, openInterest: oi.openInterest * 1.01 })
      await ingest.flush({ final: true })

      const stale = (await callOk(t, acct, '/v1/signals/snapshot', 10)).data
      // the new one is computed ahead from the moment the data moved: the previous one (3 s old) is served at once
      // while that runs, the new one once it is done (test/read/tick-views.test.ts holds the computation open)
      expect([first.computed_at, first.computed_at + 3_000], 'the previous snapshot while the new one computes, or the new one').toContain(stale.computed_at)
      let fresh = stale
      await vi.waitFor(async () => {
        fresh = (await callOk(t, acct, '/v1/signals/snapshot', 10)).data
        expect(fresh.computed_at, 'recomputed after the refresh').not.toBe(first.computed_at)
      }, { timeout: 5000, interval: 20 })
      expect(fresh.computed_at, 'recomputed after the refresh').toBe(first.computed_at + 3_000)
      expect(fresh.as_of).toBe(first.computed_at + 3_000)
      expect(fresh.coins.map((c: Json) => c.coin).sort()).toEqual(DEFAULT_COINS)

      // no new data, but 5 s later the cached one is too old to serve: the call waits for a new one
      now = fresh.computed_at + 5_000
      const later = (await callOk(t, acct, '/v1/signals/snapshot', 10)).data
      expect(later.computed_at).toBe(now)
    } finally {
      now = TEST_NOW
    }
  })
})
