// Liquidation orders from the venues' public feeds, read from the raw payloads (CCXT's parsed liquidation keeps the
// raw object in `info`; its own fields lose what we need: OKX's later details, Bybit's position side, the USD value).
// Each venue says the side differently; every event carries the side of the POSITION that was closed:
//   - Binance USD-M `forceOrder` (`<symbol>@forceOrder`): `S` is the side of the liquidation ORDER; SELL closes a long.
//     At most one order per symbol per second is pushed (a snapshot), so sums from it are a lower bound.
//   - Bybit `allLiquidation.{symbol}`: `S` is the side of the POSITION ("Buy" = a long was liquidated), `v` in coin.
//   - OKX `liquidation-orders` (instType SWAP): per instrument a list of `details`, `posSide` long/short (`net`
//     accounts: the order `side`, sell closes a long), `sz` in contracts (× ctVal = coin), `bkPx` the bankruptcy price.
//   - dYdX v4 `v4_trades`: trades of type LIQUIDATED; the liquidated subaccount is the taker, `side` the taker side.
//   - Hyperliquid: no public liquidation feed.
import type { Exchange, Trade } from 'ccxt'
import type { LiquidationEvent, PositionSide } from '../../domain/events.js'
import type { MarketRef } from './mapping.js'
import type { Supervisor } from './supervisor.js'
import type { LiquidationStream } from './liveness.js'

type Raw = Record<string, unknown>

const num = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN
  return Number.isFinite(n) ? n : null
}

function event(ref: MarketRef, ts: number | null, side: PositionSide, price: number | null, size: number | null, id?: string): LiquidationEvent | null {
  if (ts === null || price === null || size === null || !(price > 0) || !(size > 0)) return null
  return {
    type: 'liquidation',
    exchange: ref.exchange,
    coin: ref.coin,
    marketType: 'perp',
    ts,
    // the venues without an order id: the order's own fields (the same order received twice is stored once)
    id: id ?? `${ts}-${side}-${price}-${size}`,
    side,
    price,
    size,
    usd: price * size,
  }
}

/** Binance USD-M forceOrder: the `o` object. Filled quantity (z, else l, else q) at the average price (ap, else p). */
export function binanceForceOrder(ref: MarketRef, o: Raw): LiquidationEvent | null {
  const side = o['S'] === 'SELL' ? 'long' : o['S'] === 'BUY' ? 'short' : null
  if (!side) return null
  const ap = num(o['ap'])
  const price = ap !== null && ap > 0 ? ap : num(o['p'])
  const qty = [num(o['z']), num(o['l']), num(o['q'])].find((q) => q !== null && q > 0) ?? null
  return event(ref, num(o['T']), side, price, qty === null ? null : qty * ref.contractSize)
}

/** Bybit allLiquidation: one element of `data` ({T, s, S, v, p}); the legacy `liquidation` topic's {updatedTime, symbol, side, size, price} too */
export function bybitLiquidation(ref: MarketRef, d: Raw): LiquidationEvent | null {
  const s = d['S'] ?? d['side']
  const side = s === 'Buy' ? 'long' : s === 'Sell' ? 'short' : null
  if (!side) return null
  const size = num(d['v'] ?? d['size'])
  return event(ref, num(d['T'] ?? d['updatedTime']), side, num(d['p'] ?? d['price']), size === null ? null : size * ref.contractSize)
}

/** OKX liquidation-orders: one element of `data` ({instId, details: [...]}) → one event per detail */
export function okxLiquidationOrders(ref: MarketRef, item: Raw): LiquidationEvent[] {
  const details = Array.isArray(item['details']) ? (item['details'] as Raw[]) : []
  const out: LiquidationEvent[] = []
  for (const d of details) {
    const pos = d['posSide']
    const side: PositionSide | null = pos === 'long' || pos === 'short' ? pos : d['side'] === 'sell' ? 'long' : d['side'] === 'buy' ? 'short' : null
    if (!side) continue
    const sz = num(d['sz'])
    const e = event(ref, num(d['ts']), side, num(d['bkPx']), sz === null ? null : sz * ref.contractSize)
    if (e) out.push(e)
  }
  return out
}

/** dYdX v4 trade ({id, side, size, price, createdAt, type}): a liquidation when type is LIQUIDATED */
export function dydxLiquidatedTrade(ref: MarketRef, t: Raw): LiquidationEvent | null {
  if (t['type'] !== 'LIQUIDATED') return null
  const side = t['side'] === 'SELL' ? 'long' : t['side'] === 'BUY' ? 'short' : null
  if (!side) return null
  const ts = typeof t['createdAt'] === 'string' ? Date.parse(t['createdAt']) : NaN
  return event(ref, Number.isFinite(ts) ? ts : null, side, num(t['price']), num(t['size']), typeof t['id'] === 'string' ? t['id'] : undefined)
}

/** the same for a CCXT trade (its `info` is the raw trade) */
export const dydxLiquidationOfTrade = (ref: MarketRef, t: Trade): LiquidationEvent | null => dydxLiquidatedTrade(ref, (t.info ?? {}) as Raw)

export type LiquidationParser = (ref: MarketRef, info: Raw) => LiquidationEvent | LiquidationEvent[] | null

/**
 * Watch loops over CCXT's liquidation watchers: one loop for all perps where the venue watches several symbols on one
 * subscription (watchLiquidationsForSymbols), else one per symbol. Each CCXT liquidation's raw `info` is parsed by
 * `parse` for the market it belongs to. Returns where the stream lives for its liveness (`subscription`: the CCXT
 * subscription keys that carry it), null when CCXT cannot watch it.
 */
export function watchLiquidationLoops(run: Supervisor, ex: Exchange, refs: readonly MarketRef[], parse: LiquidationParser, emit: (e: LiquidationEvent) => void, subscription: RegExp): LiquidationStream | null {
  const stream = { ex, subscription, loops: /^liquidations(:|$)/ }
  const bySymbol = new Map(refs.map((r) => [r.symbol, r]))
  const handle = (rows: ReadonlyArray<{ symbol?: string; info?: unknown }>) => {
    for (const l of rows) {
      const ref = l.symbol ? bySymbol.get(l.symbol) : undefined
      if (!ref) continue
      const out = parse(ref, (l.info ?? {}) as Raw)
      for (const e of Array.isArray(out) ? out : out ? [out] : []) emit(e)
    }
  }
  if (ex.has['watchLiquidationsForSymbols'] === true) {
    run.loop('liquidations', 'stream', async () => handle(await run.abortable(ex.watchLiquidationsForSymbols(refs.map((r) => r.symbol)))))
    return stream
  }
  if (!ex.has['watchLiquidations']) return null
  for (const ref of refs) run.loop(`liquidations:${ref.symbol}`, 'stream', async () => handle(await run.abortable(ex.watchLiquidations(ref.symbol))))
  return stream
}
