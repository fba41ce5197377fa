// REST contract of /v1/structure/volume-profile (3 credits) (the cascade's is in cascade.test.ts):
// field by field against docs/contract.md#payloads and the stored operations, values checked independently (raw SQL over
// candle_1m, the ticker endpoint, the documented rules of docs/methodology.md re-implemented here), failures
// that charge nothing, and GraphQL giving the same numbers as REST.
//
// One service, 30 h of simulated history for BTC (so 24 h windows and earlier `end` windows have data); the other
// coins have no data at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_NOW, seedMarket } from '../../helpers/market.js'
import { startTestService, type TestService } from '../../helpers/service.js'
import { CEX, DEFAULT_COINS, EXCHANGES, HOUR, MINUTE, callBad, callOk, expectClose, sortedKeys, type Json } from '../markets/helpers.js'
import { expectMatchesTree, graphqlOp, operationTree, snakeDeep, sum, type Acct } from './helpers.js'

const now = TEST_NOW
let t: TestService
let acct: Acct

const SEED_HOURS = 30
const DAY = 24 * HOUR
/** 1-bp geometric grid of the volume at price (docs/methodology.md#volume-profile: G = 1.0001) */
const LN_G = Math.log1p(1e-4)

beforeAll(async () => {
  t = await startTestService({ clock: () => now })
  await seedMarket(t, { hours: SEED_HOURS, coins: ['BTC'] })
  acct = await t.signup()
  await t.setCredits(acct.accountId, 100_000)
}, 120_000)
afterAll(() => t?.close())

interface Totals {
  volume: number
  buy: number
  sell: number
  low: number
  high: number
  exchanges: string[]
}

