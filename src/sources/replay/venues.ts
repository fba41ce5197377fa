// What the replay knows about each venue's wire protocol: which request parameters only move the time window or
// the page (ignored when matching a call to a recorded response), which request loads each market type's markets,
// and how a WebSocket frame names its stream, so it reaches the connection that subscribed to it.
import type { ExchangeId, MarketType } from '../../domain/exchanges.js'

/** A request as the replay compares it: method, path and its parameters (query, or a JSON body flattened). */
export interface RequestKey {
  method: string
  path: string
  /** name -> value; nested JSON body fields as dotted names (req.coin) */
  params: Map<string, string>
}

export interface VenueRules {
  /** parameter names (at any depth of a JSON body) that select a time window or a page, not the data */
  ignoredParams: ReadonlySet<string>
  /** requests whose answer is the venue's market list, per market type */
  marketsRequest: Partial<Record<MarketType, (k: RequestKey) => boolean>>
  /** the streams a frame belongs to (none: an acknowledgement, a pong, or nothing we can attribute) */
  frameStreams(frame: unknown): string[]
  /** the streams a message sent on a connection subscribes to */
  subscribedStreams(message: unknown): string[]
  /** what the venue answers to a sent message before any data, when CCXT waits for it */
  acknowledge?(message: unknown): unknown
}

type Dict = Record<string, unknown>
const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v)
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined)
const get = (k: RequestKey, name: string) => k.params.get(name)

// ---- binance: combined {stream, data} frames or raw events; SUBSCRIBE {params: ["btcusdt@aggTrade", ...]} ------

/** btcusdt@depth@100ms, btcusdt@depth20 -> btcusdt@depth: update speed and partial depth do not change which book it is */
function binanceStream(s: string): string {
  const [symbol, name] = s.split('@')
  return `${symbol}@${(name ?? '').replace(/^depth\d+$/, 'depth')}`
}

const BINANCE_EVENT_STREAM: Record<string, (d: Dict) => string | undefined> = {
  aggTrade: () => 'aggTrade',
  trade: () => 'trade',
  depthUpdate: () => 'depth',
  kline: (d) => (isDict(d['k']) ? `kline_${str(d['k']['i']) ?? ''}` : undefined),
  markPriceUpdate: () => 'markPrice',
  '24hrTicker': () => 'ticker',
  '24hrMiniTicker': () => 'miniTicker',
  bookTicker: () => 'bookTicker',
  forceOrder: () => 'forceOrder',
}

function binanceFrameStreams(frame: unknown): string[] {
  if (!isDict(frame)) return []
  if (typeof frame['stream'] === 'string') return [binanceStream(frame['stream'].toLowerCase())]
  const e = str(frame['e'])
  // a forceOrder event names its symbol inside the order object `o`
  const symbol = str(e === 'forceOrder' && isDict(frame['o']) ? frame['o']['s'] : frame['s'])?.toLowerCase()
  if (!symbol) return []
  // spot bookTicker frames carry no event type
  const suffix = e ? BINANCE_EVENT_STREAM[e]?.(frame) : 'b' in frame && 'a' in frame && 'u' in frame ? 'bookTicker' : undefined
  // subscriptions are compared lower-cased (btcusdt@aggTrade is subscribed as btcusdt@aggtrade): so is a raw event's stream
  return suffix ? [binanceStream(`${symbol}@${suffix}`.toLowerCase())] : []
}

// ---- bybit: {topic: "orderbook.200.BTCUSDT"}; {op: "subscribe", args: ["publicTrade.BTCUSDT"]} ----------------

/** channel and symbol: orderbook.1000.BTCUSDT and orderbook.200.BTCUSDT are the same book at another depth */
function bybitStream(topic: string): string {
  const parts = topic.split('.')
  return parts.length > 1 ? `${parts[0]}.${parts[parts.length - 1]}` : topic
}

// ---- okx: {arg: {channel, instId}}; {op: "subscribe", args: [{channel, instId}]} ------------------------------

function okxStream(arg: unknown): string | undefined {
  if (!isDict(arg)) return undefined
  const channel = str(arg['channel'])
  if (!channel) return undefined
  // books, books5, books-l2-tbt, bbo-tbt: the same book
  const family = channel.startsWith('books') || channel.startsWith('bbo') ? 'books' : channel
  return `${family}:${str(arg['instId']) ?? str(arg['instFamily']) ?? str(arg['instType']) ?? ''}`
}

// ---- hyperliquid: {channel, data}; {method: "subscribe", subscription: {type, coin}} ---------------------------

