// What the replay knows about each venue's REST history (docs/recordings.md "History"): the endpoints the history
// fetchers page through (from the venues' API docs), the time window a request asks for (its window parameters,
// each venue's own names and units), the times of a page's rows, and what the venue answers when it has nothing.
// A history call is answered from the recorded page whose window covers it (http-match.ts).
import type { ExchangeId } from '../../domain/exchanges.js'
import type { RequestKey } from './venues.js'

/** [from, to) in Unix ms; an open side is ±Infinity */
export interface TimeWindow {
  from: number
  to: number
}

/** a side of the window a request gives, null where it gives none */
export interface AskedWindow {
  from: number | null
  to: number | null
}

export interface HistoryEndpoint {
  /** the path, or a pattern for paths that carry the market (dYdX) */
  path: string | RegExp
  /** Hyperliquid's POST /info: the body's `type` */
  type?: string
  /** the venue's answer with no rows, shaped as its answer with rows (CCXT parses it as an empty page) */
  empty(k: RequestKey): string
}

export interface HistoryRules {
  endpoints: readonly HistoryEndpoint[]
  /** the window a request's parameters ask for; null when it names no time at all (a poll of the newest rows) */
  window(k: RequestKey): AskedWindow | null
  /** the request pages by cursor: its window parameters do not say which part of the window this page holds */
  cursor(k: RequestKey): boolean
  /** the rows of an answer's body */
  rows(body: unknown): unknown[]
}

type Dict = Record<string, unknown>
const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v)
/** the last segment of a dotted name: Hyperliquid's req.startTime is a startTime */
const leaf = (name: string) => name.slice(name.lastIndexOf('.') + 1)

const ms = (v: string | undefined): number | null => {
  if (v === undefined || v.trim() === '') return null
  const n = Number(v)
  return Number.isFinite(n) ? n : null
}
const iso = (v: string | undefined): number | null => {
  if (v === undefined || v.trim() === '') return null
  const t = Date.parse(v)
  return Number.isFinite(t) ? t : null
}

/** a parameter by its leaf name (at any depth of a JSON body) */
function param(k: RequestKey, name: string): string | undefined {
  for (const [key, v] of k.params) if (leaf(key) === name) return v
  return undefined
}

/**
 * A window from named parameters: `from` and `to` parameters are inclusive bounds (the venues' startTime/endTime),
 * `after`/`before` exclusive ones (OKX: rows older than `after`, newer than `before`), read as ms or ISO 8601.
 */
function windowOf(k: RequestKey, spec: { from?: string[]; to?: string[]; before?: string[]; after?: string[]; read?: (v: string | undefined) => number | null }): AskedWindow | null {
  const read = spec.read ?? ms
  const first = (names: string[] | undefined) => {
    for (const n of names ?? []) {
      const v = read(param(k, n))
      if (v !== null) return v
    }
    return null
  }
  const from = first(spec.from)
  const to = first(spec.to)
  const before = first(spec.before)
  const after = first(spec.after)
  const w: AskedWindow = { from: from ?? (before === null ? null : before + 1), to: to !== null ? to + 1 : after }
  return w.from === null && w.to === null ? null : w
}

const arrayRows = (body: unknown): unknown[] => (Array.isArray(body) ? body : [])

/** fields that hold a row's time, in the venues' payloads (ms numbers or strings, or ISO 8601 for dYdX) */
const TIME_FIELDS = ['timestamp', 'fundingTime', 'fundingRateTimestamp', 'openTime', 't', 'time', 'ts', 'startedAt', 'effectiveAt', 'createdAt']

/** a row's time: an array row's first element, an object row's time field */
export function rowTime(row: unknown): number | null {
  if (Array.isArray(row)) return ms(row[0] === undefined ? undefined : String(row[0]))
  if (!isDict(row)) return null
  for (const f of TIME_FIELDS) {
    const v = row[f]
    if (typeof v === 'number' && Number.isFinite(v)) return v
    if (typeof v === 'string') return ms(v) ?? iso(v)
  }
  return null
}

const BINANCE_EMPTY = () => '[]'

/** Bybit v5: {retCode, retMsg, result: {category, symbol, list}, retExtInfo, time} */
const bybitEmpty = (cursor: boolean) => (k: RequestKey) =>
  JSON.stringify({
    retCode: 0,
    retMsg: 'OK',
    result: { category: param(k, 'category') ?? 'linear', symbol: param(k, 'symbol') ?? '', list: [], ...(cursor ? { nextPageCursor: '' } : {}) },
    retExtInfo: {},
    time: 0,
  })

const OKX_EMPTY = () => JSON.stringify({ code: '0', msg: '', data: [] })

