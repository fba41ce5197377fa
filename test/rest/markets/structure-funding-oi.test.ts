// REST contract of /v1/structure/spread (3 credits), /v1/funding/weighted (3) and /v1/oi/changes (3):
// field by field against docs/contract.md#payloads and docs/methodology.md, values recomputed independently (raw SQL over
// candle_1m / market_sample, the live maps, hand arithmetic), edge cases, and failures that charge nothing.
//
// One service with histories of different lengths, so statistics are numbers for some coins and null for others:
//   BTC 26 h  -> spread z-score over a full 24 h (1 440 points), funding history too short (26 of 72 hours), OI 24h change
//   ETH 75 h  -> funding z-score and percentile over 75 hourly points
//   SOL 3 h   -> spread z-score null (180 of 720 points), OI 4h/24h changes null
//   XRP 3 h, then every dydx row and live value removed -> dydx is "an exchange without data for the coin"
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_NOW, seedMarket } from '../../helpers/market.js'
import { startTestService, type TestService } from '../../helpers/service.js'
import { DEFAULT_COINS, EXCHANGES, HOUR, MINUTE, callBad, callOk, expectClose, expectEpochMs, removeExchangeData, sortedKeys, withLiveTicker, type Json } from './helpers.js'

let now = TEST_NOW
let t: TestService
let acct: { apiKey: string; accountId: string }
const SEEDED = ['BTC', 'ETH', 'SOL', 'XRP']
const CURRENT_MINUTE = Math.floor(TEST_NOW / MINUTE) * MINUTE
const CURRENT_HOUR = Math.floor(TEST_NOW / HOUR) * HOUR

beforeAll(async () => {
  t = await startTestService({ clock: () => now })
  await seedMarket(t, { hours: 26, coins: ['BTC'] })
  await seedMarket(t, { hours: 75, coins: ['ETH'] })
  await seedMarket(t, { hours: 3, coins: ['SOL', 'XRP'] })
  await removeExchangeData(t, 'dydx', 'XRP')
  acct = await t.signup()
}, 180_000)
afterAll(() => t.close())

async function at<T>(when: number, fn: () => Promise<T>): Promise<T> {
  now = when
  try {
    return await fn()
  } finally {
    now = TEST_NOW
  }
}

const live = (exchange: string, coin: string) => ({
  ticker: t.services.market.live.tickers.get(`${exchange}:${coin}:perp`)!,
  oi: t.services.market.live.openInterest.get(`${exchange}:${coin}:perp`)!,
})

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length
const sampleSd = (xs: number[]) => {
  const m = mean(xs)
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1))
}
const spreadBps = (prices: number[]) => {
  const max = Math.max(...prices)
  const min = Math.min(...prices)
  return ((max - min) / ((max + min) / 2)) * 10_000
}

// ---------------------------------------------------------------------------------------------------------------
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z')
const SPREAD_KEYS = ['cheapest', 'coin', 'coverage', 'dearest', 'history_points', 'missing', 'mixed_quotes', 'note', 'outliers', 'prices', 'quote_note', 'quotes', 'spread_bps', 'ts', 'z_score']

/**
 * dYdX publishes no mark apart from its oracle: its tradable price is its last trade, the close of each stored
 * 1-minute candle with trades (the current one: the newest before now, current as of its minute's end)
 */
async function dydxCloses(coin: string, from: number, to: number): Promise<{ minute: number; close: number }[]> {
  const rows = await t.services.db.sql.query<{ ts: string | number; close: number }>(
    `SELECT ts, close FROM candle_1m WHERE exchange = 'dydx' AND coin = $1 AND market_type = 'perp' AND trades > 0 AND ts >= $2 AND ts < $3 ORDER BY ts`,
    [coin, from, to],
  )
  return rows.map((r) => ({ minute: Number(r.ts), close: Number(r.close) }))
}
const QUOTE: Record<string, string> = { binance: 'USDT', bybit: 'USDT', okx: 'USDT', hyperliquid: 'USDC', dydx: 'USDC' }