function hyperliquidFrameStreams(frame: unknown): string[] {
  if (!isDict(frame)) return []
  const channel = str(frame['channel'])
  const data = frame['data']
  if (!channel || channel === 'subscriptionResponse' || channel === 'pong' || channel === 'error') return []
  const coin = Array.isArray(data) ? str(isDict(data[0]) ? data[0]['coin'] : undefined) : isDict(data) ? (str(data['coin']) ?? str(data['s'])) : undefined
  const type = channel === 'candle' ? 'candle' : channel
  return [`${type}:${coin ?? ''}`]
}

// ---- dydx: {type: "channel_data" | "subscribed" | "channel_batch_data", channel, id} --------------------------

const DYDX_DATA = new Set(['subscribed', 'channel_data', 'channel_batch_data'])

export const VENUE_RULES: Record<ExchangeId, VenueRules> = {
  binance: {
    ignoredParams: new Set(['startTime', 'endTime', 'limit', 'fromId', 'timestamp', 'recvWindow']),
    marketsRequest: {
      perp: (k) => k.path === '/fapi/v1/exchangeInfo',
      spot: (k) => k.path === '/api/v3/exchangeInfo',
    },
    frameStreams: (f) => binanceFrameStreams(isDict(f) && isDict(f['data']) && typeof f['stream'] !== 'string' ? f['data'] : f),
    subscribedStreams: (m) =>
      isDict(m) && m['method'] === 'SUBSCRIBE' && Array.isArray(m['params']) ? m['params'].filter((p): p is string => typeof p === 'string').map((p) => binanceStream(p.toLowerCase())) : [],
    // CCXT fetches the depth snapshot only once the venue acknowledged the subscription
    acknowledge: (m) => (isDict(m) && m['method'] === 'SUBSCRIBE' ? { result: null, id: m['id'] } : undefined),
  },
  bybit: {
    // status: CCXT asks for the Trading and the PreLaunch instrument lists separately; a recording holding one list
    // answers both (CCXT's market map collapses the duplicates)
    ignoredParams: new Set(['start', 'end', 'startTime', 'endTime', 'limit', 'cursor', 'status']),
    marketsRequest: {
      perp: (k) => k.path === '/v5/market/instruments-info' && get(k, 'category') === 'linear',
      spot: (k) => k.path === '/v5/market/instruments-info' && get(k, 'category') === 'spot',
    },
    frameStreams: (f) => (isDict(f) && typeof f['topic'] === 'string' ? [bybitStream(f['topic'])] : []),
    subscribedStreams: (m) => (isDict(m) && m['op'] === 'subscribe' && Array.isArray(m['args']) ? m['args'].filter((a): a is string => typeof a === 'string').map(bybitStream) : []),
  },
  okx: {
    ignoredParams: new Set(['after', 'before', 'begin', 'end', 'limit', 'sz']),
    marketsRequest: {
      perp: (k) => k.path === '/api/v5/public/instruments' && get(k, 'instType') === 'SWAP',
      spot: (k) => k.path === '/api/v5/public/instruments' && get(k, 'instType') === 'SPOT',
    },
    frameStreams: (f) => {
      // event frames (subscribe acks, errors) carry an arg too
      if (!isDict(f) || 'event' in f) return []
      const s = okxStream(f['arg'])
      return s ? [s] : []
    },
    subscribedStreams: (m) =>
      isDict(m) && m['op'] === 'subscribe' && Array.isArray(m['args']) ? m['args'].map(okxStream).filter((s): s is string => s !== undefined) : [],
  },
  hyperliquid: {
    ignoredParams: new Set(['startTime', 'endTime']),
    marketsRequest: { perp: (k) => k.path === '/info' && get(k, 'type') === 'metaAndAssetCtxs' },
    frameStreams: hyperliquidFrameStreams,
    subscribedStreams: (m) => {
      if (!isDict(m) || m['method'] !== 'subscribe' || !isDict(m['subscription'])) return []
      const s = m['subscription']
      return [`${str(s['type']) ?? ''}:${str(s['coin']) ?? ''}`]
    },
  },
  dydx: {
    ignoredParams: new Set([
      'limit',
      'page',
      'createdBeforeOrAt',
      'createdBeforeOrAtHeight',
      'createdOnOrAfter',
      'createdOnOrAfterHeight',
      'effectiveBeforeOrAt',
      'effectiveBeforeOrAtHeight',
      'fromISO',
      'toISO',
    ]),
    marketsRequest: { perp: (k) => k.path === '/v4/perpetualMarkets' },
    frameStreams: (f) => (isDict(f) && DYDX_DATA.has(str(f['type']) ?? '') && typeof f['channel'] === 'string' ? [`${f['channel']}:${str(f['id']) ?? ''}`] : []),
    subscribedStreams: (m) => (isDict(m) && m['type'] === 'subscribe' && typeof m['channel'] === 'string' ? [`${m['channel']}:${str(m['id']) ?? ''}`] : []),
  },
}
