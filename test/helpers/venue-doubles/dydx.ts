// dYdX v4 indexer double: GET /v4/... and the /v4/ws streams.
//
// Rules it enforces, with their sources (dydxprotocol/v4-documentation @3e475b7: indexer-client/http/markets/*.mdx and
// concepts/trading/limits/rate-limits.mdx; the indexer's comlink config; CCXT 4.5.84 js/src/dydx.js and pro/dydx.js):
// - "Indexer calls are rate limited per IP at a 100 requests / 10 sec rate"; over it HTTP 429 with the indexer's error
//   envelope {"errors":[{"msg":…}]} (windows of 10 s on the double's clock).
// - candles/perpetualMarkets/{ticker}: resolution 1MIN, 5MINS, 15MINS, 30MINS, 1HOUR; limit at most API_LIMIT_V4
//   (comlink's default 1000, which CCXT clamps to; older comlink defaulted to 100), fromISO/toISO inclusive, the newest
//   `limit` candles of the range, newest first; each candle {startedAt, ticker, resolution, low, high, open, close,
//   baseTokenVolume, usdVolume, trades, startingOpenInterest, orderbookMidPriceOpen, orderbookMidPriceClose}
//   (fixtures dydx/candles.json): startingOpenInterest (one side, coins) is the open-interest history; no taker split.
//   A limit past the maximum is a 400 naming the parameter.
// - historicalFunding/{ticker}: limit as above, effectiveBeforeOrAt (ISO) inclusive, newest first; hourly rows
//   {ticker, rate, price, effectiveAtHeight, effectiveAt} (fixtures historical_funding.json).
// - perpetualMarkets (fixtures perpetual_markets.json, live oraclePrice / openInterest / nextFundingRate), trades,
//   orderbooks (at most 100 levels a side).
// - Streams on /v4/ws: {"type":"connected"} first; {"type":"subscribe","channel":"v4_trades"|"v4_orderbook","id":ticker,
//   "batched"?} → {"type":"subscribed", contents: the current trades / book}, then "channel_data" (or
//   "channel_batch_data" when batched) frames; book updates [[price, size]] with "0" deleting; trades of type
//   LIQUIDATED are liquidations (about one trade in 40 here).
// - Refusal: 403 with the indexer's error envelope (its geo-block), 451 likewise.
import type { WebSocket } from 'ws'
import { venueFixture, renameCoin } from './fixtures.js'
import { createHistory, DAY, decimalsOf, HOUR, MINUTE, type HistoryData, type MarketSpec, type Trade } from './history.js'
import { WindowCounter } from './limits.js'
import type { DoubleRequest, Fault, Reply, VenueBehaviour } from './server.js'
import { fixed, freshTrades, inHole, intParam, LiveBook, send, StreamCursor, type VenueOptions } from './venue-kit.js'

type Raw = Record<string, unknown>
export const DYDX_LIMITS = { requestsPer10s: 100, maxLimit: 1000, bookLevels: 100 } as const
const RESOLUTIONS: Record<string, number> = { '1MIN': MINUTE, '5MINS': 5 * MINUTE, '15MINS': 15 * MINUTE, '30MINS': 30 * MINUTE, '1HOUR': HOUR }
const iso = (ms: number) => new Date(ms).toISOString()
const trim = (x: number, d: number) => String(Number(x.toFixed(d)))
/** a trade the double marks as a liquidation (dYdX trades of type LIQUIDATED) */
const liquidated = (t: Trade) => t.id % 40 === 7

interface Market {
  coin: string
  ticker: string
  spec: MarketSpec
  pd: number
  sd: number
}

