// REST contract of /v1/signals/liquidation-cascade (5 credits): field by field against docs/contract.md#payloads and the stored
// operation, values checked independently (the ticker endpoint, the volume profile's HVN runs, the documented rules
// of docs/methodology.md re-implemented here), failures that charge nothing, and GraphQL giving the same numbers as
// REST. Per-venue figures on the simulator run like `npm start`, and venues that must not be netted:
// cascade-venues.test.ts.
//
// One service, 30 h of simulated history for BTC (so 24 h windows and the OI build-up have data); the other coins
// have no data at all. The clock is a variable so the stale test can move it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_NOW, seedMarket } from '../../helpers/market.js'
import { startTestService, type TestService } from '../../helpers/service.js'
import { DEFAULT_COINS, EXCHANGES, HOUR, MINUTE, callBad, callOk, expectClose, sortedKeys, withLiveTicker, type Json } from '../markets/helpers.js'
import { callFail, expectMatchesTree, graphqlOp, mean, operationTree, snakeDeep, sum, type Acct } from './helpers.js'

let now = TEST_NOW
let t: TestService
let acct: Acct

beforeAll(async () => {
  t = await startTestService({ clock: () => now })
  await seedMarket(t, { hours: 30, coins: ['BTC'] })
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

// ---------------------------------------------------------------------------------------------------------------
// Liquidation cascade

const CASCADE_KEYS = [
  'as_of', 'by_exchange', 'calibration', 'coin', 'coverage', 'direction', 'ended_by', 'estimated_liquidations_usd', 'exchanges', 'final_price', 'liquidation_levels', 'missing', 'phases', 'stalled_at', 'start_price', 'total_liquidated_usd', 'trigger_price',
]
const PHASE_KEYS = ['by_exchange', 'from_price', 'liquidated_usd', 'phase', 'stalled', 'to_price']

/**
 * current price as the ticker endpoint shows it: mean of the fresh marks of the selected exchanges, dYdX's being its
 * oracle (the ticker's index_price: dYdX publishes no mark apart from it and liquidates at it)
 */
async function currentPrice(exchange?: string): Promise<number> {
  const { data } = await callOk<Json[]>(t, acct, `/v1/markets/ticker?coin=BTC${exchange ? `&exchange=${exchange}` : ''}`, 1)
  const marks = data.map((r): Json => ({ ...r, mark: r.exchange === 'dydx' ? r.index_price : r.mark_price }))
  const fresh = marks.filter((r) => TEST_NOW - r.ts <= 60_000 && r.mark! > 0)
  expect(fresh.length).toBeGreaterThan(0)
  return mean(fresh.map((r) => r.mark!))
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

/** invariants of one cascade (docs/contract.md#payloads + docs/methodology.md#liquidation-cascade) */
function checkCascade(d: Json, q: { start: number; trigger: number; zones: { low: number; high: number }[]; exchange?: string }, what: string): void {
  expect(sortedKeys(d)).toEqual(CASCADE_KEYS)
  expect(d.coin).toBe('BTC')
  // the venues whose books were walked are in the coverage; the window is the week of open-interest build-up the maps
  // are estimated from, of which 30 h are seeded
  for (const e of d.exchanges) expect(d.coverage.exchanges).toContain(e)
  expect(d.coverage.requested_to - d.coverage.requested_from).toBe((7 * 24 + 1) * 3_600_000)
  expect(d.coverage.partial).toBe(true)
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

  it('a mark more than 5 % from the median of the venues\' marks is left out of the start and named in the coverage', async () => {
    const { data: tickers } = await callOk<Json[]>(t, acct, '/v1/markets/ticker?coin=BTC', 1)
    const mark = (e: string) => tickers.find((r) => r.exchange === e)![e === 'dydx' ? 'index_price' : 'mark_price'] as number
    const others = mean(['binance', 'bybit', 'hyperliquid', 'dydx'].map(mark))
    // okx's mark 20 % above its own: the median of the five is one of the other four (all within bps of each other),
    // okx is ~20 % from it, beyond 5 %
    await withLiveTicker(t, 'okx:BTC:perp', { markPrice: mark('okx') * 1.2 }, async () => {
      const { data } = await callOk(t, acct, `/v1/signals/liquidation-cascade?coin=BTC&trigger_price=${Math.round(others * 0.98)}`, 5)
      expectClose(data.start_price, others, 1e-12, 'start without the okx outlier')
      expect(data.coverage.missing).toContainEqual({ exchange: 'okx', status: 'outlier', reason: expect.stringMatching(/^mark left out of the start price: price [\d.]+ is 2\d\.\d\d % from the venues' median/) })
      // its positions and book are still in the cascade: only its mark is out
      expect(data.exchanges).toContain('okx')
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
  it('liquidation-cascade', async () => {
    const trigger = Math.round((await currentPrice()) * 0.97)
    const rest = (await callOk(t, acct, `/v1/signals/liquidation-cascade?coin=BTC&trigger_price=${trigger}`, 5)).data
    const gql = await graphqlOp(t, acct, 'liquidation-cascade', 'liquidationCascade', { coin: 'BTC', triggerPrice: trigger }, 5)
    expect(snakeDeep(gql)).toEqual(rest)
    expect(rest.phases.length).toBeGreaterThan(0)
  })
})
