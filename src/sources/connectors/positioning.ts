// Long/short positioning the CEXs publish, polled at their own 5-minute period (docs/methodology.md#positioning):
//   - Binance USD-M GET /futures/data/globalLongShortAccountRatio (all accounts) and /futures/data/topLongShortPositionRatio
//     (the position sizes of the top 20 % of accounts by margin): [{symbol, longShortRatio, longAccount, shortAccount, timestamp}]
//   - Bybit GET /v5/market/account-ratio (category=linear, period=5min): result.list [{symbol, buyRatio, sellRatio, timestamp}],
//     the share of accounts holding longs and shorts
//   - OKX GET /api/v5/rubik/stat/contracts/long-short-account-ratio-contract (instId, period=5m): data [[ts, ratio]],
//     the ratio of accounts long to accounts short (the shares follow: long = ratio / (1 + ratio))
// The DEXs (Hyperliquid, dYdX) publish no such figures.
import type { Exchange } from 'ccxt'
import type { PositioningEvent, PositioningKind } from '../../domain/events.js'
import { callRaw } from './ccxt-access.js'
import type { MarketRef } from './mapping.js'
import type { ExchangeId } from '../../domain/exchanges.js'

const POSITIONING_PERIOD_MS = 5 * 60_000

type Raw = Record<string, unknown>
const num = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN
  return Number.isFinite(n) ? n : null
}

function event(ref: MarketRef, kind: PositioningKind, ts: number | null, longShare: number | null, shortShare: number | null, ratio: number | null): PositioningEvent | null {
  if (ts === null || longShare === null || shortShare === null || !(longShare >= 0 && shortShare > 0)) return null
  return { type: 'positioning', exchange: ref.exchange, coin: ref.coin, marketType: 'perp', ts, kind, longShare, shortShare, ratio: ratio ?? longShare / shortShare, periodMs: POSITIONING_PERIOD_MS }
}

/** Binance: the newest row of globalLongShortAccountRatio (kind account) or topLongShortPositionRatio (top_position) */
export function binancePositioning(ref: MarketRef, kind: PositioningKind, rows: unknown): PositioningEvent | null {
  const r = (Array.isArray(rows) ? (rows as Raw[]) : []).reduce<Raw | null>((a, b) => (a && num(a['timestamp'])! >= num(b['timestamp'])! ? a : b), null)
  return r ? event(ref, kind, num(r['timestamp']), num(r['longAccount']), num(r['shortAccount']), num(r['longShortRatio'])) : null
}

/** Binance: every row of a ratio endpoint, oldest first (the history backfill; the live poll keeps the newest) */
export function binancePositioningRows(ref: MarketRef, kind: PositioningKind, rows: unknown): PositioningEvent[] {
  return (Array.isArray(rows) ? (rows as Raw[]) : [])
    .map((r) => event(ref, kind, num(r['timestamp']), num(r['longAccount']), num(r['shortAccount']), num(r['longShortRatio'])))
    .filter((e): e is PositioningEvent => e !== null)
    .sort((a, b) => a.ts - b.ts)
}

/** Bybit: the newest row of account-ratio */
export function bybitPositioning(ref: MarketRef, body: unknown): PositioningEvent | null {
  const list = ((body as Raw | null)?.['result'] as Raw | undefined)?.['list']
  const r = (Array.isArray(list) ? (list as Raw[]) : []).reduce<Raw | null>((a, b) => (a && num(a['timestamp'])! >= num(b['timestamp'])! ? a : b), null)
  return r ? event(ref, 'account', num(r['timestamp']), num(r['buyRatio']), num(r['sellRatio']), null) : null
}

/** Bybit: every row of account-ratio, oldest first (the history backfill) */
export function bybitPositioningRows(ref: MarketRef, body: unknown): PositioningEvent[] {
  const list = ((body as Raw | null)?.['result'] as Raw | undefined)?.['list']
  return (Array.isArray(list) ? (list as Raw[]) : [])
    .map((r) => event(ref, 'account', num(r['timestamp']), num(r['buyRatio']), num(r['sellRatio']), null))
    .filter((e): e is PositioningEvent => e !== null)
    .sort((a, b) => a.ts - b.ts)
}

/** OKX: the newest [ts, ratio] of long-short-account-ratio-contract */
export function okxPositioning(ref: MarketRef, body: unknown): PositioningEvent | null {
  const data = (body as Raw | null)?.['data']
  const rows = (Array.isArray(data) ? data : []).filter((r): r is unknown[] => Array.isArray(r) && r.length >= 2)
  const r = rows.reduce<unknown[] | null>((a, b) => (a && num(a[0])! >= num(b[0])! ? a : b), null)
  return r ? okxRatioEvent(ref, r) : null
}

/** one [ts, ratio] row: the ratio of accounts long to accounts short, the shares following from it */
function okxRatioEvent(ref: MarketRef, r: unknown[]): PositioningEvent | null {
  const ratio = num(r[1])
  if (ratio === null || !(ratio >= 0)) return null
  const long = ratio / (1 + ratio)
  return event(ref, 'account', num(r[0]), long, 1 - long, ratio)
}

/** OKX: every [ts, ratio] row of long-short-account-ratio-contract, oldest first (the history backfill) */
export function okxPositioningRows(ref: MarketRef, body: unknown): PositioningEvent[] {
  const data = (body as Raw | null)?.['data']
  return (Array.isArray(data) ? data : [])
    .filter((r): r is unknown[] => Array.isArray(r) && r.length >= 2)
    .map((r) => okxRatioEvent(ref, r))
    .filter((e): e is PositioningEvent => e !== null)
    .sort((a, b) => a.ts - b.ts)
}

/** the positioning figures each venue publishes (the DEXs none) */
export function publishedPositioningKinds(exchange: ExchangeId): readonly PositioningKind[] {
  return exchange === 'binance' ? ['account', 'top_position'] : exchange === 'bybit' || exchange === 'okx' ? ['account'] : []
}

/**
 * The newest positioning figures of one perp market: one call per figure, each settled on its own, so a figure the
 * venue does not answer (an unlisted symbol, a failed call) does not withhold the others.
 */
export function positioningCalls(ex: Exchange, ref: MarketRef): Array<Promise<PositioningEvent | null>> {
  switch (ref.exchange) {
    case 'binance': {
      const q = { symbol: ref.id, period: '5m', limit: 2 }
      return [
        callRaw(ex, 'fapiDataGetGlobalLongShortAccountRatio', q).then((rows) => binancePositioning(ref, 'account', rows)),
        callRaw(ex, 'fapiDataGetTopLongShortPositionRatio', q).then((rows) => binancePositioning(ref, 'top_position', rows)),
      ]
    }
    case 'bybit':
      return [callRaw(ex, 'publicGetV5MarketAccountRatio', { category: 'linear', symbol: ref.id, period: '5min', limit: 2 }).then((b) => bybitPositioning(ref, b))]
    case 'okx':
      return [callRaw(ex, 'publicGetRubikStatContractsLongShortAccountRatioContract', { instId: ref.id, period: '5m', limit: 2 }).then((b) => okxPositioning(ref, b))]
    default:
      return []
  }
}

/** the figures of every market, the calls settled by `settle` (the connector's: partial failures are counted, not fatal) */
export async function positioningOf(ex: Exchange, refs: readonly MarketRef[], settle: (calls: Promise<unknown>[]) => Promise<void>): Promise<PositioningEvent[]> {
  const out: PositioningEvent[] = []
  await settle(
    refs.flatMap((r) => positioningCalls(ex, r)).map(async (call) => {
      const e = await call
      if (e) out.push(e)
    }),
  )
  return out
}
