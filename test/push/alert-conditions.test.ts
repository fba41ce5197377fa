// Every alert condition beyond price, end to end on the in-process service and a real local receiver: the inputs
// are driven through the ingest (books, tickers, open interest, liquidations) and stored sample rows, each rule
// fires when its condition becomes true (also at its first evaluation), once per crossing, again only after it was
// false, and the value delivered is derived here from the inputs fed in (not by the code under test).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BookLevel } from '../../src/domain/books.js'
import { HOUR_MS, MINUTE_MS } from '../../src/domain/time.js'
import { Ingest } from '../../src/ingest/ingest.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { until } from './sse-client.js'
import { webhookReceiver, type Receiver } from './receiver.js'

let t: TestService
let ingest: Ingest
let receiver: Receiver | undefined
let base = ''
const received: { path: string; body: { id: string; value: number | boolean; alert: { alert_id: string; condition: { type: string } } } }[] = []
/** the service's clock runs this far ahead of the wall clock (the liquidation window is moved past by moving it) */
let skew = 0
const now = () => Date.now() + skew

beforeAll(async () => {
  receiver = await webhookReceiver((d) => received.push({ path: d.path, body: JSON.parse(d.body) as never }))
  base = receiver.base
  t = await startTestService({ clock: now, env: { ALERT_ALLOW_LOOPBACK: '1', ALERT_POLL_MS: '40', ALERT_RETRY_BASE_MS: '100', PUSH_SIGNAL_MS: '100' } })
  ingest = new Ingest({ db: t.services.db, market: t.services.market })
})
afterAll(async () => {
  await receiver?.close()
  await t.close()
})

const create = async (key: string, coin: string, condition: Record<string, unknown>, path: string): Promise<string> => {
  const res = await t.fetch('/v1/alerts', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ coin, condition, url: `${base}${path}` }) })
  expect(res.status).toBe(201)
  return ((await res.json()) as { data: { alert_id: string } }).data.alert_id
}
const stateOf = async (id: string) => (await t.services.db.sql.query<{ last_true: boolean | null }>('SELECT last_true FROM alert_rule WHERE id = $1', [id]))[0]!.last_true
const waitState = (id: string, want: boolean, what: string) => until(async () => (await stateOf(id)) === want, 15_000, what)
const deliveries = (id: string) => t.services.db.sql.query<{ status: string }>('SELECT status FROM alert_delivery WHERE rule_id = $1', [id])
/** the values delivered to a path, once every queued delivery of the rules was sent */
async function delivered(path: string, ids: string[]): Promise<(number | boolean)[]> {
  await until(async () => (await Promise.all(ids.map(deliveries))).flat().every((d) => d.status === 'delivered'), 10_000, `deliveries to ${path}`)
  return received.filter((r) => r.path === path).map((r) => r.body.value)
}

