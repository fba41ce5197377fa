// REST contract of /v1/structure/volume-profile (3 credits) and /v1/signals/liquidation-cascade (5 credits):
// field by field against decisions.md and the stored operations, values checked independently (raw SQL over
// candle_1m, the ticker endpoint, the documented rules of docs/methodology.md re-implemented here), failures
// that charge nothing, and GraphQL giving the same numbers as REST.
//
// One service, 30 h of simulated history for BTC (so 24 h windows, earlier `end` windows and a week-long OI
// build-up all have data); the other coins have no data at all. The clock is a variable so the stale test can move it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_NOW, seedMarket } from '../../helpers/market.js'
import { startTestService, type TestService } from '../../helpers/service.js'
import { CEX, DEFAULT_COINS, EXCHANGES, HOUR, MINUTE, callBad, callOk, expectClose, sortedKeys, withLiveTicker, type Json } from '../markets/helpers.js'
import { callFail, expectMatchesTree, graphqlOp, mean, operationTree, snakeDeep, sum, type Acct } from './helpers.js'

let now = TEST_NOW
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

async function at<T>(when: number, fn: () => Promise<T>): Promise<T> {
  now = when
  try {
    return await fn()
  } finally {
    now = TEST_NOW
  }
}

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

const PROFILE_KEYS = ['as_of', 'bins', 'coin', 'end', 'exchange', 'exchanges', 'levels', 'lookback', 'market_type', 'missing', 'poc', 'start', 'total_volume', 'value_area']
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
// Liquidation cascade

const CASCADE_KEYS = [
  'as_of', 'by_exchange', 'coin', 'direction', 'ended_by', 'estimated_liquidations_usd', 'exchanges', 'final_price', 'liquidation_levels', 'missing', 'phases', 'stalled_at', 'start_price', 'total_liquidated_usd', 'trigger_price',
]
const PHASE_KEYS = ['by_exchange', 'from_price', 'liquidated_usd', 'phase', 'stalled', 'to_price']

/** current price as the ticker endpoint shows it: mean of the fresh marks of the selected exchanges */
async function currentPrice(exchange?: string): Promise<number> {
  const { data } = await callOk<Json[]>(t, acct, `/v1/markets/ticker?coin=BTC${exchange ? `&exchange=${exchange}` : ''}`, 1)
  const fresh = data.filter((r) => TEST_NOW - r.ts <= 60_000 && r.mark_price > 0)
  expect(fresh.length).toBeGreaterThan(0)
  return mean(fresh.map((r) => r.mark_price as number))
}

/** contiguous HVN runs of the 24 h, 50-bin volume profile of the same exchanges: the zones a cascade can stall in */
async function hvnZones(exchange?: string): Promise<{ low: number; high: number }[]> {
  const { data } = await callOk(t, acct, `/v1/structure/volume-profile?coin=BTC&lookback=24h&bins=50${exchange ? `&exchange=${exchange}` : ''}`, 3)
  const zones: { low: number; high: number }[] = []
  let open: { low: number; high: number } | null = null
  for (const l of data.levels as Json[]) {
    if (l.node !== 'HVN') open = null
    else if (open) open.high = l.price_high
    else zones.push((open = { low: l.price_low, high: l.price_high }))
  }
  return zones
}

