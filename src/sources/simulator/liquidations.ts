// Simulated liquidations and positioning ratios, consistent with the simulator's own price path and positions
// (docs/simulator.md#liquidations). Shared by history and live; a minute's events are a function of
// (seed, market, minute) only.
//   - Liquidations: what the market's positions (positions.ts: the liquidation model's leverage mix and position
//     sizes on the venue's tiers, opened by the venue's open-interest rises, closed by its falls) lose to the
//     minute's move, in one order per liquidated group up to MAX_ORDERS, at prices near the minute's path. A cascade's
//     jump liquidates what its range reaches; its open-interest drop beyond that is closing.
//   - Hyperliquid publishes no liquidation feed, so none is emitted for it (as on the real venue).
//   - Positioning: every 5 minutes the CEXs publish the share of long accounts (Binance, Bybit, OKX) and Binance
//     the long share of its top traders' positions, both leaning with the crowd's bias (tanh) plus slow noise.
import { MINUTE_MS } from '../../domain/time.js'
import type { LiquidationEvent, MarketEvent, PositioningEvent, PositioningKind } from '../../domain/events.js'
import { hash2, vnoise, type Rng } from './rng.js'
import { roundTo } from './samples.js'
import type { SimMarket } from './markets.js'
import type { PricePath } from './price-path.js'
import { hourIndex } from './slow-path.js'
import type { SimPositions } from './positions.js'

/** most orders one side of one minute is split into */
const MAX_ORDERS = 8
const POSITIONING_PERIOD_MS = 5 * MINUTE_MS
const LIQ_SALT = 0x6c697164 // 'liqd'

/** which positioning series each venue publishes */
const POSITIONING_KINDS: Partial<Record<SimMarket['exchange'], readonly PositioningKind[]>> = {
  binance: ['account', 'top_position'],
  bybit: ['account'],
  okx: ['account'],
}

/**
 * The liquidation orders and positioning samples of perp market mk in minute m, ts ascending, appended to out.
 * `i` is the minute's index in the hour (path.prepare(m, mk) done by the caller).
 */
export function sideEventsOfMinute(path: PricePath, positions: SimPositions, mk: SimMarket, m: number, i: number, rng: Rng, out: MarketEvent[]): void {
  if (!mk.isPerp) return
  const start = out.length
  if (m % POSITIONING_PERIOD_MS === 0) for (const kind of POSITIONING_KINDS[mk.exchange] ?? []) out.push(positioning(path, mk, m, kind))
  if (mk.exchange !== 'hyperliquid') liquidations(path, positions, mk, m, i, rng, out)
  if (out.length - start > 1) {
    const mine = out.splice(start).sort((a, b) => a.ts - b.ts)
    out.push(...mine)
  }
}

function liquidations(path: PricePath, positions: SimPositions, mk: SimMarket, m: number, i: number, rng: Rng, out: MarketEvent[]): void {
  const { long, short } = positions.minute(mk, m)
  if (!(long.coins > 0) && !(short.coins > 0)) return
  const ch = path.hours[mk.coinIndex]!
  const f0 = ch.fair[i]!
  const f1 = ch.fair[i + 1]!
  rng.reseed(hash2(mk.tradeKey ^ LIQ_SALT, m / MINUTE_MS))
  const prefix = `${m / MINUTE_MS}-Q`
  let n = 0
  const emit = (coins: number, side: 'long' | 'short', orders: number) => {
    // the parts of an order split: uneven (exponential weights), each at a price near the minute's path
    const w = Array.from({ length: orders }, () => rng.exp() + 0.05)
    const sum = w.reduce((a, b) => a + b, 0)
    for (const wi of w) {
      const frac = rng.next()
      const fair = f0 + (f1 - f0) * frac
      const mid = fair * (mk.rel[i]! + (mk.rel[i + 1]! - mk.rel[i]!) * frac)
      // a liquidation sells into the bids (longs) or buys the asks (shorts), a little through the mid
      const price = roundTo(mid * (side === 'long' ? 1 - 4e-4 * rng.next() : 1 + 4e-4 * rng.next()), mk.tickInv)
      const size = roundTo((coins * wi) / sum, mk.lotInv)
      if (!(size > 0 && price > 0)) continue
      const ev: LiquidationEvent = {
        type: 'liquidation',
        exchange: mk.exchange,
        coin: mk.coin,
        marketType: 'perp',
        ts: m + Math.floor(frac * MINUTE_MS),
        id: prefix + n++,
        side,
        price,
        size,
        usd: price * size,
      }
      out.push(ev)
    }
  }
  if (long.coins > 0) emit(long.coins, 'long', Math.min(MAX_ORDERS, long.groups))
  if (short.coins > 0) emit(short.coins, 'short', Math.min(MAX_ORDERS, short.groups))
}

/** the long share a venue publishes at ts: 0.5 + a·tanh(2·bias) + slow noise, clamped to [0.05, 0.95] */
function positioning(path: PricePath, mk: SimMarket, ts: number, kind: PositioningKind): PositioningEvent {
  const p = path.paths[mk.coinIndex]!
  const h = hourIndex(ts)
  const bias = p.bias[h]!
  const lean = kind === 'account' ? 0.2 : 0.3
  const noise = (kind === 'account' ? 0.03 : 0.05) * vnoise(hash2(mk.oiKey, kind === 'account' ? 1 : 2), ts, 2 * 3_600_000)
  const long = Math.min(0.95, Math.max(0.05, 0.5 + lean * Math.tanh(2 * bias) + noise))
  const longShare = Math.round(long * 1e4) / 1e4
  const shortShare = Math.round((1 - longShare) * 1e4) / 1e4
  return {
    type: 'positioning',
    exchange: mk.exchange,
    coin: mk.coin,
    marketType: 'perp',
    ts,
    kind,
    longShare,
    shortShare,
    ratio: Math.round((longShare / shortShare) * 1e4) / 1e4,
    periodMs: POSITIONING_PERIOD_MS,
  }
}