describe('alert conditions', () => {
  it('imbalance_above / imbalance_below: the aggregate bid/ask ratio of the band', async () => {
    const { apiKey } = await t.signup()
    const coin = 'SOL'
    // one venue's book around 100: levels inside ±1 % and, to be left out of the band, levels beyond it
    const book = (bidSize: number, askSize: number) => ({
      bids: [{ price: 99.8, size: bidSize }, { price: 99.5, size: 1 }, { price: 95, size: 50 }],
      asks: [{ price: 100.2, size: askSize }, { price: 100.6, size: 1 }, { price: 106, size: 50 }],
    })
    /** Σ price × size within ±band % of the mid, bids over asks (the book's definition in docs/methodology.md) */
    const ratio = (b: { bids: BookLevel[]; asks: BookLevel[] }, bandPct: number) => {
      const mid = (b.bids[0]!.price + b.asks[0]!.price) / 2
      const depth = (levels: BookLevel[], inside: (p: number) => boolean) => levels.filter((l) => inside(l.price)).reduce((s, l) => s + l.price * l.size, 0)
      return depth(b.bids, (p) => p >= mid * (1 - bandPct / 100)) / depth(b.asks, (p) => p <= mid * (1 + bandPct / 100))
    }
    const feed = (b: ReturnType<typeof book>) => ingest.emit({ type: 'book', exchange: 'binance', coin, marketType: 'perp', ts: now(), bidEnd: null, askEnd: null, ...b })
    /** the ±1 % ratio of the newest imbalance event on the computed channel (what the rules read) */
    const computed = () => {
      const e = t.services.market.stream.since(['imbalance'], 0).filter((x) => x.coin === coin).at(-1)
      return (e?.data.aggregate as { bands: { band_pct: number; ratio: number | null }[] } | null | undefined)?.bands.find((x) => x.band_pct === 1)?.ratio
    }
    const step = (b: ReturnType<typeof book>) => feed(b)
    step(book(4, 1)) // ratio ≈ 4: above 1.5 already when the rules are created
    const above = await create(apiKey, coin, { type: 'imbalance_above', band: 1, value: 1.5 }, '/imb-above')
    const below = await create(apiKey, coin, { type: 'imbalance_below', band: 1, value: 0.8 }, '/imb-below')
    await waitState(above, true, 'above at its first evaluation')
    await waitState(below, false, 'below false at its first evaluation')
    step(book(5, 1)) // still above: no second delivery
    await until(() => Math.abs((computed() ?? 0) - ratio(book(5, 1), 1)) < 1e-12, 15_000, 'the second book computed')
    step(book(1, 3)) // ≈ 0.33: below
    await waitState(below, true, 'below')
    await waitState(above, false, 'above false')
    step(book(3, 1)) // ≈ 3: above again
    await waitState(above, true, 'above again')
    await waitState(below, false, 'below false again')
    step(book(1, 4)) // below again
    await waitState(below, true, 'below again')
    const up = await delivered('/imb-above', [above])
    const down = await delivered('/imb-below', [below])
    expect(up).toHaveLength(2)
    expect(down).toHaveLength(2)
    expect(up[0]).toBeCloseTo(ratio(book(4, 1), 1), 12)
    expect(up[1]).toBeCloseTo(ratio(book(3, 1), 1), 12)
    expect(down[0]).toBeCloseTo(ratio(book(1, 3), 1), 12)
    expect(down[1]).toBeCloseTo(ratio(book(1, 4), 1), 12)
  })

  it('funding_z_above / funding_z_below: the OI-weighted funding rate against its hourly history of 7 days', async () => {
    const { apiKey } = await t.signup()
    const coin = 'BNB'
    // 80 hours of history, one venue: each hour's last sample is that hour's weighted 8 h rate (interval 8 h, one venue)
    const hour0 = Math.floor(now() / HOUR_MS) * HOUR_MS
    const history = new Ingest({ db: t.services.db, market: t.services.market, trackLive: false, sampleEveryMs: MINUTE_MS })
    const rates: number[] = []
    for (let h = 80; h >= 1; h--) {
      const ts = hour0 - h * HOUR_MS + 30 * MINUTE_MS
      const rate = 0.0001 + 0.00002 * ((h * 7) % 5)
      rates.push(rate)
      history.emit({ type: 'ticker', exchange: 'bybit', coin, marketType: 'perp', ts, markPrice: 600, indexPrice: 600, lastPrice: 600, fundingRate: rate, fundingIntervalHours: 8, nextFundingTime: null })
      history.emit({ type: 'open_interest', exchange: 'bybit', coin, marketType: 'perp', ts, openInterest: 1000 })
    }
    await history.flush({ final: true })
    const mean = rates.reduce((s, x) => s + x, 0) / rates.length
    const sd = Math.sqrt(rates.reduce((s, x) => s + (x - mean) ** 2, 0) / (rates.length - 1))
    /** the current rate that makes z what is asked, and the z it gives, derived from the history fed in */
    const rateFor = (z: number) => mean + z * sd
    const zOf = (rate: number) => (rate - mean) / sd
    const feed = (rate: number) => {
      ingest.emit({ type: 'ticker', exchange: 'bybit', coin, marketType: 'perp', ts: now(), markPrice: 600, indexPrice: 600, lastPrice: 600, fundingRate: rate, fundingIntervalHours: 8, nextFundingTime: null })
      ingest.emit({ type: 'open_interest', exchange: 'bybit', coin, marketType: 'perp', ts: now(), openInterest: 1000 })
    }
    const steps = [3, 4, 0, -3, 3.5].map(rateFor)
    feed(steps[0]!)
    const above = await create(apiKey, coin, { type: 'funding_z_above', value: 2 }, '/fz-above')
    const below = await create(apiKey, coin, { type: 'funding_z_below', value: -2 }, '/fz-below')
    await waitState(above, true, 'z 3: above at its first evaluation')
    await waitState(below, false, 'z 3: below false')
    feed(steps[1]!) // z 4: still above
    feed(steps[2]!) // z 0: neither
    await waitState(above, false, 'z 0: above false')
    feed(steps[3]!) // z -3
    await waitState(below, true, 'z -3: below')
    feed(steps[4]!) // z 3.5
    await waitState(above, true, 'z 3.5: above again')
    await waitState(below, false, 'z 3.5: below false')
    const up = await delivered('/fz-above', [above])
    const down = await delivered('/fz-below', [below])
    expect(up).toHaveLength(2)
    expect(up[0]).toBeCloseTo(zOf(steps[0]!), 6)
    expect(up[1]).toBeCloseTo(zOf(steps[4]!), 6)
    expect(down).toHaveLength(1)
    expect(down[0]).toBeCloseTo(zOf(steps[3]!), 6)
  })

  // last: it moves the service's clock
  it('liquidation_above: the coin\'s liquidated USD over the last 60 s, all venues', async () => {
    const { apiKey } = await t.signup()
    const coin = 'XRP'
    const fed: { ts: number; usd: number }[] = []
    let n = 0
    const liquidate = (exchange: 'binance' | 'okx' | 'bybit', usd: number) => {
      const ts = now()
      fed.push({ ts, usd })
      const price = 2
      ingest.emit({ type: 'liquidation', exchange, coin, marketType: 'perp', ts, id: `l${++n}`, side: n % 2 ? 'long' : 'short', price, size: usd / price, usd })
    }
    /** Σ usd of what was fed within the last 60 s of the clock */
    const windowSum = (at: number) => fed.filter((l) => l.ts >= at - 60_000).reduce((s, l) => s + l.usd, 0)
    liquidate('binance', 600_000)
    liquidate('okx', 500_000) // 1.1 M: above 1 M when the rule is created
    const expectedFirst = windowSum(now())
    const rule = await create(apiKey, coin, { type: 'liquidation_above', value: 1_000_000 }, '/liq')
    await waitState(rule, true, 'above at its first evaluation')
    liquidate('bybit', 200_000) // still above
    skew += 61_000 // a minute later: the window is empty
    await waitState(rule, false, 'the window moved past them')
    liquidate('binance', 700_000)
    await until(async () => (await t.services.db.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM alert_delivery WHERE rule_id = $1", [rule]))[0]!.n === 1 && (await stateOf(rule)) === false, 5000, 'below the threshold with 0.7 M')
    liquidate('okx', 800_000) // 1.5 M
    const expectedSecond = windowSum(now())
    await waitState(rule, true, 'above again')
    const values = await delivered('/liq', [rule])
    expect(values).toEqual([expectedFirst, expectedSecond])
    expect(values).toEqual([1_100_000, 1_500_000])
  })
})