/** Σ of the stored 1-minute aggregates whose minute opens in [from, to), straight from candle_1m */
async function candleTotals(coin: string, marketType: string, from: number, to: number, exchange?: string): Promise<Totals> {
  const rows = await t.services.db.sql.query<Json>(
    `SELECT exchange, sum(volume) AS v, sum(buy_volume) AS b, sum(sell_volume) AS s, min(low) AS lo, max(high) AS hi
     FROM candle_1m WHERE coin = $1 AND market_type = $2 AND ts >= $3 AND ts < $4 AND ($5::text IS NULL OR exchange = $5) AND volume > 0
     GROUP BY exchange ORDER BY exchange`,
    [coin, marketType, from, to, exchange ?? null],
  )
  return {
    volume: sum(rows.map((r) => Number(r.v))),
    buy: sum(rows.map((r) => Number(r.b))),
    sell: sum(rows.map((r) => Number(r.s))),
    low: Math.min(...rows.map((r) => Number(r.lo))),
    high: Math.max(...rows.map((r) => Number(r.hi))),
    exchanges: rows.map((r) => r.exchange as string),
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Volume profile

const PROFILE_KEYS = ['as_of', 'bins', 'coin', 'coverage', 'end', 'exchange', 'exchanges', 'levels', 'lookback', 'market_type', 'missing', 'poc', 'start', 'total_volume', 'value_area']
const LEVEL_KEYS = ['buy_volume', 'node', 'price_high', 'price_low', 'sell_volume', 'volume']
/** float32 volume at price against float64 candle volumes */
const VAP_REL = 1e-5

/**
 * Every documented property of a profile, re-derived from its levels (docs/methodology.md#volume-profile):
 * contiguous equal-width ascending bins, n = min(bins, 1-bp levels spanned), Σ = total, buy + sell = volume,
 * POC = the max-volume bin at its mid, value area grown from the POC toward the larger neighbour (both on a tie)
 * until ≥ 70 %, HVN iff volume ≥ mean bin volume.
 */
function checkProfile(d: Json, bins: number, what: string): void {
  const levels = d.levels as Json[]
  expect(levels.length, `${what}: at most bins levels`).toBeLessThanOrEqual(bins)
  expect(levels.length).toBeGreaterThan(0)
  for (const l of levels) {
    expect(sortedKeys(l)).toEqual(LEVEL_KEYS)
    for (const k of ['price_low', 'price_high', 'volume', 'buy_volume', 'sell_volume']) expect(typeof l[k], `${what} level.${k}`).toBe('number')
    expect(['HVN', 'LVN']).toContain(l.node)
    expect(l.buy_volume).toBeGreaterThanOrEqual(0)
    expect(l.sell_volume).toBeGreaterThanOrEqual(0)
    expect(l.buy_volume + l.sell_volume, `${what}: buy + sell = volume`).toBe(l.volume)
    expect(l.price_high).toBeGreaterThan(l.price_low)
  }
  // contiguous, ascending, equal width
  const lo = levels[0]!.price_low as number
  const hi = levels.at(-1)!.price_high as number
  const width = (hi - lo) / levels.length
  levels.forEach((l, i) => {
    if (i > 0) expect(l.price_low, `${what}: level ${i} starts where ${i - 1} ends`).toBe(levels[i - 1]!.price_high)
    expectClose(l.price_high - l.price_low, width, 1e-6, `${what}: level ${i} width`)
  })
  // bin count: never finer than the 1-bp levels the range spans
  const spanned = Math.round(Math.log(hi / lo) / LN_G)
  expect(levels.length, `${what}: n = min(bins ${bins}, ${spanned} levels spanned)`).toBe(Math.min(bins, spanned))

  const vols = levels.map((l) => l.volume as number)
  const total = d.total_volume as number
  expectClose(sum(vols), total, 1e-9, `${what}: Σ level volume = total_volume`)

  // POC
  const max = Math.max(...vols)
  expect(d.poc.volume, `${what}: poc.volume is the largest level volume`).toBe(max)
  const pocIdx = vols.indexOf(max)
  if (vols.filter((v) => v === max).length === 1) {
    const p = levels[pocIdx]!
    expectClose(d.poc.price, (p.price_low + p.price_high) / 2, 1e-12, `${what}: poc.price = mid of the max-volume level`)
  }

  // value area by the documented growth rule
  let a = pocIdx
  let b = pocIdx
  let inside = vols[pocIdx]!
  while (inside < 0.7 * total * (1 - 1e-9) && (a > 0 || b < vols.length - 1)) {
    const below = a > 0 ? vols[a - 1]! : -1
    const above = b < vols.length - 1 ? vols[b + 1]! : -1
    if (above > below) inside += vols[++b]!
    else if (below > above) inside += vols[--a]!
    else {
      inside += vols[++b]!
      inside += vols[--a]!
    }
  }
  expect(sortedKeys(d.value_area)).toEqual(['high', 'low', 'volume_pct'])
  expect(d.value_area.low, `${what}: value_area.low`).toBe(levels[a]!.price_low)
  expect(d.value_area.high, `${what}: value_area.high`).toBe(levels[b]!.price_high)
  expectClose(d.value_area.volume_pct, (100 * inside) / total, 1e-9, `${what}: value_area.volume_pct`)
  expect(d.value_area.volume_pct).toBeGreaterThanOrEqual(70 - 1e-9)
  expect(d.value_area.volume_pct).toBeLessThanOrEqual(100 + 1e-9)
  expect(d.poc.price).toBeGreaterThanOrEqual(d.value_area.low)
  expect(d.poc.price).toBeLessThanOrEqual(d.value_area.high)
  const inVa = sum(levels.filter((l) => l.price_low >= d.value_area.low && l.price_high <= d.value_area.high).map((l) => l.volume))
  expectClose(inVa, (d.value_area.volume_pct / 100) * total, 1e-9, `${what}: value area volume`)

  // HVN iff volume >= mean level volume (total / n, empty levels included)
  const meanVol = total / levels.length
  for (const [i, l] of levels.entries()) {
    if (Math.abs(l.volume - meanVol) <= 1e-9 * meanVol) continue // on the threshold: float rounding decides
    expect(l.node, `${what}: level ${i} volume ${l.volume} vs mean ${meanVol}`).toBe(l.volume >= meanVol ? 'HVN' : 'LVN')
  }
  expect(levels[pocIdx]!.node, `${what}: the POC is an HVN`).toBe('HVN')
}

/** the profile's volumes equal the stored candles of the same window (coin, market type, exchange) */
function checkAgainstCandles(d: Json, c: Totals, what: string): void {
  expectClose(d.total_volume, c.volume, VAP_REL, `${what}: total_volume vs Σ candle_1m.volume`)
  expectClose(sum(d.levels.map((l: Json) => l.buy_volume)), c.buy, VAP_REL, `${what}: Σ buy_volume vs candle_1m`)
  expectClose(sum(d.levels.map((l: Json) => l.sell_volume)), c.sell, VAP_REL, `${what}: Σ sell_volume vs candle_1m`)
  // the range runs from the 1-bp level of the lowest trade to the top of the level of the highest
  const lo = d.levels[0].price_low as number
  const hi = d.levels.at(-1).price_high as number
  expect(lo, `${what}: range starts at or below the lowest trade`).toBeLessThanOrEqual(c.low * (1 + 1e-12))
  expect(c.low, `${what}: ... within one level`).toBeLessThan(lo * (1 + 1e-4) * (1 + 1e-9))
  expect(hi, `${what}: range ends above the highest trade`).toBeGreaterThanOrEqual(c.high * (1 - 1e-12))
  expect(c.high, `${what}: ... within one level`).toBeGreaterThanOrEqual((hi / (1 + 1e-4)) * (1 - 1e-9))
  expect([...d.exchanges].sort(), `${what}: exchanges = those with trades in the window`).toEqual(c.exchanges)
}

describe('GET /v1/structure/volume-profile (3 credits)', () => {
  it('defaults (lookback 24h, bins 50, perp, all exchanges): exact keys of the stored operation, echo fields, envelope', async () => {
    const { data, meta } = await callOk(t, acct, '/v1/structure/volume-profile?coin=btc', 3)
    expect(sortedKeys(data)).toEqual(PROFILE_KEYS)
    expectMatchesTree(data, operationTree('volume-profile'))
    expect(data).toMatchObject({ coin: 'BTC', exchange: 'all', lookback: '24h', bins: 50, market_type: 'perp', end: TEST_NOW, start: TEST_NOW - DAY, as_of: TEST_NOW })
    expect(meta.as_of).toBe(TEST_NOW)
    expect(typeof data.total_volume).toBe('number')
    expect(sortedKeys(data.poc)).toEqual(['price', 'volume'])
    expect(typeof data.poc.price).toBe('number')
    expect(data.levels).toHaveLength(50) // 24 h of BTC spans far more than 50 1-bp levels
    expect([...data.exchanges].sort()).toEqual([...EXCHANGES].sort())
    expect(data.missing).toEqual([])
    // 30 h seeded: every venue spans the 24 h window
    expect(data.coverage).toMatchObject({ exchanges: [...EXCHANGES], missing: [], requested_from: TEST_NOW - DAY, requested_to: TEST_NOW, partial: false, note: null })
    checkProfile(data, 50, '24h default')
  })

  it('Σ level volume = total_volume = Σ candle_1m volume of the window (raw SQL), for windows read from minutes, hours and both', async () => {
    const cases: { q: string; lookback: number; end: number; bins: number }[] = [
      { q: '', lookback: DAY, end: TEST_NOW, bins: 50 }, // minute edges + hourly middle
      { q: '&lookback=1h&bins=200', lookback: HOUR, end: TEST_NOW, bins: 200 }, // minutes only
      { q: '&lookback=4h&bins=7', lookback: 4 * HOUR, end: TEST_NOW, bins: 7 },
      { q: `&lookback=4h&end=${TEST_NOW - 5 * HOUR}`, lookback: 4 * HOUR, end: TEST_NOW - 5 * HOUR, bins: 50 }, // earlier, mid-minute
      { q: `&lookback=4h&bins=30&end=${Date.UTC(2026, 2, 2, 11)}`, lookback: 4 * HOUR, end: Date.UTC(2026, 2, 2, 11), bins: 30 }, // whole hours only
      { q: `&lookback=1h&end=${TEST_NOW - 2 * HOUR + 17 * MINUTE}`, lookback: HOUR, end: TEST_NOW - 2 * HOUR + 17 * MINUTE, bins: 50 },
      { q: '&lookback=7d&bins=120', lookback: 7 * DAY, end: TEST_NOW, bins: 120 }, // longer than the history
      { q: '&lookback=30d', lookback: 30 * DAY, end: TEST_NOW, bins: 50 },
      { q: `&lookback=24h&end=${TEST_NOW + 12 * HOUR}`, lookback: DAY, end: TEST_NOW + 12 * HOUR, bins: 50 }, // end ahead of now (allowed up to a day)
    ]
    for (const c of cases) {
      const what = `volume-profile${c.q}`
      const { data, meta } = await callOk(t, acct, `/v1/structure/volume-profile?coin=BTC${c.q}`, 3)
      expect(data.start, `${what}: start = end - lookback`).toBe(c.end - c.lookback)
      expect(data.end).toBe(c.end)
      expect(data.as_of, `${what}: as_of = min(end, now)`).toBe(Math.min(c.end, TEST_NOW))
      expect(meta.as_of).toBe(data.as_of)
      expect(data.bins).toBe(c.bins)
      checkProfile(data, c.bins, what)
      checkAgainstCandles(data, await candleTotals('BTC', 'perp', c.end - c.lookback, c.end), what)
    }
  })

  it('bins=1: one HVN level over the whole traded range, POC at its mid, value area = the range at 100 %', async () => {
    const { data } = await callOk(t, acct, '/v1/structure/volume-profile?coin=BTC&lookback=4h&bins=1', 3)
    expect(data.levels).toHaveLength(1)
    const l = data.levels[0]
    expect(l.node).toBe('HVN')
    expect(l.volume).toBe(data.total_volume)
    expect(data.poc).toEqual({ price: (l.price_low + l.price_high) / 2, volume: l.volume })
    expect(data.value_area.low).toBe(l.price_low)
    expect(data.value_area.high).toBe(l.price_high)
    expectClose(data.value_area.volume_pct, 100, 1e-12, 'volume_pct')
    checkAgainstCandles(data, await candleTotals('BTC', 'perp', TEST_NOW - 4 * HOUR, TEST_NOW), 'bins=1')
  })

  it('exchange filter: each exchange alone matches its own candles; exchange/exchanges/missing say so; the five add up to the whole', async () => {
    const all = (await callOk(t, acct, '/v1/structure/volume-profile?coin=BTC&lookback=4h', 3)).data
    let total = 0
    for (const e of EXCHANGES) {
      const { data } = await callOk(t, acct, `/v1/structure/volume-profile?coin=BTC&lookback=4h&exchange=${e.toUpperCase()}`, 3)
      expect(data.exchange).toBe(e)
      expect(data.exchanges).toEqual([e])
      expect(data.missing).toEqual([])
      checkProfile(data, 50, `exchange=${e}`)
      checkAgainstCandles(data, await candleTotals('BTC', 'perp', TEST_NOW - 4 * HOUR, TEST_NOW, e), `exchange=${e}`)
      total += data.total_volume
    }
    expectClose(total, all.total_volume, 1e-9, 'Σ per-exchange totals = all-exchange total')
  })

  it('market_type=spot: only the CEXes (the DEXes are in `missing` as having no spot market), spot candles only', async () => {
    const { data } = await callOk(t, acct, '/v1/structure/volume-profile?coin=BTC&market_type=SPOT&lookback=4h', 3)
    expect(data.market_type).toBe('spot')
    expect([...data.exchanges].sort()).toEqual([...CEX].sort())
    expect(data.missing.map((m: Json) => m.exchange)).toEqual(['hyperliquid', 'dydx'])
    for (const m of data.missing) {
      expect(sortedKeys(m)).toEqual(['exchange', 'reason'])
      expect(m.reason).toMatch(/no spot market/i)
    }
    checkProfile(data, 50, 'spot')
    const spot = await candleTotals('BTC', 'spot', TEST_NOW - 4 * HOUR, TEST_NOW)
    checkAgainstCandles(data, spot, 'spot')
    const perp = await candleTotals('BTC', 'perp', TEST_NOW - 4 * HOUR, TEST_NOW)
    expect(Math.abs(spot.volume - perp.volume)).toBeGreaterThan(1) // really a different series

    const one = (await callOk(t, acct, '/v1/structure/volume-profile?coin=BTC&market_type=spot&lookback=4h&exchange=okx', 3)).data
    expect(one).toMatchObject({ exchange: 'okx', exchanges: ['okx'], missing: [] })
    checkAgainstCandles(one, await candleTotals('BTC', 'spot', TEST_NOW - 4 * HOUR, TEST_NOW, 'okx'), 'spot okx')
  })

  it('a window without trades: no levels, poc and value_area null, total 0, every exchange in `missing`', async () => {
    const end = TEST_NOW - 3 * DAY
    const { data } = await callOk(t, acct, `/v1/structure/volume-profile?coin=BTC&lookback=1h&end=${end}`, 3)
    expect(sortedKeys(data)).toEqual(PROFILE_KEYS)
    expect(data).toMatchObject({ levels: [], poc: null, value_area: null, total_volume: 0, exchanges: [], start: end - HOUR, end, as_of: end })
    expect(data.missing.map((m: Json) => m.exchange)).toEqual([...EXCHANGES])
    for (const m of data.missing) expect(m.reason).toMatch(/no trades/)
    expect(data.coverage).toMatchObject({ exchanges: [], from: null, to: null, requested_from: end - HOUR, requested_to: end, partial: true, note: 'no data in the requested window; binance (no_data), bybit (no_data), okx (no_data), hyperliquid (no_data), dydx (no_data) are missing or in only in part' })
    // a coin without any data answers the same way (200, empty), not an error
    const ada = (await callOk(t, acct, '/v1/structure/volume-profile?coin=ADA', 3)).data
    expect(ada).toMatchObject({ coin: 'ADA', levels: [], poc: null, value_area: null, total_volume: 0, exchanges: [] })
  })

  it('`exchanges` lists the contributing venues in the canonical order (binance, bybit, okx, hyperliquid, dydx), as every other list of exchanges does', async () => {
    // docs/methodology.md "Exchange order"; ohlc's composite `exchanges`, the cascade's `exchanges` and every `missing` list use it
    const { data } = await callOk(t, acct, '/v1/structure/volume-profile?coin=BTC&lookback=4h', 3)
    expect(data.exchanges).toEqual([...EXCHANGES])
  })

  it('bad parameters: 400 invalid_parameter naming the parameter (with `allowed` for enumerations), nothing charged', async () => {
    const base = '/v1/structure/volume-profile?coin=BTC'
    for (const bins of ['0', '201', 'abc', '1.5', '-3', '1e2']) await callBad(t, acct, `${base}&bins=${bins}`, 'bins')
    for (const lb of ['2h', 'abc', '1d']) {
      const p = await callBad(t, acct, `${base}&lookback=${lb}`, 'lookback')
      expect(p.allowed).toEqual(['1h', '4h', '24h', '7d', '30d'])
    }
    const noCoin = await callBad(t, acct, '/v1/structure/volume-profile?bins=10', 'coin')
    expect(noCoin.allowed).toEqual(DEFAULT_COINS)
    const badCoin = await callBad(t, acct, '/v1/structure/volume-profile?coin=NOPE', 'coin')
    expect(badCoin.allowed).toEqual(DEFAULT_COINS)
    const badEx = await callBad(t, acct, `${base}&exchange=kraken`, 'exchange')
    expect(badEx.allowed).toEqual([...EXCHANGES])
    await callBad(t, acct, `${base}&market_type=futures`, 'market_type')
    await callBad(t, acct, `${base}&market_type=spot&exchange=dydx`, 'market_type')
    for (const end of ['abc', '0', String(TEST_NOW + 2 * DAY), '1e12']) await callBad(t, acct, `${base}&end=${end}`, 'end')
    await callBad(t, acct, `${base}&interval=1h`, 'interval')
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe('GraphQL gives the same numbers as REST (the stored operation, POST /graphql)', () => {
  it('volume-profile', async () => {
    const end = TEST_NOW - HOUR + 7 * MINUTE
    const rest = (await callOk(t, acct, `/v1/structure/volume-profile?coin=BTC&lookback=4h&bins=20&exchange=bybit&end=${end}`, 3)).data
    const gql = await graphqlOp(t, acct, 'volume-profile', 'volumeProfile', { coin: 'BTC', lookback: 'H4', bins: 20, exchange: 'BYBIT', end }, 3)
    expect(snakeDeep(gql)).toEqual(rest)
    const restDefault = (await callOk(t, acct, '/v1/structure/volume-profile?coin=BTC&market_type=spot', 3)).data
    expect(snakeDeep(await graphqlOp(t, acct, 'volume-profile', 'volumeProfile', { coin: 'BTC', marketType: 'SPOT' }, 3))).toEqual(restDefault)
  })
})