describe('GET /v1/structure/spread (3 credits)', () => {
  it('one coin: exact keys, each exchange\'s latest mark with its quote, spread_bps from those marks, cheapest and dearest', async () => {
    const { data, meta } = await callOk<Json[]>(t, acct, '/v1/structure/spread?coin=btc', 3)
    expect(meta.as_of).toBe(TEST_NOW)
    expect(data).toHaveLength(1)
    const s = data[0]!
    expect(sortedKeys(s)).toEqual(SPREAD_KEYS)
    expect(s.coin).toBe('BTC')
    expect(s.ts).toBe(TEST_NOW)
    expect(s.missing).toEqual([])
    expect(s.note).toBeNull()
    expect(s.prices.map((p: Json) => p.exchange)).toEqual([...EXCHANGES])
    const lastTrade = (await dydxCloses('BTC', TEST_NOW - 5 * MINUTE, TEST_NOW)).at(-1)!
    for (const p of s.prices) {
      expect(sortedKeys(p)).toEqual(['exchange', 'outlier', 'outlier_reason', 'price', 'price_source', 'quote', 'ts'])
      expectEpochMs(p.ts, 'price ts')
      expect(p).toMatchObject({ outlier: false, outlier_reason: null })
      expect(p.quote).toBe(QUOTE[p.exchange])
      if (p.exchange === 'dydx') {
        // its last trade, not its oracle (the ticker's stored mark)
        expect(p).toMatchObject({ price: lastTrade.close, ts: lastTrade.minute + MINUTE, price_source: 'last_trade' })
        expect(p.price).not.toBe(live('dydx', 'BTC').ticker.markPrice)
        continue
      }
      // the current price is the live mark with the venue's time for it
      const tk = live(p.exchange, 'BTC').ticker
      expect(p).toMatchObject({ price: tk.markPrice, ts: tk.ts, price_source: 'mark' })
    }
    expect(s.outliers).toEqual([])
    // USDT and USDC venues compared: the payload says so
    expect(s.quotes).toEqual(['USDT', 'USDC'])
    expect(s.mixed_quotes).toBe(true)
    expect(s.quote_note).toMatch(/USDT\/USDC/)
    const prices = s.prices.map((p: Json) => p.price as number)
    // spread_bps = (max - min) / ((max + min) / 2) × 10 000
    expectClose(s.spread_bps, spreadBps(prices), 1e-12, 'spread_bps')
    expect(s.prices.find((p: Json) => p.exchange === s.cheapest).price).toBe(Math.min(...prices))
    expect(s.prices.find((p: Json) => p.exchange === s.dearest).price).toBe(Math.max(...prices))
    // 26 h seeded: every venue in, and its marks span the z-score's 24 h window
    expect(s.coverage).toMatchObject({ exchanges: [...EXCHANGES], missing: [], requested_from: TEST_NOW - 24 * HOUR, requested_to: TEST_NOW, partial: false, note: null })
    expect(s.coverage.from).toBeLessThanOrEqual(TEST_NOW - 24 * HOUR + 2 * MINUTE)
    expect(s.coverage.to).toBeGreaterThanOrEqual(TEST_NOW)
  })

  it('z-score against the 24 h of 1-minute mark spreads before the current minute, recomputed from market_sample', async () => {
    const s = (await callOk<Json[]>(t, acct, '/v1/structure/spread?coin=BTC', 3)).data[0]!
    const rows = await t.services.db.sql.query<{ ts: string | number; mark_price: number | null }>(
      `SELECT exchange, ts, mark_price FROM market_sample WHERE coin = 'BTC' AND market_type = 'perp' AND ts >= $1 AND ts < $2 ORDER BY ts`,
      [CURRENT_MINUTE - 24 * HOUR, CURRENT_MINUTE],
    )
    const byMinute = new Map<number, number[]>()
    // dYdX's stored mark is its oracle: its price is its last trade of the minute
    for (const r of rows) {
      if (r.mark_price === null || (r as any).exchange === 'dydx') continue
      const m = Math.floor(Number(r.ts) / MINUTE) * MINUTE
      byMinute.set(m, [...(byMinute.get(m) ?? []), r.mark_price])
    }
    for (const c of await dydxCloses('BTC', CURRENT_MINUTE - 24 * HOUR, CURRENT_MINUTE)) byMinute.get(c.minute)?.push(c.close)
    const history = [...byMinute.values()].filter((marks) => marks.length >= 2).map(spreadBps)
    expect(history.length).toBe(1440) // 26 h seeded: the whole 24 h window, one point per minute
    expect(s.history_points).toBe(history.length)
    expect(typeof s.z_score).toBe('number')
    expectClose(s.z_score, (s.spread_bps - mean(history)) / sampleSd(history), 1e-6, 'z_score')
  })

  it('short history: z_score is null with a note, the spread itself is still a number', async () => {
    const s = (await callOk<Json[]>(t, acct, '/v1/structure/spread?coin=SOL', 3)).data[0]!
    expect(typeof s.spread_bps).toBe('number')
    expect(s.z_score).toBeNull()
    expect(s.history_points).toBe(180) // 3 h of minutes
    expect(s.note).toMatch(/insufficient history: 180 of 720/)
    // and the coverage says the 24 h window holds only 3 h, venue by venue
    const start = CURRENT_MINUTE - 3 * HOUR
    expect(s.coverage.partial).toBe(true)
    expect(s.coverage.from).toBe(start)
    expect(s.coverage.missing).toEqual(EXCHANGES.map((exchange) => ({ exchange, status: 'truncated', reason: `data from ${iso(start)} only` })))
  })

  it('coin omitted: one entry per coin of the universe; coins without data have null numbers, a note and all exchanges missing', async () => {
    const { data } = await callOk<Json[]>(t, acct, '/v1/structure/spread', 3)
    expect(data.map((s) => s.coin)).toEqual(DEFAULT_COINS)
    for (const s of data) {
      expect(sortedKeys(s)).toEqual(SPREAD_KEYS)
      if (SEEDED.includes(s.coin)) continue
      expect(s).toMatchObject({ prices: [], spread_bps: null, cheapest: null, dearest: null, z_score: null, history_points: 0 })
      expect(s.note).toEqual(expect.any(String))
      expect(s.missing.map((m: Json) => m.exchange)).toEqual([...EXCHANGES])
    }
  })

  it('an exchange without data for the coin is in missing with a reason; the spread is over the others', async () => {
    const s = (await callOk<Json[]>(t, acct, '/v1/structure/spread?coin=XRP', 3)).data[0]!
    expect(s.prices.map((p: Json) => p.exchange)).toEqual(['binance', 'bybit', 'okx', 'hyperliquid'])
    expect(s.missing).toEqual([{ exchange: 'dydx', reason: expect.any(String) }])
    expectClose(s.spread_bps, spreadBps(s.prices.map((p: Json) => p.price)), 1e-12, 'spread over 4 venues')
    expect(s.coverage.exchanges).toEqual(['binance', 'bybit', 'okx', 'hyperliquid'])
    expect(s.coverage.missing.at(-1)).toEqual({ exchange: 'dydx', status: 'no_data', reason: 'no XRP perp price' })
  })

  it('stale feeds: 6 min later every price is set aside (null, its ts kept), missing says stale, no spread', async () => {
    const s = (await at(TEST_NOW + 6 * MINUTE, () => callOk<Json[]>(t, acct, '/v1/structure/spread?coin=BTC', 3))).data[0]!
    expect(s.prices.map((p: Json) => p.exchange)).toEqual([...EXCHANGES])
    const lastTrade = (await dydxCloses('BTC', TEST_NOW - 5 * MINUTE, TEST_NOW)).at(-1)!
    for (const p of s.prices) {
      expect(p.price).toBeNull()
      expect(p.ts).toBe(p.exchange === 'dydx' ? lastTrade.minute + MINUTE : TEST_NOW)
    }
    expect(s.spread_bps).toBeNull()
    expect(s.cheapest).toBeNull()
    expect(s.dearest).toBeNull()
    expect(s.note).toEqual(expect.any(String))
    expect(s.missing.map((m: Json) => m.exchange)).toEqual([...EXCHANGES])
    for (const m of s.missing) expect(m.reason).toMatch(/stale|older than/)
    expect(s.coverage.exchanges).toEqual([])
    expect(s.coverage.missing.map((m: Json) => [m.exchange, m.status])).toEqual(EXCHANGES.map((e) => [e, 'stale']))
    expect(s.coverage.partial).toBe(true)
    // 90 s later the prices are still within the 2 min limit (SPREAD_MAX_PRICE_AGE_MS, the feed's `down` age)
    const fresh = (await at(TEST_NOW + 1.5 * MINUTE, () => callOk<Json[]>(t, acct, '/v1/structure/spread?coin=BTC', 3))).data[0]!
    expect(fresh.prices.every((p: Json) => p.price !== null)).toBe(true)
  })

  it('bad parameters charge nothing', async () => {
    const coin = await callBad(t, acct, '/v1/structure/spread?coin=NOPE', 'coin')
    expect(coin.allowed).toEqual(DEFAULT_COINS)
    await callBad(t, acct, '/v1/structure/spread?exchange=binance', 'exchange') // spread takes only coin
  })
})

