// The liquidation and positioning endpoints on the replayed fixture recording, which holds the venues' documented
// liquidation frames and positioning answers (test/fixtures/venues, SOURCES.md). Every figure is derived here from the
// raw JSON of those files: the side of the liquidated position, the price, the quantity and its USD as each venue
// defines them; frames of coins outside the universe are counted and must be skipped.
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_COINS } from '../../../src/domain/coins.js'
import { FIXTURES_RECORDING, startReplayService, type ReplayService } from './helpers.js'

const venue = <T = any>(file: string): T => JSON.parse(readFileSync(new URL(`../../fixtures/venues/${file}`, import.meta.url), 'utf8')) as T

interface Expected {
  exchange: string
  coin: string
  side: 'long' | 'short'
  price: number
  size: number
  usd: number
  /** the venue's own time of the order */
  ts: number
}

const UNIVERSE = new Set<string>(DEFAULT_COINS)
/** base asset of a venue symbol; null when the symbol is not a USDT/USD linear perp */
const base = (symbol: string): string | null => /^([A-Z0-9]+?)(?:-USDT-SWAP|USDT|-USD)$/.exec(symbol)?.[1] ?? null

/** every liquidation order the four venues' documented frames hold, with the coin it names */
function liquidationsInFrames(): Expected[] {
  const out: Expected[] = []
  // Binance forceOrder: S is the ORDER side (SELL closes a long); filled quantity z at the average price ap
  for (const f of venue<any[]>('binance_ws_force_order.json')) {
    const o = f.o
    out.push({ exchange: 'binance', coin: base(o.s)!, side: o.S === 'SELL' ? 'long' : 'short', price: Number(o.ap), size: Number(o.z), usd: Number(o.ap) * Number(o.z), ts: o.T })
  }
  // Bybit allLiquidation: S is the POSITION side (Buy: a long was liquidated), v in coin at p
  for (const d of venue('bybit_ws_all_liquidation.json').data) {
    out.push({ exchange: 'bybit', coin: base(d.s)!, side: d.S === 'Buy' ? 'long' : 'short', price: Number(d.p), size: Number(d.v), usd: Number(d.p) * Number(d.v), ts: d.T })
  }
  // OKX liquidation-orders: posSide names the position; sz in contracts (x ctVal, not known for an unlisted coin), bkPx
  for (const item of venue('okx_ws_liquidation_orders.json').data) {
    for (const d of item.details) out.push({ exchange: 'okx', coin: base(item.instId)!, side: d.posSide, price: Number(d.bkPx), size: NaN, usd: NaN, ts: Number(d.ts) })
  }
  // dYdX v4_trades: LIQUIDATED trades; the side is the liquidation (taker) order's: SELL closes a long
  const dydx = venue('dydx_ws_trades_liquidated.json')
  for (const t of dydx.contents.trades.filter((x: any) => x.type === 'LIQUIDATED')) {
    out.push({ exchange: 'dydx', coin: base(dydx.id)!, side: t.side === 'SELL' ? 'long' : 'short', price: Number(t.price), size: Number(t.size), usd: Number(t.price) * Number(t.size), ts: Date.parse(t.createdAt) })
  }
  return out
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const all = liquidationsInFrames()
const inUniverse = all.filter((x) => UNIVERSE.has(x.coin))
const outside = all.filter((x) => !UNIVERSE.has(x.coin))

let s: ReplayService
/** the orders endpoint's answer, each matched to the raw order it must be */
let orders: Array<{ got: any; raw: Expected }> = []

/** the raw order an answered one is (same venue, coin, side, price and size) */
const rawOf = (o: any): Expected => {
  const m = inUniverse.filter((x) => x.exchange === o.exchange && x.coin === o.coin && x.side === o.side && x.price === o.price && x.size === o.size)
  expect(m, JSON.stringify(o)).toHaveLength(1)
  return m[0]!
}

beforeAll(async () => {
  s = await startReplayService(FIXTURES_RECORDING, { start: Date.UTC(2026, 2, 2, 12, 0, 0), env: { LOG_LEVEL: 'silent' } })
  await s.playToEnd()
  const body = (await s.get('/v1/liquidations/orders?lookback=24h&limit=1000')).body
  orders = body.data.orders.map((o: any) => ({ got: o, raw: rawOf(o) }))
}, 120_000)
afterAll(async () => {
  await s?.close()
})

describe('liquidations replayed from the venues\' own frames', () => {
  it('the frames hold BTC orders of Binance and dYdX, and a Bybit (ROSEUSDT) and an OKX (IOST-USDT-SWAP) order outside the universe', () => {
    expect(inUniverse.map((x) => `${x.exchange}:${x.coin}`)).toEqual(['binance:BTC', 'binance:BTC', 'dydx:BTC', 'dydx:BTC'])
    expect(outside.map((x) => `${x.exchange}:${x.coin}`)).toEqual(['bybit:ROSE', 'okx:IOST'])
  })

  it('orders: exactly the in-universe orders, with the side of the position, price, quantity and USD as each venue means them', () => {
    expect(orders).toHaveLength(inUniverse.length)
    for (const { got, raw } of orders) {
      expect(got).toMatchObject({ exchange: raw.exchange, coin: raw.coin, side: raw.side, price: raw.price, size: raw.size })
      expect(got.usd).toBeCloseTo(raw.usd, 9)
    }
    // dYdX orders keep the venue's trade ids; the two LIQUIDATED trades closed shorts (taker BUY), the LIMIT ones are no liquidation
    const dydxIds = venue('dydx_ws_trades_liquidated.json').contents.trades.filter((t: any) => t.type === 'LIQUIDATED').map((t: any) => t.id)
    expect(orders.filter((o) => o.got.exchange === 'dydx').map((o) => o.got.id).sort()).toEqual([...dydxIds].sort())
    // newest first; orders of one frame keep their distance from each other through the time warp
    const ts = orders.map((o) => o.got.ts)
    expect(ts).toEqual([...ts].sort((a, b) => b - a))
    for (const a of orders) for (const b of orders) if (a.raw.exchange === b.raw.exchange && a.raw.ts === b.raw.ts) expect(a.got.ts).toBe(b.got.ts)
    for (const t of ts) expect(t).toBeLessThanOrEqual(s.now())
  })

  it('orders outside the coin universe are skipped: nothing stored for ROSE or IOST, nothing from Bybit or OKX', async () => {
    const coins = await s.t.services.db.sql.query<{ exchange: string; coin: string; n: string }>('SELECT exchange, coin, count(*) AS n FROM liquidation_order GROUP BY exchange, coin ORDER BY exchange, coin')
    const want = new Map<string, number>()
    for (const x of inUniverse) want.set(`${x.exchange}:${x.coin}`, (want.get(`${x.exchange}:${x.coin}`) ?? 0) + 1)
    expect(coins.map((r) => [`${r.exchange}:${r.coin}`, Number(r.n)])).toEqual([...want.entries()].sort())
    for (const x of outside) expect(coins.some((r) => r.coin === x.coin || r.exchange === x.exchange)).toBe(false)
    // the filters: by side and by venue
    const shorts = (await s.get('/v1/liquidations/orders?lookback=24h&side=short')).body.data.orders
    expect(shorts).toHaveLength(inUniverse.filter((x) => x.side === 'short').length)
    const bybit = (await s.get('/v1/liquidations/orders?lookback=24h&exchange=bybit')).body.data
    expect(bybit.orders).toEqual([])
  })

  it('history: each minute, per venue and across venues, is the sum of the orders in it; the totals are the frames\' totals', async () => {
    const { status, body } = await s.get('/v1/liquidations/history?coin=BTC&interval=1m&lookback=1h')
    expect(status).toBe(200)
    const h = body.data
    const inMinute = (m: number, exchange?: string) => orders.filter((o) => o.got.ts >= m && o.got.ts < m + MINUTE && (!exchange || o.raw.exchange === exchange)).map((o) => o.raw)
    const sum = (xs: Expected[], side: string) => xs.filter((x) => x.side === side).reduce((a, x) => a + x.usd, 0)
    let seen = 0
    for (const p of h.aggregate) {
      const xs = inMinute(p.ts)
      seen += xs.length
      expect(p.long_usd).toBeCloseTo(sum(xs, 'long'), 9)
      expect(p.short_usd).toBeCloseTo(sum(xs, 'short'), 9)
      expect([p.long_count, p.short_count]).toEqual([xs.filter((x) => x.side === 'long').length, xs.filter((x) => x.side === 'short').length])
    }
    expect(seen).toBe(inUniverse.length)
    for (const e of h.exchanges) {
      for (const p of e.points) {
        const xs = inMinute(p.ts, e.exchange)
        expect(p.long_usd).toBeCloseTo(sum(xs, 'long'), 9)
        expect(p.short_usd).toBeCloseTo(sum(xs, 'short'), 9)
      }
    }
    expect(h.total_long_usd).toBeCloseTo(sum(inUniverse, 'long'), 9)
    expect(h.total_short_usd).toBeCloseTo(sum(inUniverse, 'short'), 9)
    // Hyperliquid publishes no feed: not_published, not missing data
    expect(h.coverage.missing.find((m: any) => m.exchange === 'hyperliquid').status).toBe('not_published')
    // the replayed connectors' liquidation streams were up once they subscribed on the recording's connections
    for (const e of ['binance', 'bybit', 'okx', 'dydx']) expect(h.liquidation_coverage.exchanges.find((v: any) => v.exchange === e).up_ms, e).toBeGreaterThan(0)
  })

  it('heatmap: each bucket\'s observed USD is the sum of the orders in it', async () => {
    const { status, body } = await s.get('/v1/liquidations/heatmap?coin=BTC&interval=1h&lookback=24h')
    expect(status).toBe(200)
    let total = 0
    for (const b of body.data.buckets) {
      const xs = orders.filter((o) => o.got.ts >= b.ts && o.got.ts < b.ts + HOUR).map((o) => o.raw)
      expect(b.observed_usd).toBeCloseTo(xs.reduce((a, x) => a + x.usd, 0), 9)
      total += b.observed_usd
    }
    expect(total).toBeCloseTo(inUniverse.reduce((a, x) => a + x.usd, 0), 9)
  })

  it('cascade: modelled only, each venue counting the orders it published in the window (fewer than 3 per venue)', async () => {
    const { status, body } = await s.get('/v1/signals/liquidation-cascade?coin=BTC&trigger_price=64000')
    expect(status).toBe(200)
    const c = body.data
    expect(c.calibration).toMatchObject({ kind: 'modelled', exchanges: [], orders: inUniverse.length })
    for (const v of c.by_exchange) {
      const mine = inUniverse.filter((x) => x.exchange === v.exchange)
      expect(v.calibration.kind).toBe('modelled')
      expect(v.calibration.factor).toBe(1)
      expect(v.calibration.orders).toBe(mine.length)
      expect(v.calibration.observed_usd).toBeCloseTo(mine.reduce((a, x) => a + x.usd, 0), 9)
    }
    // a replay holds minutes, not the week of build-up before the calibration window: that is why nothing is scaled
    expect(c.by_exchange.find((v: any) => v.exchange === 'binance').calibration.reason).toMatch(/less than a position horizon before the window/)
    expect(c.by_exchange.find((v: any) => v.exchange === 'hyperliquid').calibration.reason).toMatch(/publishes no/)
  })

  it('positioning: the Binance account ratio and the Bybit account shares as the venues answered them', async () => {
    const { status, body } = await s.get('/v1/positioning/long-short?coin=BTC&interval=1h&lookback=24h')
    expect(status).toBe(200)
    const ex = (id: string) => body.data.exchanges.find((e: any) => e.exchange === id)
    const b = venue<any[]>('binance_global_long_short_account_ratio.json')[0]
    expect(ex('binance').account.latest).toMatchObject({ long_share: Number(b.longAccount), short_share: Number(b.shortAccount), ratio: Number(b.longShortRatio) })
    // topLongShortPositionRatio has no recorded answer: no figure, and the account ratio is not withheld for it
    expect(ex('binance').top_position?.latest ?? null).toBeNull()
    const y = venue('bybit_account_ratio.json').result.list[0]
    expect(ex('bybit').account.latest).toMatchObject({ long_share: Number(y.buyRatio), short_share: Number(y.sellRatio) })
    expect(ex('bybit').account.latest.ratio).toBeCloseTo(Number(y.buyRatio) / Number(y.sellRatio), 12)
    // OKX's documented answer names no instrument and is not in the recording
    expect(ex('okx').account?.latest ?? null).toBeNull()
    expect(ex('hyperliquid').available).toBe(false)
  })
})