/** invariants of one cascade (decisions.md + docs/methodology.md#liquidation-cascade) */
function checkCascade(d: Json, q: { start: number; trigger: number; zones: { low: number; high: number }[]; exchange?: string }, what: string): void {
  expect(sortedKeys(d)).toEqual(CASCADE_KEYS)
  expect(d.coin).toBe('BTC')
  expect(d.as_of).toBe(TEST_NOW)
  expectClose(d.start_price, q.start, 1e-12, `${what}: start_price = mean of the fresh marks`)
  expect(d.trigger_price).toBe(q.trigger)
  expect(d.direction, `${what}: direction = sign(trigger - start)`).toBe(q.trigger > d.start_price ? 'up' : 'down')
  expect(d.exchanges).toEqual(q.exchange ? [q.exchange] : [...EXCHANGES])
  expect(d.missing).toEqual([])
  expect(Number.isInteger(d.liquidation_levels)).toBe(true)
  expect(d.liquidation_levels).toBeGreaterThan(0)
  expect(d.estimated_liquidations_usd).toBeGreaterThan(0)

  const phases = d.phases as Json[]
  expect(phases.length, `${what}: 1..5 phases`).toBeGreaterThanOrEqual(1)
  expect(phases.length).toBeLessThanOrEqual(5)
  const s = d.direction === 'up' ? 1 : -1
  phases.forEach((p, i) => {
    expect(sortedKeys(p)).toEqual(PHASE_KEYS)
    expect(p.phase, `${what}: phases numbered 1..n`).toBe(i + 1)
    expect(p.from_price, `${what}: phase ${i + 1} starts where the previous ended`).toBe(i === 0 ? d.start_price : phases[i - 1]!.to_price)
    expect(s * (p.to_price - p.from_price), `${what}: phase ${i + 1} moves in the direction`).toBeGreaterThanOrEqual(0)
    expect(p.to_price).toBeGreaterThan(0)
    expect(p.liquidated_usd).toBeGreaterThanOrEqual(0)
    expect(typeof p.stalled).toBe('boolean')
    if (i < phases.length - 1) expect(p.stalled, `${what}: only the last phase can be stalled`).toBe(false)
    // the phase per venue: the selected venues in exchange order, adding up to the phase
    expect(p.by_exchange.map((v: Json) => v.exchange)).toEqual(q.exchange ? [q.exchange] : [...EXCHANGES])
    expectClose(sum(p.by_exchange.map((v: Json) => v.liquidated_usd)), p.liquidated_usd, 1e-9, `${what}: phase ${i + 1} Σ by_exchange`)
  })
  expect(d.by_exchange.map((v: Json) => v.exchange)).toEqual(q.exchange ? [q.exchange] : [...EXCHANGES])
  expectClose(sum(d.by_exchange.map((v: Json) => v.liquidated_usd)), d.total_liquidated_usd, 1e-9, `${what}: Σ by_exchange = total`)
  expect(d.liquidation_levels).toBe(sum(d.by_exchange.map((v: Json) => v.liquidation_levels)))
  // phase 1 is the move from the current price to the trigger (and what its liquidations set off)
  expect(s * (phases[0]!.to_price - q.trigger), `${what}: phase 1 reaches the trigger`).toBeGreaterThanOrEqual(0)
  expect(d.final_price, `${what}: final_price = last to_price`).toBe(phases.at(-1)!.to_price)
  expectClose(sum(phases.map((p) => p.liquidated_usd)), d.total_liquidated_usd, 1e-9, `${what}: Σ liquidated_usd = total`)
  expect(d.total_liquidated_usd, `${what}: one side only, never more than every estimated liquidation`).toBeLessThanOrEqual(d.estimated_liquidations_usd)

  const last = phases.at(-1)!
  // a stalled phase names its zone; any other end says why (docs/methodology.md#liquidation-cascade, Output)
  expect(['no_liquidations', 'stalled', 'book_absorbed', 'no_further_liquidations', 'phase_limit']).toContain(d.ended_by)
  expect(last.stalled, `${what}: the last phase is stalled exactly when ended_by is stalled`).toBe(d.ended_by === 'stalled')
  expect(d.stalled_at !== null, `${what}: stalled_at exactly when ended_by is stalled`).toBe(d.ended_by === 'stalled')
  expect(d.ended_by === 'no_liquidations', `${what}: no_liquidations exactly when phase 1 liquidated nothing`).toBe(phases[0]!.liquidated_usd === 0)
  if (d.ended_by === 'phase_limit') expect(phases).toHaveLength(5)
  if (d.stalled_at !== null) {
    expect(last.stalled, `${what}: stalled_at only with a stalled phase`).toBe(true)
    expect(sortedKeys(d.stalled_at)).toEqual(['high', 'low'])
    expect(d.final_price, `${what}: the cascade ended inside the zone`).toBeGreaterThanOrEqual(d.stalled_at.low * (1 - 1e-12))
    expect(d.final_price).toBeLessThanOrEqual(d.stalled_at.high * (1 + 1e-12))
    const zone = q.zones.find((z) => Math.abs(z.low - d.stalled_at.low) <= 1e-9 * z.low && Math.abs(z.high - d.stalled_at.high) <= 1e-9 * z.high)
    expect(zone, `${what}: stalled_at ${JSON.stringify(d.stalled_at)} is an HVN zone of the 24 h profile`).toBeTruthy()
  }
}