// ---------------------------------------------------------------------------------------------------------------
const FUNDING_KEYS = ['annualized_rate', 'coin', 'coverage', 'exchanges', 'funding_kind', 'history_points', 'interval_hours', 'missing', 'note', 'percentile', 'ts', 'weighted_rate', 'z_score']
// docs/methodology.md names the per-venue 8 h rate `rate_8h` ("each with its own `rate` and `interval_hours`, its `rate_8h`, ...")
const VENUE_KEYS = ['annualized_rate', 'exchange', 'funding_kind', 'interval_hours', 'note', 'oi_usd', 'rate', 'rate_8h', 'ts', 'weight']
/** the per-venue 8 h rate under either spelling, so the value checks run even while the name is wrong */
const rate8hOf = (v: Json): number => ('rate_8h' in v ? v.rate_8h : v.rate8h)

describe('GET /v1/funding/weighted (3 credits)', () => {
  it('one coin: exact keys (venue entries included)', async () => {
    const f = (await callOk<Json[]>(t, acct, '/v1/funding/weighted?coin=ETH', 3)).data[0]!
    expect(sortedKeys(f)).toEqual(FUNDING_KEYS)
    expect(f.exchanges.map((v: Json) => v.exchange)).toEqual([...EXCHANGES])
    for (const v of f.exchanges) expect(sortedKeys(v)).toEqual(VENUE_KEYS)
  })

  it('weights sum to 1; weighted_rate = Σ rate_8h × oi_usd / Σ oi_usd; rate_8h = rate × 8 / interval_hours; annualized = × 3 × 365', async () => {
    const { data, meta } = await callOk<Json[]>(t, acct, '/v1/funding/weighted?coin=ETH', 3)
    expect(meta.as_of).toBe(TEST_NOW)
    const f = data[0]!
    // every rate here is a venue's current predicted rate, and the weighted rate says so
    expect(f).toMatchObject({ coin: 'ETH', ts: TEST_NOW, interval_hours: 8, funding_kind: 'predicted', note: null, missing: [] })
    let weights = 0
    let num = 0
    let den = 0
    for (const v of f.exchanges) {
      const { ticker, oi } = live(v.exchange, 'ETH')
      // each venue's own rate with its own interval, as the feed reported them
      expect(v.rate).toBe(ticker.fundingRate)
      expect(v.funding_kind).toBe('predicted')
      expect(v.interval_hours).toBe(ticker.fundingIntervalHours)
      expect(v.interval_hours).toBe(['hyperliquid', 'dydx'].includes(v.exchange) ? 1 : 8)
      expect(v.ts).toBe(ticker.ts)
      expect(v.note).toBeNull()
      expectClose(rate8hOf(v), (v.rate * 8) / v.interval_hours, 1e-12, `${v.exchange} rate_8h`)
      expectClose(v.annualized_rate, rate8hOf(v) * 3 * 365, 1e-12, `${v.exchange} annualized`)
      // OI in USD = open interest (coins) × mark price
      expectClose(v.oi_usd, oi.openInterest * ticker.markPrice!, 1e-12, `${v.exchange} oi_usd`)
      weights += v.weight
      num += rate8hOf(v) * v.oi_usd
      den += v.oi_usd
    }
    expectClose(weights, 1, 1e-12, 'Σ weights')
    for (const v of f.exchanges) expectClose(v.weight, v.oi_usd / den, 1e-12, `${v.exchange} weight`)
    expectClose(f.weighted_rate, num / den, 1e-12, 'weighted_rate')
    expectClose(f.annualized_rate, f.weighted_rate * 3 * 365, 1e-12, 'annualized_rate')
    // every venue is weighted, but the z-score's 7-day window holds only the 75 h seeded: partial, venue by venue
    const first = CURRENT_MINUTE - 75 * HOUR
    expect(f.coverage).toMatchObject({ exchanges: [...EXCHANGES], from: first, requested_from: CURRENT_HOUR - 7 * 24 * HOUR, requested_to: TEST_NOW, partial: true })
    expect(f.coverage.missing).toEqual(EXCHANGES.map((exchange) => ({ exchange, status: 'truncated', reason: `data from ${iso(first)} only` })))
  })

  it('z-score and percentile against hourly weighted rates of the last 7 days, recomputed from market_sample', async () => {
    const f = (await callOk<Json[]>(t, acct, '/v1/funding/weighted?coin=ETH', 3)).data[0]!
    // each venue's last sample in each UTC hour before the current one
    const rows = await t.services.db.sql.query<Json>(
      `SELECT DISTINCT ON (exchange, ts / ${HOUR}) exchange, ts / ${HOUR} AS hour, funding_rate, funding_interval_hours, open_interest, mark_price
       FROM market_sample WHERE coin = 'ETH' AND market_type = 'perp' AND ts >= $1 AND ts < $2
       ORDER BY exchange, ts / ${HOUR}, ts DESC`,
      [CURRENT_HOUR - 7 * 24 * HOUR, CURRENT_HOUR],
    )
    const hours = new Map<number, { num: number; den: number }>()
    for (const r of rows) {
      if (r.funding_rate == null || !(r.funding_interval_hours > 0) || r.open_interest == null || !(r.mark_price > 0)) continue
      const h = hours.get(Number(r.hour)) ?? { num: 0, den: 0 }
      const oiUsd = r.open_interest * r.mark_price
      h.num += ((r.funding_rate * 8) / r.funding_interval_hours) * oiUsd
      h.den += oiUsd
      hours.set(Number(r.hour), h)
    }
    const history = [...hours.values()].filter((h) => h.den > 0).map((h) => h.num / h.den)
    expect(history.length).toBe(75) // 75 h seeded, all inside the 7-day window
    expect(f.history_points).toBe(history.length)
    expectClose(f.z_score, (f.weighted_rate - mean(history)) / sampleSd(history), 1e-6, 'z_score')
    const below = history.filter((x) => x < f.weighted_rate).length
    const equal = history.filter((x) => x === f.weighted_rate).length
    expectClose(f.percentile, (100 * (below + equal / 2)) / history.length, 1e-9, 'percentile')
    expect(f.percentile).toBeGreaterThanOrEqual(0)
    expect(f.percentile).toBeLessThanOrEqual(100)
  })

  it('short history: z_score and percentile are null with a note; the weighted rate is still a number', async () => {
    const f = (await callOk<Json[]>(t, acct, '/v1/funding/weighted?coin=BTC', 3)).data[0]!
    expect(typeof f.weighted_rate).toBe('number')
    expect(f.z_score).toBeNull()
    expect(f.percentile).toBeNull()
    expect(f.history_points).toBe(26)
    expect(f.note).toMatch(/insufficient history: 26 of 72/)
  })

  it('coin omitted: one entry per coin; coins without data have a null rate, a note and all exchanges missing', async () => {
    const { data } = await callOk<Json[]>(t, acct, '/v1/funding/weighted', 3)
    expect(data.map((f) => f.coin)).toEqual(DEFAULT_COINS)
    for (const f of data) {
      expect(sortedKeys(f)).toEqual(FUNDING_KEYS)
      if (SEEDED.includes(f.coin)) {
        expect(typeof f.weighted_rate).toBe('number')
        continue
      }
      expect(f).toMatchObject({ weighted_rate: null, funding_kind: null, annualized_rate: null, z_score: null, percentile: null, exchanges: [] })
      expect(f.note).toEqual(expect.any(String))
      expect(f.missing.map((m: Json) => m.exchange)).toEqual([...EXCHANGES])
    }
  })

  it('an exchange without data for the coin is in missing with a reason; the weights of the others still sum to 1', async () => {
    const f = (await callOk<Json[]>(t, acct, '/v1/funding/weighted?coin=XRP', 3)).data[0]!
    expect(f.exchanges.map((v: Json) => v.exchange)).toEqual(['binance', 'bybit', 'okx', 'hyperliquid'])
    expect(f.missing).toEqual([{ exchange: 'dydx', reason: expect.any(String) }])
    expectClose(f.exchanges.reduce((s: number, v: Json) => s + v.weight, 0), 1, 1e-12, 'Σ weights')
    const den = f.exchanges.reduce((s: number, v: Json) => s + v.oi_usd, 0)
    expectClose(f.weighted_rate, f.exchanges.reduce((s: number, v: Json) => s + rate8hOf(v) * v.oi_usd, 0) / den, 1e-12, 'weighted over 4')
  })

  it('venues without both a rate (with its interval) and OI in USD get weight null and a note; the others are re-weighted to 1', async () => {
    const f = (
      await withLiveTicker(t, 'bybit:XRP:perp', { markPrice: null }, () =>
        withLiveTicker(t, 'okx:XRP:perp', { fundingIntervalHours: null }, () => callOk<Json[]>(t, acct, '/v1/funding/weighted?coin=XRP', 3)),
      )
    ).data[0]!
    const by = Object.fromEntries(f.exchanges.map((v: Json) => [v.exchange, v]))
    expect(by.bybit).toMatchObject({ oi_usd: null, weight: null })
    expect(by.bybit.note).toEqual(expect.any(String))
    expect(by.okx).toMatchObject({ rate: null, interval_hours: null, annualized_rate: null, weight: null })
    expect(rate8hOf(by.okx)).toBeNull()
    expect(by.okx.note).toMatch(/interval/)
    const used = f.exchanges.filter((v: Json) => v.weight !== null)
    expect(used.map((v: Json) => v.exchange)).toEqual(['binance', 'hyperliquid'])
    // the coverage names the venues in the weighted rate and why the others are not
    expect(f.coverage.exchanges).toEqual(['binance', 'hyperliquid'])
    const gap = Object.fromEntries(f.coverage.missing.map((m: Json) => [m.exchange, m]))
    expect(gap.bybit).toEqual({ exchange: 'bybit', status: 'no_data', reason: by.bybit.note })
    expect(gap.okx).toEqual({ exchange: 'okx', status: 'no_data', reason: by.okx.note })
    expect(gap.dydx).toEqual({ exchange: 'dydx', status: 'no_data', reason: 'no XRP perp funding sample' })
    expectClose(used.reduce((s: number, v: Json) => s + v.weight, 0), 1, 1e-12, 'Σ weights of the venues used')
    const den = used.reduce((s: number, v: Json) => s + v.oi_usd, 0)
    expectClose(f.weighted_rate, used.reduce((s: number, v: Json) => s + rate8hOf(v) * v.oi_usd, 0) / den, 1e-12, 'weighted over 2')
  })

  it('stale feeds: 6 min later there is no current rate, and each venue is reported as stale, not as having no data', async () => {
    const f = (await at(TEST_NOW + 6 * MINUTE, () => callOk<Json[]>(t, acct, '/v1/funding/weighted?coin=ETH', 3))).data[0]!
    expect(f.weighted_rate).toBeNull()
    expect(f.annualized_rate).toBeNull()
    expect(f.note).toEqual(expect.any(String))
    // every venue has samples, only older than the 5 min limit: the reason must say so
    // (the ExchangeNote type documents "stale feed" as a reason; /v1/structure/spread gives it)
    const reasons = [...f.exchanges.map((v: Json) => [v.exchange, v.note]), ...f.missing.map((m: Json) => [m.exchange, m.reason])]
    expect(reasons.map(([e]) => e).sort()).toEqual([...EXCHANGES].sort())
    for (const [e, reason] of reasons) expect(reason, e).toMatch(/stale|older than|5 min/)
    expect(f.coverage.exchanges).toEqual([])
    expect(f.coverage.missing.map((m: Json) => [m.exchange, m.status])).toEqual(EXCHANGES.map((e) => [e, 'stale']))
    expect(f.coverage.partial).toBe(true)
  })

  it('bad parameters charge nothing', async () => {
    await callBad(t, acct, '/v1/funding/weighted?coin=NOPE', 'coin')
    await callBad(t, acct, '/v1/funding/weighted?coin=BTC&window=7d', 'window')
  })
})