export function dydxVenue(opts: VenueOptions): { behaviour: VenueBehaviour; history: HistoryData } {
  const { now } = opts
  const started = now()
  const recorded = venueFixture<{ result: { markets: Record<string, Raw> } }>('dydx/perpetual_markets.json').result.markets
  const byCoin = new Map(Object.values(recorded).map((m) => [String(m['ticker']).replace(/-USD$/, ''), m]))
  const coins = opts.coins ?? [...byCoin.keys()]
  const rows = new Map<string, Raw>()
  const markets = new Map<string, Market>()
  const specs: Record<string, { perp: MarketSpec }> = {}
  for (const coin of coins) {
    let row = byCoin.get(coin)
    if (!row) {
      row = renameCoin(byCoin.get('BTC')!, 'BTC', coin)
      const p = createHistory({ venue: 'dydx', seed: 0, now: () => started, markets: {} }).price(coin, 'perp', started)
      row['tickSize'] = String(10 ** (Math.floor(Math.log10(p)) - 4))
    }
    const ticker = String(row['ticker'])
    rows.set(ticker, row)
    const spec = { tick: Number(row['tickSize']), lot: Number(row['stepSize']), listedAt: opts.listedAt?.[coin] ?? started - 400 * DAY }
    markets.set(ticker, { coin, ticker, spec, pd: decimalsOf(spec.tick), sd: decimalsOf(spec.lot) })
    specs[coin] = { perp: spec }
  }
  const fundingHours = Object.fromEntries(coins.map((c) => [c, opts.fundingIntervalHours?.[c] ?? 1]))
  const history = createHistory({ venue: 'dydx', seed: opts.seed, now, markets: specs, fundingIntervalHours: fundingHours })
  const err = (status: number, msg: string, param?: string, value?: string): Reply => ({ status, body: { errors: [{ ...(value !== undefined ? { value } : {}), msg, ...(param ? { param, location: 'query' } : {}) }] } })
  const isoParam = (q: URLSearchParams, name: string): number | undefined | null => {
    const v = q.get(name)
    if (v === null) return undefined
    const t = Date.parse(v)
    return Number.isFinite(t) ? t : null
  }
  const limitOf = (q: URLSearchParams): number | Reply => {
    const l = intParam(q, 'limit') ?? DYDX_LIMITS.maxLimit
    return Number.isNaN(l) || l < 1 || l > DYDX_LIMITS.maxLimit ? err(400, `limit must be a positive integer that is not greater than max: ${DYDX_LIMITS.maxLimit}`, 'limit', q.get('limit') ?? '') : l
  }

  function candles(m: Market, req: DoubleRequest): Reply {
    const q = req.query
    const step = RESOLUTIONS[q.get('resolution') ?? '']
    if (!step) return err(400, 'resolution must be a valid Candle Resolution, one of 1MIN,5MINS,15MINS,30MINS,1HOUR,4HOURS,1DAY', 'resolution', q.get('resolution') ?? '')
    const limit = limitOf(q)
    if (typeof limit !== 'number') return limit
    const from = isoParam(q, 'fromISO')
    const to = isoParam(q, 'toISO')
    if (from === null) return err(400, 'fromISO must be a valid ISO string', 'fromISO')
    if (to === null) return err(400, 'toISO must be a valid ISO string', 'toISO')
    const holes = opts.holes(req.path)
    const first = Math.max(Math.ceil((from ?? 0) / step) * step, Math.ceil(m.spec.listedAt / step) * step)
    const out: Raw[] = []
    for (let t0 = Math.floor(Math.min(to ?? now(), now()) / step) * step; t0 >= first && out.length < limit; t0 -= step) {
      const cs = history.candles(m.coin, 'perp', t0, t0 + step).filter((c) => !inHole(holes, c.openTime))
      if (cs.length === 0) continue
      const midOpen = history.price(m.coin, 'perp', t0)
      const midClose = history.price(m.coin, 'perp', Math.min(t0 + step, now()))
      out.push({
        startedAt: iso(t0),
        ticker: m.ticker,
        resolution: q.get('resolution'),
        low: trim(Math.min(...cs.map((c) => c.low)), m.pd),
        high: trim(Math.max(...cs.map((c) => c.high)), m.pd),
        open: trim(cs[0]!.open, m.pd),
        close: trim(cs.at(-1)!.close, m.pd),
        baseTokenVolume: trim(cs.reduce((a, c) => a + c.volume, 0), m.sd),
        usdVolume: trim(cs.reduce((a, c) => a + c.quoteVolume, 0), 4),
        trades: cs.reduce((a, c) => a + c.trades, 0),
        startingOpenInterest: trim(history.openInterestAt(m.coin, t0), m.sd),
        orderbookMidPriceOpen: trim(midOpen, m.pd + 2),
        orderbookMidPriceClose: trim(midClose, m.pd + 2),
      })
    }
    return { status: 200, body: { candles: out } }
  }

  function historicalFunding(m: Market, req: DoubleRequest): Reply {
    const limit = limitOf(req.query)
    if (typeof limit !== 'number') return limit
    const before = isoParam(req.query, 'effectiveBeforeOrAt')
    if (before === null) return err(400, 'effectiveBeforeOrAt must be a valid ISO string', 'effectiveBeforeOrAt')
    const upTo = Math.min(before ?? now(), now())
    const holes = opts.holes(req.path)
    const list = history
      .funding(m.coin, upTo - (limit + 1) * fundingHours[m.coin]! * HOUR, upTo + 1)
      .filter((f) => !inHole(holes, f.ts))
      .reverse()
      .slice(0, limit)
      .map((f) => ({ ticker: m.ticker, rate: String(f.rate), price: trim(f.markPrice, m.pd + 4), effectiveAtHeight: String(Math.floor(f.ts / 1000)), effectiveAt: iso(f.ts) }))
    return { status: 200, body: { historicalFunding: list } }
  }

  const books = new Map<string, LiveBook>()
  const liveBook = (m: Market) => {
    let b = books.get(m.ticker)
    if (!b) books.set(m.ticker, (b = new LiveBook(history, m.coin, 'perp', DYDX_LIMITS.bookLevels, now())))
    return b
  }
  const tradeRow = (m: Market, x: Trade) => ({ id: x.id.toString(16).padStart(24, '0'), side: x.buy ? 'BUY' : 'SELL', size: fixed(x.size, m.sd), price: fixed(x.price, m.pd), type: liquidated(x) ? 'LIQUIDATED' : 'LIMIT', createdAt: iso(x.ts), createdAtHeight: String(Math.floor(x.ts / 1000)) })

  function perpetualMarkets(): Raw {
    const t = now()
    const out: Record<string, Raw> = {}
    for (const m of markets.values()) {
      const day = history.candles(m.coin, 'perp', t - DAY + MINUTE, t + 1)
      const price = history.price(m.coin, 'perp', t)
      out[m.ticker] = {
        ...rows.get(m.ticker),
        oraclePrice: trim(price, m.pd + 4),
        priceChange24H: trim(price - (day[0]?.open ?? price), m.pd + 4),
        volume24H: trim(day.reduce((a, c) => a + c.quoteVolume, 0), 4),
        trades24H: day.reduce((a, c) => a + c.trades, 0),
        nextFundingRate: String(history.predictedFunding(m.coin, t).rate),
        openInterest: trim(history.openInterestAt(m.coin, t), m.sd),
      }
    }
    return { markets: out }
  }

  function route(req: DoubleRequest): Reply | null {
    const p = req.path
    if (p === '/v4/perpetualMarkets') return { status: 200, body: perpetualMarkets() }
    if (p === '/v4/height') return { status: 200, body: { height: String(Math.floor(now() / 1000)), time: iso(now()) } }
    if (p === '/v4/time') return { status: 200, body: { iso: iso(now()), epoch: now() / 1000 } }
    const m = /^\/v4\/(candles\/perpetualMarkets|historicalFunding|trades\/perpetualMarket|orderbooks\/perpetualMarket)\/([^/]+)$/.exec(p)
    if (!m) return null
    const market = markets.get(decodeURIComponent(m[2]!))
    if (!market) return err(404, 'market not found')
    switch (m[1]) {
      case 'candles/perpetualMarkets':
        return candles(market, req)
      case 'historicalFunding':
        return historicalFunding(market, req)
      case 'trades/perpetualMarket': {
        const limit = limitOf(req.query)
        if (typeof limit !== 'number') return limit
        const trades = history.trades(market.coin, 'perp', now() - 10 * MINUTE, now() + 1).slice(-limit).reverse()
        return { status: 200, body: { trades: trades.map((x) => tradeRow(market, x)) } }
      }
      default: {
        const b = liveBook(market).book
        const lv = (ls: Array<[number, number]>) => ls.map(([px, s]) => ({ price: fixed(px, market.pd), size: fixed(s, market.sd) }))
        return { status: 200, body: { bids: lv(b.bids), asks: lv(b.asks) } }
      }
    }
  }

  const window = new WindowCounter(10_000, DYDX_LIMITS.requestsPer10s, now)
  const tooMany = (): Reply => ({ status: 429, body: { errors: [{ msg: 'Too many requests, please try again later.' }] } })
  const behaviour: VenueBehaviour = {
    handle(req) {
      if (req.method !== 'GET' || !req.path.startsWith('/v4/')) return null
      if (window.add(1).over) return tooMany()
      return route(req)
    },
    notFound: () => ({ status: 404, body: { errors: [{ msg: 'Not Found' }] } }),
    faultReply(f: Exclude<Fault, { kind: 'down' | 'hole' }>) {
      switch (f.kind) {
        case 'rate_limit':
        case 'ban418':
        case 'bybit10006':
          return tooMany()
        case 'refuse':
          return { status: f.status, body: { errors: [{ msg: 'Because you appear to be a resident of, or using a VPN from, a restricted jurisdiction, you are not able to access this service.', code: 'GEOBLOCKED' }] } }
        case 'fail':
          return { status: f.status ?? 503, body: { errors: [{ msg: 'Internal Server Error' }] } }
      }
    },
    connection: (ws) => streams.connect(ws),
    push: () => streams.push(),
  }

  // ---- streams --------------------------------------------------------------------------------
  const streams = (() => {
    interface Sub {
      channel: string
      id: string
      batched: boolean
    }
    interface Client {
      ws: WebSocket
      conn: string
      messageId: number
      subs: Map<string, Sub>
      cursor: StreamCursor
    }
    const clients = new Set<Client>()
    let n = 0
    const frame = (c: Client, type: string, s: Sub, contents: unknown, version = '1.0.0') => send(c.ws, { type, connection_id: c.conn, message_id: ++c.messageId, channel: s.channel, id: s.id, contents, ...(type === 'subscribed' ? {} : { version }) })
    const lv = (m: Market, ls: Array<[number, number]>, objects: boolean) => ls.map(([px, s]) => (objects ? { price: fixed(px, m.pd), size: fixed(s, m.sd) } : [fixed(px, m.pd), s === 0 ? '0' : fixed(s, m.sd)]))
    return {
      connect(ws: WebSocket) {
        const c: Client = { ws, conn: `double-${++n}`, messageId: 0, subs: new Map(), cursor: new StreamCursor() }
        clients.add(c)
        ws.on('close', () => clients.delete(c))
        send(ws, { type: 'connected', connection_id: c.conn, message_id: 0 })
        ws.on('message', (data) => {
          let msg: { type?: string; channel?: string; id?: string; batched?: boolean }
          try {
            msg = JSON.parse(String(data)) as typeof msg
          } catch {
            return send(ws, { type: 'error', message: `Invalid message: could not parse`, connection_id: c.conn, message_id: ++c.messageId })
          }
          const key = `${msg.channel}:${msg.id}`
          if (msg.type === 'unsubscribe') {
            c.subs.delete(key)
            return send(ws, { type: 'unsubscribed', connection_id: c.conn, message_id: ++c.messageId, channel: msg.channel, id: msg.id })
          }
          const m = markets.get(msg.id ?? '')
          if (msg.type !== 'subscribe' || !m || (msg.channel !== 'v4_trades' && msg.channel !== 'v4_orderbook'))
            return send(ws, { type: 'error', message: `Invalid subscribe message: channel ${String(msg.channel)} id ${String(msg.id)}`, connection_id: c.conn, message_id: ++c.messageId })
          const s: Sub = { channel: msg.channel, id: msg.id!, batched: msg.batched === true }
          c.subs.set(key, s)
          c.cursor.start(key, now())
          if (s.channel === 'v4_trades') frame(c, 'subscribed', s, { trades: history.trades(m.coin, 'perp', now() - MINUTE, now() + 1).slice(-20).reverse().map((x) => tradeRow(m, x)) })
          else {
            const b = liveBook(m).book
            frame(c, 'subscribed', s, { bids: lv(m, b.bids, true), asks: lv(m, b.asks, true) })
          }
        })
      },
      push() {
        const t = now()
        for (const m of markets.values()) {
          const followers = [...clients].filter((c) => c.subs.has(`v4_orderbook:${m.ticker}`))
          if (followers.length === 0) continue
          const d = liveBook(m).advance(t)
          if (!d) continue
          for (const c of followers) {
            const s = c.subs.get(`v4_orderbook:${m.ticker}`)!
            const update = { ...(d.bids.length ? { bids: lv(m, d.bids, false) } : {}), ...(d.asks.length ? { asks: lv(m, d.asks, false) } : {}) }
            if (s.batched) frame(c, 'channel_batch_data', s, [update])
            else frame(c, 'channel_data', s, update)
          }
        }
        for (const c of clients)
          for (const [key, s] of c.subs) {
            if (s.channel !== 'v4_trades') continue
            const m = markets.get(s.id)!
            const trades = freshTrades(history, c.cursor, key, m.coin, 'perp', t)
            if (trades.length) frame(c, 'channel_data', s, { trades: trades.reverse().map((x) => tradeRow(m, x)) }, '2.1.0')
          }
      },
    }
  })()
  return { behaviour, history }
}