describe('GET /v1/signals/liquidation-cascade (5 credits)', () => {
  const FACTORS = [0.5, 0.9, 0.95, 0.97, 0.98, 0.99, 0.995, 1.005, 1.01, 1.02, 1.03, 1.05, 1.1, 2]
  const runs: { exchange: string; d: Json }[] = []

  it('exact keys; direction, phases 1..5 numbered and chained, monotone, Σ = total, final = last to_price, stalled_at rules (all exchanges and one)', async () => {
    for (const exchange of ['', 'hyperliquid']) {
      const start = await currentPrice(exchange || undefined)
      const zones = await hvnZones(exchange || undefined)
      for (const f of FACTORS) {
        const trigger = Math.round(start * f * 100) / 100
        const q = `/v1/signals/liquidation-cascade?coin=BTC&trigger_price=${trigger}${exchange ? `&exchange=${exchange}` : ''}`
        const { data, meta } = await callOk(t, acct, q, 5)
        expect(meta.as_of).toBe(TEST_NOW)
        if (f === FACTORS[0]) expectMatchesTree(data, operationTree('liquidation-cascade'))
        checkCascade(data, { start, trigger, zones, exchange: exchange || undefined }, q)
        runs.push({ exchange, d: data })
      }
    }
    // the sample covers what the rules talk about
    expect(runs.some((r) => r.d.phases.length > 1)).toBe(true)
    expect(runs.some((r) => r.d.ended_by !== 'phase_limit')).toBe(true)
    expect(runs.some((r) => r.d.stalled_at !== null), 'an HVN stall among them').toBe(true)
    expect(runs.some((r) => r.d.direction === 'up') && runs.some((r) => r.d.direction === 'down')).toBe(true)
  })

  it('a stalled cascade has liquidated every position between the start and where it stopped: totals grow with the distance travelled', () => {
    for (const exchange of ['', 'hyperliquid'])
      for (const dir of ['down', 'up']) {
        const stalled = runs
          .filter((r) => r.exchange === exchange && r.d.direction === dir && r.d.ended_by !== 'phase_limit')
          .sort((a, b) => Math.abs(a.d.final_price - a.d.start_price) - Math.abs(b.d.final_price - b.d.start_price))
        for (let i = 1; i < stalled.length; i++)
          expect(stalled[i]!.d.total_liquidated_usd, `${exchange || 'all'} ${dir}: final ${stalled[i]!.d.final_price} vs ${stalled[i - 1]!.d.final_price}`).toBeGreaterThanOrEqual(
            stalled[i - 1]!.d.total_liquidated_usd * (1 - 1e-9),
          )
      }
  })

  it('trigger at the current price (mean mark from /v1/markets/ticker): no phases, nothing liquidated, final = start, stalled_at null', async () => {
    for (const exchange of [undefined, 'okx']) {
      const start = await currentPrice(exchange)
      const { data } = await callOk(t, acct, `/v1/signals/liquidation-cascade?coin=BTC&trigger_price=${start}${exchange ? `&exchange=${exchange}` : ''}`, 5)
      expect(data.start_price, 'start = mean of the fresh marks of the selected exchanges').toBe(start)
      expect(data).toMatchObject({ trigger_price: start, phases: [], final_price: start, total_liquidated_usd: 0, stalled_at: null, ended_by: 'no_move' })
      expect(['down', 'up']).toContain(data.direction)
      expect(data.exchanges).toEqual(exchange ? [exchange] : [...EXCHANGES])
    }
  })

  it('exchange filter: only that exchange\'s mark, book and history (exchanges = [it]); a different map than all exchanges together', async () => {
    const start = await currentPrice('okx')
    const trigger = Math.round(start * 0.97)
    const one = (await callOk(t, acct, `/v1/signals/liquidation-cascade?coin=btc&trigger_price=${trigger}&exchange=OKX`, 5)).data
    checkCascade(one, { start, trigger, zones: await hvnZones('okx'), exchange: 'okx' }, 'exchange=okx')
    const all = (await callOk(t, acct, `/v1/signals/liquidation-cascade?coin=BTC&trigger_price=${trigger}`, 5)).data
    expect(one.estimated_liquidations_usd).toBeLessThan(all.estimated_liquidations_usd)
  })

  it('only fresh marks count: with one venue\'s ticker a few minutes old, the start is the mean of the other four', async () => {
    const { data: tickers } = await callOk<Json[]>(t, acct, '/v1/markets/ticker?coin=BTC', 1)
    const others = mean(tickers.filter((r) => r.exchange !== 'dydx').map((r) => r.mark_price as number))
    await withLiveTicker(t, 'dydx:BTC:perp', { ts: TEST_NOW - 5 * MINUTE }, async () => {
      const { data } = await callOk(t, acct, `/v1/signals/liquidation-cascade?coin=BTC&trigger_price=${Math.round(others * 0.98)}`, 5)
      expectClose(data.start_price, others, 1e-12, 'start without the stale dydx mark')
      // and asking for that venue alone has no current price: 503, nothing charged
      const p = await callFail(t, acct, `/v1/signals/liquidation-cascade?coin=BTC&trigger_price=${Math.round(others * 0.98)}&exchange=dydx`, 503, 'unavailable')
      expect(p.detail).toMatch(/dydx/)
    })
  })

  it('only fresh books count: with one venue\'s book a few minutes old, it leaves `exchanges` and is listed in `missing`', async () => {
    const books = t.services.market.live.books
    const original = books.get('dydx:BTC:perp')!
    books.set('dydx:BTC:perp', { ...original, ts: TEST_NOW - 5 * MINUTE })
    try {
      const start = await currentPrice() // every mark is still fresh
      const { data } = await callOk(t, acct, `/v1/signals/liquidation-cascade?coin=BTC&trigger_price=${Math.round(start * 0.98)}`, 5)
      expect(data.start_price).toBe(start)
      expect(data.exchanges).toEqual(['binance', 'bybit', 'okx', 'hyperliquid'])
      expect(data.missing).toHaveLength(1)
      expect(data.missing[0].exchange).toBe('dydx')
      expect(data.missing[0].reason).toMatch(/book/)
      await callFail(t, acct, `/v1/signals/liquidation-cascade?coin=BTC&trigger_price=${Math.round(start * 0.98)}&exchange=dydx`, 503, 'unavailable')
    } finally {
      books.set('dydx:BTC:perp', original)
    }
  })

  it('no fresh market data: 503 unavailable (problem+json), nothing charged — clock moved far ahead, or a coin without any feed', async () => {
    await at(TEST_NOW + 2 * HOUR, () => callFail(t, acct, '/v1/signals/liquidation-cascade?coin=BTC&trigger_price=80000', 503, 'unavailable'))
    await callFail(t, acct, '/v1/signals/liquidation-cascade?coin=ADA&trigger_price=1', 503, 'unavailable')
  })

  it('bad parameters: 400 invalid_parameter naming the parameter, nothing charged', async () => {
    const base = '/v1/signals/liquidation-cascade?coin=BTC'
    await callBad(t, acct, base, 'trigger_price') // missing
    for (const p of ['0', '-1', '-0.5', 'abc', 'Infinity', 'NaN', '1e999', '0x10', '']) await callBad(t, acct, `${base}&trigger_price=${p}`, 'trigger_price')
    const noCoin = await callBad(t, acct, '/v1/signals/liquidation-cascade?trigger_price=80000', 'coin')
    expect(noCoin.allowed).toEqual(DEFAULT_COINS)
    await callBad(t, acct, '/v1/signals/liquidation-cascade?coin=DOGEZ&trigger_price=1', 'coin')
    const ex = await callBad(t, acct, `${base}&trigger_price=80000&exchange=ftx`, 'exchange')
    expect(ex.allowed).toEqual([...EXCHANGES])
    await callBad(t, acct, `${base}&trigger_price=80000&market_type=perp`, 'market_type') // not a parameter of this endpoint
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe('GraphQL gives the same numbers as REST (the stored operation, POST /graphql)', () => {
  it('volume-profile', async () => {
    const end = TEST_NOW - HOUR + 7 * MINUTE
    const rest = (await callOk(t, acct, `/v1/structure/volume-profile?coin=BTC&lookback=4h&bins=20&exchange=bybit&end=${end}`, 3)).data
    const gql = await graphqlOp(t, acct, 'volume-profile', 'volumeProfile', { coin: 'BTC', lookback: '4h', bins: 20, exchange: 'bybit', end }, 3)
    expect(snakeDeep(gql)).toEqual(rest)
    const restDefault = (await callOk(t, acct, '/v1/structure/volume-profile?coin=BTC&market_type=spot', 3)).data
    expect(snakeDeep(await graphqlOp(t, acct, 'volume-profile', 'volumeProfile', { coin: 'BTC', marketType: 'spot' }, 3))).toEqual(restDefault)
  })

  it('liquidation-cascade', async () => {
    const trigger = Math.round((await currentPrice()) * 0.97)
    const rest = (await callOk(t, acct, `/v1/signals/liquidation-cascade?coin=BTC&trigger_price=${trigger}`, 5)).data
    const gql = await graphqlOp(t, acct, 'liquidation-cascade', 'liquidationCascade', { coin: 'BTC', triggerPrice: trigger }, 5)
    expect(snakeDeep(gql)).toEqual(rest)
    expect(rest.phases.length).toBeGreaterThan(0)
  })
})