// ---------------------------------------------------------------------------------------------------------------
const CHANGE_KEYS = ['note', 'pct', 'reference_ts']
// the horizon keys as the stored operation names them today (change1h/change4h/change24h -> change_1h, ...)
const HORIZONS = [['change_1h', HOUR], ['change_4h', 4 * HOUR], ['change_24h', 24 * HOUR]] as const

/** the reference row by hand: the venue's latest stored sample at or before now - h, no older than 5 min */
async function referenceRow(exchange: string, coin: string, at: number): Promise<{ ts: number; oi: number } | null> {
  const rows = await t.services.db.sql.query<Json>(
    `SELECT ts, open_interest FROM market_sample WHERE exchange = $1 AND coin = $2 AND market_type = 'perp'
       AND open_interest IS NOT NULL AND ts <= $3 AND ts >= $4 ORDER BY ts DESC LIMIT 1`,
    [exchange, coin, at, at - 5 * MINUTE],
  )
  return rows[0] ? { ts: Number(rows[0].ts), oi: rows[0].open_interest } : null
}

describe('GET /v1/oi/changes (3 credits)', () => {
  it('one coin: exact keys; OI per exchange from the feed, aggregate = sums; changes recomputed from market_sample reference rows', async () => {
    const { data, meta } = await callOk<Json[]>(t, acct, '/v1/oi/changes?coin=BTC', 3)
    expect(meta.as_of).toBe(TEST_NOW)
    const o = data[0]!
    expect(sortedKeys(o)).toEqual(['aggregate', 'coin', 'coverage', 'exchanges', 'missing', 'ts'])
    // 26 h seeded: every venue with a current OI, and samples back to the 24 h reference
    expect(o.coverage).toMatchObject({ exchanges: [...EXCHANGES], missing: [], requested_from: TEST_NOW - 24 * HOUR, requested_to: TEST_NOW, partial: false, note: null })
    expect(o).toMatchObject({ coin: 'BTC', ts: TEST_NOW, missing: [] })
    expect(sortedKeys(o.aggregate)).toEqual(['changes', 'exchanges', 'note', 'oi', 'oi_usd'])
    expect(sortedKeys(o.aggregate.changes)).toEqual(['change_1h', 'change_24h', 'change_4h'])
    expect(o.exchanges.map((e: Json) => e.exchange)).toEqual([...EXCHANGES])

    let oi = 0
    let oiUsd = 0
    const refSums: Record<string, { cur: number; ref: number }> = Object.fromEntries(HORIZONS.map(([h]) => [h, { cur: 0, ref: 0 }]))
    for (const e of o.exchanges) {
      expect(sortedKeys(e)).toEqual(['changes', 'exchange', 'note', 'oi', 'oi_usd', 'ts'])
      expectEpochMs(e.ts, 'ts')
      expect(e.note).toBeNull()
      const f = live(e.exchange, 'BTC')
      expect(e.oi).toBe(f.oi.openInterest) // coins, one side
      expectClose(e.oi_usd, e.oi * f.ticker.markPrice!, 1e-12, `${e.exchange} oi_usd`)
      oi += e.oi
      oiUsd += e.oi_usd
      for (const [h, ms] of HORIZONS) {
        const c = e.changes[h]
        expect(sortedKeys(c)).toEqual(CHANGE_KEYS)
        const ref = (await referenceRow(e.exchange, 'BTC', TEST_NOW - ms))!
        expect(ref, `${e.exchange} ${h} reference row`).not.toBeNull()
        expect(c.reference_ts).toBe(ref.ts)
        expectClose(c.pct, ((e.oi - ref.oi) / ref.oi) * 100, 1e-9, `${e.exchange} ${h} pct`)
        expect(c.note).toBeNull()
        refSums[h]!.cur += e.oi
        refSums[h]!.ref += ref.oi
      }
    }
    expectClose(o.aggregate.oi, oi, 1e-12, 'aggregate oi = Σ oi')
    expectClose(o.aggregate.oi_usd, oiUsd, 1e-12, 'aggregate oi_usd = Σ oi_usd')
    expect(o.aggregate.exchanges).toEqual([...EXCHANGES])
    expect(o.aggregate.note).toBeNull()
    for (const [h] of HORIZONS) {
      const c = o.aggregate.changes[h]
      expect(sortedKeys(c)).toEqual(CHANGE_KEYS)
      expect(c.reference_ts).toBeNull()
      expectClose(c.pct, ((refSums[h]!.cur - refSums[h]!.ref) / refSums[h]!.ref) * 100, 1e-9, `aggregate ${h} pct`)
    }
  })

  it('short history: the 4h and 24h changes are null with a note, the 1h change is a number', async () => {
    const o = (await callOk<Json[]>(t, acct, '/v1/oi/changes?coin=SOL', 3)).data[0]!
    for (const e of [...o.exchanges, o.aggregate]) {
      expect(typeof e.changes.change_1h.pct).toBe('number')
      for (const h of ['change_4h', 'change_24h']) {
        expect(e.changes[h].pct).toBeNull()
        expect(e.changes[h].reference_ts).toBeNull()
        expect(e.changes[h].note).toEqual(expect.any(String))
      }
    }
    // 3 h of samples for a 24 h reference: partial, each venue from the first seeded minute
    expect(o.coverage.partial).toBe(true)
    expect(o.coverage.missing.map((m: Json) => [m.exchange, m.status, m.reason])).toEqual(EXCHANGES.map((e) => [e, 'truncated', `data from ${iso(CURRENT_MINUTE - 3 * HOUR)} only`]))
  })

  it('coin omitted: one entry per coin; coins without data have null OI, a note and all exchanges missing', async () => {
    const { data } = await callOk<Json[]>(t, acct, '/v1/oi/changes', 3)
    expect(data.map((o) => o.coin)).toEqual(DEFAULT_COINS)
    for (const o of data) {
      if (SEEDED.includes(o.coin)) {
        expect(typeof o.aggregate.oi).toBe('number')
        continue
      }
      expect(o.exchanges).toEqual([])
      expect(o.aggregate).toMatchObject({ oi: null, oi_usd: null, exchanges: [] })
      expect(o.aggregate.note).toEqual(expect.any(String))
      expect(o.missing.map((m: Json) => m.exchange)).toEqual([...EXCHANGES])
    }
  })

  it('an exchange without data for the coin is in missing with a reason and out of the aggregate', async () => {
    const o = (await callOk<Json[]>(t, acct, '/v1/oi/changes?coin=XRP', 3)).data[0]!
    expect(o.exchanges.map((e: Json) => e.exchange)).toEqual(['binance', 'bybit', 'okx', 'hyperliquid'])
    expect(o.missing).toEqual([{ exchange: 'dydx', reason: expect.any(String) }])
    expect(o.aggregate.exchanges).toEqual(['binance', 'bybit', 'okx', 'hyperliquid'])
    expectClose(o.aggregate.oi, o.exchanges.reduce((s: number, e: Json) => s + e.oi, 0), 1e-12, 'Σ oi over 4')
  })

  it('a venue without a mark price: its oi_usd is null and the aggregate oi_usd is null (no partial sum), oi still summed', async () => {
    const o = (await withLiveTicker(t, 'bybit:XRP:perp', { markPrice: null }, () => callOk<Json[]>(t, acct, '/v1/oi/changes?coin=XRP', 3))).data[0]!
    const bybit = o.exchanges.find((e: Json) => e.exchange === 'bybit')
    expect(typeof bybit.oi).toBe('number')
    expect(bybit.oi_usd).toBeNull()
    expect(o.aggregate.oi_usd).toBeNull()
    expectClose(o.aggregate.oi, o.exchanges.reduce((s: number, e: Json) => s + e.oi, 0), 1e-12, 'Σ oi')
  })

  it('stale feeds: 6 min later there is no current OI, and each venue is reported as stale, not as having no data', async () => {
    const o = (await at(TEST_NOW + 6 * MINUTE, () => callOk<Json[]>(t, acct, '/v1/oi/changes?coin=BTC', 3))).data[0]!
    expect(o.aggregate.oi).toBeNull()
    expect(o.aggregate.oi_usd).toBeNull()
    expect(o.aggregate.note).toEqual(expect.any(String))
    const reasons = [...o.exchanges.map((e: Json) => [e.exchange, e.note]), ...o.missing.map((m: Json) => [m.exchange, m.reason])]
    expect(reasons.map(([e]) => e).sort()).toEqual([...EXCHANGES].sort())
    for (const [e, reason] of reasons) expect(reason, e).toMatch(/stale|older than|5 min/)
    expect(o.coverage.exchanges).toEqual([])
    expect(o.coverage.missing.map((m: Json) => [m.exchange, m.status])).toEqual(EXCHANGES.map((e) => [e, 'stale']))
    expect(o.coverage.partial).toBe(true)
  })

  it('bad parameters charge nothing', async () => {
    await callBad(t, acct, '/v1/oi/changes?coin=NOPE', 'coin')
    await callBad(t, acct, '/v1/oi/changes?horizon=1h', 'horizon')
  })
})