export const HISTORY_RULES: Record<ExchangeId, HistoryRules> = {
  // developers.binance.com: USD-M Kline/Candlestick Data, Open Interest Statistics, Get Funding Rate History, Long/Short
  // Ratio (global accounts, top traders' accounts and positions), Taker Buy/Sell Volume; spot Kline/Candlestick Data.
  // startTime and endTime in ms, both inclusive.
  binance: {
    endpoints: [
      '/fapi/v1/klines',
      '/api/v3/klines',
      '/futures/data/openInterestHist',
      '/fapi/v1/fundingRate',
      '/futures/data/globalLongShortAccountRatio',
      '/futures/data/topLongShortPositionRatio',
      '/futures/data/topLongShortAccountRatio',
      '/futures/data/takerlongshortRatio',
    ].map((path) => ({ path, empty: BINANCE_EMPTY })),
    window: (k) => windowOf(k, { from: ['startTime'], to: ['endTime'] }),
    cursor: () => false,
    rows: arrayRows,
  },
  // bybit-exchange.github.io/docs/v5/market: Get Kline (start, end), Get Open Interest (startTime, endTime, cursor),
  // Get Funding Rate History (startTime, endTime), Get Long Short Ratio (account-ratio: startTime, endTime, cursor);
  // ms, inclusive; rows in result.list, newest first.
  bybit: {
    endpoints: [
      { path: '/v5/market/kline', empty: bybitEmpty(false) },
      { path: '/v5/market/open-interest', empty: bybitEmpty(true) },
      { path: '/v5/market/funding/history', empty: bybitEmpty(false) },
      { path: '/v5/market/account-ratio', empty: bybitEmpty(true) },
    ],
    window: (k) => windowOf(k, { from: ['start', 'startTime'], to: ['end', 'endTime'] }),
    cursor: (k) => !!param(k, 'cursor'),
    rows: (b) => (isDict(b) && isDict(b['result']) && Array.isArray(b['result']['list']) ? b['result']['list'] : []),
  },
  // www.okx.com/docs-v5: Get candlesticks history, Get candlesticks, Get funding rate history (after: older than,
  // before: newer than, ms), Trading statistics' contract open interest history and long/short ratios (begin, end,
  // inclusive), Get liquidation orders (after, before); rows in data, newest first (liquidations: data[].details[]).
  okx: {
    endpoints: [
      '/api/v5/market/history-candles',
      '/api/v5/market/candles',
      '/api/v5/public/funding-rate-history',
      '/api/v5/rubik/stat/contracts/open-interest-history',
      '/api/v5/rubik/stat/contracts/long-short-account-ratio',
      '/api/v5/rubik/stat/contracts/long-short-account-ratio-contract',
      '/api/v5/rubik/stat/contracts/long-short-account-ratio-contract-top-trader',
      '/api/v5/rubik/stat/contracts/long-short-position-ratio-contract-top-trader',
      '/api/v5/public/liquidation-orders',
    ].map((path) => ({ path, empty: OKX_EMPTY })),
    window: (k) => windowOf(k, { from: ['begin'], to: ['end'], before: ['before'], after: ['after'] }),
    cursor: () => false,
    rows: (b) => {
      const data = isDict(b) && Array.isArray(b['data']) ? b['data'] : []
      // liquidation orders: one entry per instrument, its orders in details
      return data.flatMap((d) => (isDict(d) && Array.isArray(d['details']) ? d['details'] : [d]))
    },
  },
  // hyperliquid.gitbook.io (Info endpoint, perpetuals): candleSnapshot {req: {coin, interval, startTime, endTime}},
  // fundingHistory {coin, startTime, endTime}; ms, inclusive; rows {t, …} and {time, …}.
  hyperliquid: {
    endpoints: [
      { path: '/info', type: 'candleSnapshot', empty: () => '[]' },
      { path: '/info', type: 'fundingHistory', empty: () => '[]' },
    ],
    window: (k) => windowOf(k, { from: ['startTime'], to: ['endTime'] }),
    cursor: () => false,
    rows: arrayRows,
  },
  // docs.dydx.exchange (Indexer HTTP API): GET /v4/candles/perpetualMarkets/{ticker} (fromISO, toISO),
  // GET /v4/historicalFunding/{ticker} (effectiveBeforeOrAt), GET /v4/trades/perpetualMarket/{ticker}
  // (createdBeforeOrAt; liquidations are trades of type LIQUIDATED); ISO 8601, inclusive.
  dydx: {
    endpoints: [
      { path: /^\/v4\/candles\/perpetualMarkets\/[^/]+$/, empty: () => JSON.stringify({ candles: [] }) },
      { path: /^\/v4\/historicalFunding\/[^/]+$/, empty: () => JSON.stringify({ historicalFunding: [] }) },
      { path: /^\/v4\/trades\/perpetualMarket\/[^/]+$/, empty: () => JSON.stringify({ trades: [] }) },
    ],
    window: (k) => windowOf(k, { from: ['fromISO', 'createdOnOrAfter'], to: ['toISO', 'effectiveBeforeOrAt', 'createdBeforeOrAt'], read: iso }),
    cursor: () => false,
    rows: (b) => {
      if (!isDict(b)) return []
      const list = Object.values(b).find(Array.isArray)
      return list ?? []
    },
  },
}

/** the history endpoint a request is on, if any */
export function historyEndpoint(venue: ExchangeId, k: RequestKey): HistoryEndpoint | undefined {
  return HISTORY_RULES[venue].endpoints.find((e) => (typeof e.path === 'string' ? e.path === k.path : e.path.test(k.path)) && (e.type === undefined || k.params.get('type') === e.type))
}
