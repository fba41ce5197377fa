// Which price each venue's liquidation orders carry, and how their USD is computed from it (docs/methodology.md
// #liquidations), on the venues' documented payloads (test/fixtures/venues, SOURCES.md) through the connectors'
// parsers: Binance forceOrder `ap` is the order's average fill price and `z` its filled quantity ("Average Price",
// "Order Filled Accumulated Quantity"); Bybit allLiquidation `p` is the bankruptcy price and `v` the executed size;
// OKX liquidation-orders `bkPx` the bankruptcy price and `sz` contracts; dYdX a LIQUIDATED trade's price and size.
// The expected figures are read off the raw JSON here.
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { binanceForceOrder, bybitLiquidation, dydxLiquidatedTrade, okxLiquidationOrders } from '../../src/sources/connectors/liquidations.js'
import type { MarketRef } from '../../src/sources/connectors/mapping.js'
import type { LiquidationEvent } from '../../src/domain/events.js'
import { Ingest } from '../../src/ingest/ingest.js'
import { TEST_NOW } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'
import type { Json } from './markets/helpers.js'

const raw = <T = any>(file: string): T => JSON.parse(readFileSync(new URL(`../fixtures/venues/${file}`, import.meta.url), 'utf8')) as T
const ref = (exchange: MarketRef['exchange'], coin: string, id: string, contractSize = 1): MarketRef => ({ exchange, coin, marketType: 'perp', symbol: `${coin}/USDT:USDT`, id, contractSize, inverse: false })

/** per venue: the raw order's time, the price it carries, its size in coins, and the price basis the venue documents */
const forceOrders = raw<any[]>('binance_ws_force_order.json').map((f) => f.o)
const bybit = raw('bybit_ws_all_liquidation.json').data[0]
const okx = raw('okx_ws_liquidation_orders.json').data[0]
// IOST-USDT-SWAP: ctVal 1000 IOST per contract (OKX instruments)
const OKX_CT_VAL = 1000
const dydx = raw('dydx_ws_trades_liquidated.json').contents.trades.filter((x: any) => x.type === 'LIQUIDATED')

const EXPECTED = [
  ...forceOrders.map((o) => ({ exchange: 'binance', ts: o.T, price: Number(o.ap), size: Number(o.z), usd: Number(o.ap) * Number(o.z), basis: 'average_fill' })),
  { exchange: 'bybit', ts: bybit.T, price: Number(bybit.p), size: Number(bybit.v), usd: Number(bybit.p) * Number(bybit.v), basis: 'bankruptcy' },
  ...okx.details.map((d: any) => ({ exchange: 'okx', ts: Number(d.ts), price: Number(d.bkPx), size: Number(d.sz) * OKX_CT_VAL, usd: Number(d.bkPx) * Number(d.sz) * OKX_CT_VAL, basis: 'bankruptcy' })),
  ...dydx.map((x: any) => ({ exchange: 'dydx', ts: Date.parse(x.createdAt), price: Number(x.price), size: Number(x.size), usd: Number(x.price) * Number(x.size), basis: 'fill' })),
]

let t: TestService
let key: string

beforeAll(async () => {
  t = await startTestService({ clock: () => TEST_NOW })
  const events: (LiquidationEvent | null)[] = [
    ...forceOrders.map((o) => binanceForceOrder(ref('binance', 'BTC', 'BTCUSDT'), o)),
    bybitLiquidation(ref('bybit', 'ROSE', 'ROSEUSDT'), bybit),
    ...okxLiquidationOrders(ref('okx', 'IOST', 'IOST-USDT-SWAP', OKX_CT_VAL), okx),
    ...dydx.map((x: any) => dydxLiquidatedTrade(ref('dydx', 'BTC', 'BTC-USD'), x)),
  ]
  const ingest = new Ingest({ db: t.services.db, market: t.services.market, trackLive: false })
  for (const e of events) ingest.emit(e!)
  await ingest.flush({ final: true })
  key = (await t.signup()).apiKey
}, 60_000)
afterAll(() => t?.close())

describe('the price of a liquidation order, and its USD, as each venue means them', () => {
  it('orders: Binance at the average fill (not the order price p), Bybit and OKX at the bankruptcy price, dYdX at the fill; usd = price × size', async () => {
    // Binance's second documented order filled at ap 18990.00 against an order price p of 18917.15
    expect(Number(forceOrders[1].ap)).not.toBe(Number(forceOrders[1].p))
    for (const x of EXPECTED) {
      const res = await t.get(`/v1/liquidations/orders?exchange=${x.exchange}&start_time=${x.ts}&end_time=${x.ts + 1}`, key)
      const { data } = (await res.json()) as { data: Json }
      expect(data.orders.length, `${x.exchange} ${x.ts}`).toBeGreaterThan(0)
      const o = data.orders.find((y: Json) => y.price === x.price && y.size === x.size)
      expect(o, `${x.exchange} ${x.ts}: ${x.size} at ${x.price}`).toBeDefined()
      expect(o.price_basis).toBe(x.basis)
      expect(o.usd).toBeCloseTo(x.usd, 9)
    }
  })

  it('exchanges: each venue says which price its liquidations carry and how their USD is computed', async () => {
    const { data } = (await (await t.get('/v1/markets/exchanges', key)).json()) as { data: Json[] }
    const liq = Object.fromEntries(data.map((e) => [e.id, e.liquidations]))
    expect(Object.fromEntries(Object.entries(liq).map(([e, f]) => [e, [(f as Json).price, (f as Json).completeness]]))).toEqual({
      binance: ['average_fill', 'sample'],
      bybit: ['bankruptcy', 'complete'],
      okx: ['bankruptcy', 'sample'],
      hyperliquid: [null, 'none'],
      dydx: ['fill', 'complete'],
    })
    expect(liq.binance.usd).toMatch(/^ap × z/)
    expect(liq.bybit.usd).toMatch(/^p × v/)
    expect(liq.okx.usd).toMatch(/^bkPx × sz × ctVal/)
    expect(liq.dydx.usd).toMatch(/^price × size/)
  })
})
