// Bybit v5 double: linear perps and spot on one origin (/v5/market/*), streams on /v5/public/linear and /spot.
//
// Rules it enforces, with their sources (bybit-exchange/docs @072c197d, docs/v5/market/*.mdx and docs/v5/rate-limit;
// CCXT 4.5.84 js/src/bybit.js and pro/bybit.js):
// - IP limit: "600 requests within a 5-second window per IP"; past it "403, access too frequent" and the client
//   must "wait for at least 10 minutes" (the double bans for 10 minutes, 5-second windows on its clock).
//   retCode 10006 "Too many visits!" (the per-UID API limit, with X-Bapi-Limit, X-Bapi-Limit-Status and
//   X-Bapi-Limit-Reset-Timestamp) is what an injected rate_limit / bybit10006 fault answers, with HTTP 200 as Bybit does.
// - Envelope {retCode, retMsg, result, retExtInfo, time}; bad parameters retCode 10001 with HTTP 200.
// - kline: limit [1, 1000], default 200; list "sort in reverse by startTime" of 7 strings [start, open, high, low,
//   close, volume, turnover] (fixtures/exchanges/bybit/klines.json: prices without trailing zeros). start alone: from
//   the candle containing start forward (CCXT's note on issue 26736; start=9999&limit=1 is the first candle); end
//   alone or neither: the newest up to end; both: from start forward (the docs do not say; assumed).
// - open-interest: intervalTime 5min..1d, limit [1, 200] default 50, newest first, nextPageCursor
//   "lastid%3D…%26lasttime%3D<seconds>" (the docs' and the fixture's form) pages to older rows; data from the
//   symbol's launch; each row openInterest (both sides, since Bybit's 2026 change) and singleOpenInterest.
// - funding/history: limit [1, 200] default 200, newest first; "Passing only startTime returns an error", endTime
//   alone or neither: the newest up to it; rows {symbol, fundingRate, fundingRateTimestamp}.
// - account-ratio: period 5min..1d, limit [1, 500] default 50, cursor paging as open-interest, "earliest query start
//   time is July 20, 2020"; rows {symbol, buyRatio, sellRatio, timestamp}.
// - instruments-info (linear from fixtures/exchanges/bybit/instruments.json, spot from ccxt_markets.json's raw info),
//   tickers (the fields of fixtures tickers.json / ws_tickers.json, with singleOpenInterest), risk-limit, orderbook,
//   recent-trade, time.
// - Streams: {"op":"subscribe","args":[...]} → {"success":true,"ret_msg":"","conn_id":…,"op":"subscribe"};
//   orderbook.{depth}.{symbol} (a snapshot, then deltas; size "0" deletes), publicTrade.{symbol},
//   allLiquidation.{symbol} (S is the position side); {"op":"ping"} → ret_msg "pong". Frames as fixtures ws_*.json.
// - Refusal: 403 with CloudFront's country block page (what Bybit answers blocked countries); a 451 carries it too.
import type { WebSocket } from 'ws'
import type { MarketType } from '../../../src/domain/exchanges.js'
import { CLOUDFRONT_403 } from './binance.js'
import { venueFixture, renameCoin } from './fixtures.js'
import { createHistory, DAY, decimalsOf, FIVE_MINUTES, HOUR, MINUTE, type HistoryData, type MarketSpec } from './history.js'
import { WindowCounter } from './limits.js'
import type { DoubleRequest, Fault, Reply, VenueBehaviour } from './server.js'
import { fixed, freshTrades, inHole, intParam, liquidations, LiveBook, send, StreamCursor, type VenueOptions } from './venue-kit.js'

type Raw = Record<string, unknown>
export const BYBIT_LIMITS = { requestsPer5s: 600, banMs: 10 * MINUTE } as const
const ACCOUNT_RATIO_EARLIEST = Date.UTC(2020, 6, 20)
const PERIODS: Record<string, number> = { '5min': FIVE_MINUTES, '15min': 15 * MINUTE, '30min': 30 * MINUTE, '1h': HOUR, '4h': 4 * HOUR, '1d': DAY }
const KLINE: Record<string, number> = { '1': MINUTE, '3': 3 * MINUTE, '5': 5 * MINUTE, '15': 15 * MINUTE, '30': 30 * MINUTE, '60': HOUR }

interface Market {
  coin: string
  symbol: string
  type: MarketType
  spec: MarketSpec
  priceDecimals: number
  qtyDecimals: number
  fundingHours: number
}

/** Bybit's number strings in klines: the decimals, trailing zeros dropped */
const trim = (x: number, d: number) => String(Number(x.toFixed(d)))

export function bybitVenue(opts: VenueOptions): { behaviour: VenueBehaviour; history: HistoryData } {
  const { now } = opts
  const started = now()
  const linear = venueFixture<{ result: { list: Raw[] } }>('bybit/instruments.json').result.list
  const spots = Object.values(venueFixture<Record<string, { info: Raw; spot?: boolean }>>('bybit/ccxt_markets.json')).filter((m) => m.spot).map((m) => m.info)
  const recorded = new Map(linear.map((s) => [String(s['baseCoin']), s]))
  const coins = opts.coins ?? [...recorded.keys()]
  const perpRows: Raw[] = []
  const spotRows: Raw[] = []
  const markets = new Map<string, Market>()
  const specs: Record<string, Partial<Record<MarketType, MarketSpec>>> = {}
  const fundingHours: Record<string, number> = {}
  for (const coin of coins) {
    let row = recorded.get(coin)
    if (!row) {
      row = renameCoin(recorded.get('BTC')!, 'BTC', coin)
      const p = createHistory({ venue: 'bybit', seed: 0, now: () => started, markets: {} }).price(coin, 'perp', started)
      const tick = 10 ** (Math.floor(Math.log10(p)) - 4)
      ;(row['priceFilter'] as Raw)['tickSize'] = String(tick)
      ;(row['priceFilter'] as Raw)['minPrice'] = String(tick)
      row['priceScale'] = String(decimalsOf(tick))
    }
    if (opts.listedAt?.[coin] !== undefined) row['launchTime'] = String(opts.listedAt[coin])
    if (opts.fundingIntervalHours?.[coin] !== undefined) row['fundingInterval'] = opts.fundingIntervalHours[coin]! * 60
    perpRows.push(row)
    const tick = Number((row['priceFilter'] as Raw)['tickSize'])
    const lot = Number((row['lotSizeFilter'] as Raw)['qtyStep'])
    const spec = { tick, lot, listedAt: Number(row['launchTime']) }
    fundingHours[coin] = Number(row['fundingInterval']) / 60
    markets.set(`perp:${String(row['symbol'])}`, { coin, symbol: String(row['symbol']), type: 'perp', spec, priceDecimals: decimalsOf(tick), qtyDecimals: decimalsOf(lot), fundingHours: fundingHours[coin]! })
    specs[coin] = { perp: spec }
    const s = spots.find((x) => x['baseCoin'] === coin)
    if (s) {
      spotRows.push(s)
      const st = Number((s['priceFilter'] as Raw)['tickSize'])
      const sl = Number((s['lotSizeFilter'] as Raw)['basePrecision'])
      const sspec = { tick: st, lot: sl, listedAt: spec.listedAt }
      markets.set(`spot:${String(s['symbol'])}`, { coin, symbol: String(s['symbol']), type: 'spot', spec: sspec, priceDecimals: decimalsOf(st), qtyDecimals: decimalsOf(sl), fundingHours: 0 })
      specs[coin] = { ...specs[coin], spot: sspec }
    }
  }
  const history = createHistory({ venue: 'bybit', seed: opts.seed, now, markets: specs, fundingIntervalHours: fundingHours })
  const typeOf = (category: string | null): MarketType | null => (category === 'spot' ? 'spot' : category === 'linear' || category === null ? 'perp' : null)
  const market = (type: MarketType, symbol: string | null) => (symbol ? markets.get(`${type}:${symbol}`) : undefined)
  const ofType = (type: MarketType) => [...markets.values()].filter((m) => m.type === type)

  const ok = (result: unknown, headers: Record<string, string> = {}): Reply => ({ status: 200, headers, body: { retCode: 0, retMsg: 'OK', result, retExtInfo: {}, time: now() } })
  const bad = (msg: string): Reply => ({ status: 200, body: { retCode: 10001, retMsg: msg, result: {}, retExtInfo: {}, time: now() } })
  const tooManyVisits = (resetAt: number): Reply => ({
    status: 200,
    headers: { 'x-bapi-limit': '10', 'x-bapi-limit-status': '0', 'x-bapi-limit-reset-timestamp': String(resetAt) },
    body: { retCode: 10006, retMsg: 'Too many visits!', result: {}, retExtInfo: {}, time: now() },
  })

  // ---- history endpoints ----------------------------------------------------------------------
  function kline(req: DoubleRequest): Reply {
    const q = req.query
    const type = typeOf(q.get('category'))
    if (!type) return bad('params error: category invalid')
    const m = market(type, q.get('symbol'))
    if (!m) return bad('params error: symbol invalid')
    const step = KLINE[q.get('interval') ?? '']
    if (!step) return bad('params error: interval invalid')
    const limit = intParam(q, 'limit') ?? 200
    const start = intParam(q, 'start')
    const end = intParam(q, 'end')
    if (Number.isNaN(limit) || limit < 1 || limit > 1000) return bad('params error: limit invalid')
    if (Number.isNaN(start) || Number.isNaN(end)) return bad('params error: start or end invalid')
    const holes = opts.holes(req.path)
    const first = Math.max(Math.floor((start ?? 0) / step) * step, Math.ceil(m.spec.listedAt / step) * step)
    const last = Math.floor(Math.min(end ?? now(), now()) / step) * step
    const rows: string[][] = []
    const forward = start !== undefined
    for (let t0 = forward ? first : last; rows.length < limit && t0 >= first && t0 <= last; t0 += forward ? step : -step) {
      const cs = history.candles(m.coin, m.type, t0, t0 + step).filter((c) => !inHole(holes, c.openTime))
      if (cs.length === 0) continue
      rows.push([
        String(t0),
        trim(cs[0]!.open, m.priceDecimals),
        trim(Math.max(...cs.map((c) => c.high)), m.priceDecimals),
        trim(Math.min(...cs.map((c) => c.low)), m.priceDecimals),
        trim(cs.at(-1)!.close, m.priceDecimals),
        trim(cs.reduce((a, c) => a + c.volume, 0), m.qtyDecimals),
        trim(cs.reduce((a, c) => a + c.quoteVolume, 0), 4),
      ])
    }
    // newest first
    if (forward) rows.reverse()
    return ok({ symbol: m.symbol, category: q.get('category') ?? 'linear', list: rows })
  }

  /** newest-first rows of [from, to] paged by Bybit's cursor (lasttime: seconds of the oldest row served) */
  function cursorPage<T extends { ts: number }>(req: DoubleRequest, period: number, series: (from: number, to: number) => T[], defLimit: number, maxLimit: number, earliest: number) {
    const q = req.query
    const limit = intParam(q, 'limit') ?? defLimit
    const start = intParam(q, 'startTime')
    const end = intParam(q, 'endTime')
    if (Number.isNaN(limit) || limit < 1 || limit > maxLimit) return { error: bad('params error: limit invalid') }
    if (Number.isNaN(start) || Number.isNaN(end)) return { error: bad('params error: startTime or endTime invalid') }
    const cursor = q.get('cursor')
    let upTo = Math.min(end ?? now(), now())
    if (cursor) {
      const m = /lasttime(?:%3D|=)(\d+)/.exec(cursor)
      if (!m) return { error: bad('params error: cursor invalid') }
      upTo = Math.min(upTo, Number(m[1]) * 1000 - 1)
    }
    const from = Math.max(start ?? earliest, earliest)
    const holes = opts.holes(req.path)
    // read back from upTo until a page and one row more are in hand (holes thin a window out) or the range ends
    let windowFrom = upTo + 1
    let rows: T[] = []
    while (rows.length <= limit && windowFrom > from) {
      windowFrom = Math.max(from, windowFrom - (limit + 1 - rows.length) * period)
      rows = series(windowFrom, upTo + 1).filter((r) => !inHole(holes, r.ts)).reverse()
    }
    const page = rows.slice(0, limit)
    const oldest = page.at(-1)
    const more = rows.length > limit
    return { page, nextPageCursor: more && oldest ? `lastid%3D${Math.floor(oldest.ts / 1000)}%26lasttime%3D${Math.floor(oldest.ts / 1000)}` : '' }
  }

  function openInterest(req: DoubleRequest): Reply {
    const q = req.query
    const m = market('perp', q.get('symbol'))
    if (q.get('category') !== 'linear' || !m) return bad('params error: category or symbol invalid')
    const period = PERIODS[q.get('intervalTime') ?? '']
    if (!period) return bad('params error: intervalTime invalid')
    const r = cursorPage(req, period, (from, to) => history.openInterest(m.coin, from, to).filter((p) => p.ts % period === 0), 50, 200, m.spec.listedAt)
    if ('error' in r) return r.error!
    return ok({
      symbol: m.symbol,
      category: 'linear',
      list: r.page.map((p) => ({ openInterest: fixed(2 * p.openInterest, 8), singleOpenInterest: fixed(p.openInterest, 8), timestamp: String(p.ts) })),
      nextPageCursor: r.nextPageCursor,
    })
  }

  function accountRatio(req: DoubleRequest): Reply {
    const q = req.query
    const m = market('perp', q.get('symbol'))
    if (q.get('category') !== 'linear' || !m) return bad('params error: category or symbol invalid')
    const period = PERIODS[q.get('period') ?? '']
    if (!period) return bad('params error: period invalid')
    const r = cursorPage(req, period, (from, to) => history.longShort(m.coin, 'account', from, to).filter((p) => p.ts % period === 0), 50, 500, Math.max(m.spec.listedAt, ACCOUNT_RATIO_EARLIEST))
    if ('error' in r) return r.error!
    return ok({ list: r.page.map((p) => ({ symbol: m.symbol, buyRatio: fixed(p.longShare, 4), sellRatio: fixed(p.shortShare, 4), timestamp: String(p.ts) })), nextPageCursor: r.nextPageCursor })
  }

  function fundingHistory(req: DoubleRequest): Reply {
    const q = req.query
    const m = market('perp', q.get('symbol'))
    if (q.get('category') !== 'linear' || !m) return bad('params error: category or symbol invalid')
    const limit = intParam(q, 'limit') ?? 200
    const start = intParam(q, 'startTime')
    const end = intParam(q, 'endTime')
    if (Number.isNaN(limit) || limit < 1 || limit > 200) return bad('params error: limit invalid')
    if (start !== undefined && end === undefined) return bad('params error: startTime needs endTime')
    const holes = opts.holes(req.path)
    const upTo = Math.min(end ?? now(), now())
    const rows = history
      .funding(m.coin, start ?? upTo - 220 * m.fundingHours * HOUR, upTo + 1)
      .filter((f) => !inHole(holes, f.ts))
      .reverse()
      .slice(0, limit)
    return ok({ category: 'linear', list: rows.map((f) => ({ symbol: m.symbol, fundingRate: String(f.rate), fundingRateTimestamp: String(f.ts) })) })
  }

  // ---- live endpoints -------------------------------------------------------------------------
  const books = new Map<string, LiveBook>()
  const liveBook = (m: Market) => {
    const key = `${m.type}:${m.symbol}`
    let b = books.get(key)
    if (!b) books.set(key, (b = new LiveBook(history, m.coin, m.type, 500, now())))
    return b
  }
  const levels = (ls: Array<[number, number]>, m: Market) => ls.map(([p, s]) => [fixed(p, m.priceDecimals), fixed(s, m.qtyDecimals)])

  function tickerRow(m: Market) {
    const t = now()
    const last = history.candle(m.coin, m.type, Math.floor(t / MINUTE) * MINUTE)?.close ?? history.price(m.coin, m.type, t)
    const day = history.candles(m.coin, m.type, Math.floor(t / HOUR) * HOUR - 23 * HOUR, t + 1)
    const open = day[0]?.open ?? last
    const vol = day.reduce((a, c) => a + c.volume, 0)
    const turnover = day.reduce((a, c) => a + c.quoteVolume, 0)
    const b = liveBook(m).book
    const d = m.priceDecimals
    const base = {
      symbol: m.symbol,
      bid1Price: fixed(b.bids[0]?.[0] ?? last, d),
      bid1Size: fixed(b.bids[0]?.[1] ?? 0, m.qtyDecimals),
      ask1Price: fixed(b.asks[0]?.[0] ?? last, d),
      ask1Size: fixed(b.asks[0]?.[1] ?? 0, m.qtyDecimals),
      lastPrice: fixed(last, d),
      prevPrice24h: fixed(open, d),
      price24hPcnt: fixed((last - open) / open, 6),
      highPrice24h: fixed(Math.max(last, ...day.map((c) => c.high)), d),
      lowPrice24h: fixed(Math.min(last, ...day.map((c) => c.low)), d),
      turnover24h: fixed(turnover, 4),
      volume24h: fixed(vol, 4),
    }
    if (m.type === 'spot') return { ...base, usdIndexPrice: fixed(last, d) }
    const oi = history.openInterestAt(m.coin, t)
    const p = history.predictedFunding(m.coin, t)
    const mark = history.price(m.coin, 'perp', t)
    return {
      ...base,
      indexPrice: fixed(mark * 1.0002, d),
      markPrice: fixed(mark, d),
      prevPrice1h: fixed(history.price(m.coin, 'perp', t - HOUR), d),
      openInterest: fixed(2 * oi, m.qtyDecimals),
      openInterestValue: fixed(2 * oi * mark, 2),
      singleOpenInterest: fixed(oi, m.qtyDecimals),
      singleOpenInterestValue: fixed(oi * mark, 2),
      fundingRate: String(p.rate),
      nextFundingTime: String(p.nextFundingTime),
      fundingIntervalHour: String(p.intervalHours),
      fundingCap: '0.005',
      predictedDeliveryPrice: '',
      basisRate: '',
      deliveryFeeRate: '',
      deliveryTime: '0',
      basis: '',
      preOpenPrice: '',
      preQty: '',
      curPreListingPhase: '',
    }
  }

  const RISK_TIERS: Array<[number, string, string, string]> = [
    [2_000_000, '0.005', '0.01', '100.00'],
    [10_000_000, '0.01', '0.02', '50.00'],
    [50_000_000, '0.02', '0.04', '25.00'],
  ]

  const routes: Record<string, (req: DoubleRequest) => Reply> = {
    '/v5/market/time': () => ok({ timeSecond: String(Math.floor(now() / 1000)), timeNano: `${now()}000000` }),
    '/v5/market/instruments-info': (r) => {
      if (r.query.get('status') === 'PreLaunch') return ok({ category: r.query.get('category'), list: [], nextPageCursor: '' })
      const type = typeOf(r.query.get('category'))
      if (!type) return bad('params error: category invalid')
      const rows = type === 'spot' ? spotRows : perpRows
      const sym = r.query.get('symbol')
      return ok({ category: r.query.get('category'), list: sym ? rows.filter((x) => x['symbol'] === sym) : rows, nextPageCursor: '' })
    },
    '/v5/market/tickers': (r) => {
      const type = typeOf(r.query.get('category'))
      if (!type) return bad('params error: category invalid')
      const sym = r.query.get('symbol')
      const ms = sym ? [market(type, sym)] : ofType(type)
      if (ms.some((m) => !m)) return bad('params error: symbol invalid')
      return ok({ category: r.query.get('category'), list: ms.map((m) => tickerRow(m!)) })
    },
    '/v5/market/kline': kline,
    '/v5/market/open-interest': openInterest,
    '/v5/market/funding/history': fundingHistory,
    '/v5/market/account-ratio': accountRatio,
    '/v5/market/risk-limit': (r) => {
      const ms = r.query.get('symbol') ? [market('perp', r.query.get('symbol'))] : ofType('perp')
      if (ms.some((m) => !m)) return bad('params error: symbol invalid')
      const list = ms.flatMap((m) => RISK_TIERS.map(([value, mm, im, lev], i) => ({ id: i + 1, symbol: m!.symbol, riskLimitValue: String(value), maintenanceMargin: mm, initialMargin: im, isLowestRisk: i === 0 ? 1 : 0, maxLeverage: lev, mmDeduction: i === 0 ? '' : String((Number(mm) - Number(RISK_TIERS[i - 1]![1])) * RISK_TIERS[i - 1]![0]) })))
      return ok({ category: 'linear', list, nextPageCursor: '' })
    },
    '/v5/market/orderbook': (r) => {
      const type = typeOf(r.query.get('category'))
      const m = type ? market(type, r.query.get('symbol')) : undefined
      if (!m) return bad('params error: symbol invalid')
      const limit = Math.min(intParam(r.query, 'limit') ?? 25, m.type === 'spot' ? 200 : 500)
      const b = liveBook(m)
      return ok({ s: m.symbol, b: levels(b.book.bids.slice(0, limit), m), a: levels(b.book.asks.slice(0, limit), m), ts: now(), u: b.updateId, seq: b.updateId, cts: now() })
    },
    '/v5/market/recent-trade': (r) => {
      const type = typeOf(r.query.get('category'))
      const m = type ? market(type, r.query.get('symbol')) : undefined
      if (!m) return bad('params error: symbol invalid')
      const trades = history.trades(m.coin, m.type, now() - 10 * MINUTE, now() + 1).slice(-(intParam(r.query, 'limit') ?? 60)).reverse()
      return ok({ category: r.query.get('category'), list: trades.map((x) => ({ execId: String(x.id), symbol: m.symbol, price: fixed(x.price, m.priceDecimals), size: fixed(x.size, m.qtyDecimals), side: x.buy ? 'Buy' : 'Sell', time: String(x.ts), isBlockTrade: false })) })
    },
  }

  // ---- the IP limit ---------------------------------------------------------------------------
  const ipWindow = new WindowCounter(5_000, BYBIT_LIMITS.requestsPer5s, now)
  let bannedUntil = 0
  const accessTooFrequent = (): Reply => ({ status: 403, body: 'access too frequent' })

  const behaviour: VenueBehaviour = {
    handle(req) {
      const route = routes[req.path]
      if (!route || req.method !== 'GET') return null
      if (now() < bannedUntil) return accessTooFrequent()
      const w = ipWindow.add(1)
      if (w.over) {
        bannedUntil = now() + BYBIT_LIMITS.banMs
        return accessTooFrequent()
      }
      const reply = route(req)
      return { ...reply, headers: { 'x-bapi-limit': String(w.limit), 'x-bapi-limit-status': String(Math.max(0, w.limit - w.used)), 'x-bapi-limit-reset-timestamp': String(now()), ...reply.headers } }
    },
    notFound: () => ({ status: 404, body: { retCode: 10404, retMsg: 'Not Found', result: {}, retExtInfo: {}, time: now() } }),
    faultReply(f: Exclude<Fault, { kind: 'down' | 'hole' }>) {
      switch (f.kind) {
        case 'rate_limit':
          return tooManyVisits(now() + (f.retryAfterS ?? 1) * 1000)
        case 'bybit10006':
          return tooManyVisits(now() + (f.resetInMs ?? 1000))
        case 'ban418':
          return accessTooFrequent()
        case 'refuse':
          return { status: f.status, body: CLOUDFRONT_403 }
        case 'fail':
          return { status: f.status ?? 503, body: 'Service Unavailable' }
      }
    },
    connection: (ws, path) => streams.connect(ws, path),
    push: () => streams.push(),
  }
  const streams = bybitStreams(history, markets, liveBook, levels, now)
  return { behaviour, history }
}

function bybitStreams(history: HistoryData, markets: Map<string, Market>, liveBook: (m: Market) => LiveBook, levels: (ls: Array<[number, number]>, m: Market) => string[][], now: () => number) {
  interface Client {
    ws: WebSocket
    type: MarketType
    subs: Set<string>
    cursor: StreamCursor
  }
  const clients = new Set<Client>()
  let connId = 0
  const parse = (topic: string) => {
    const parts = topic.split('.')
    return { kind: parts[0]!, depth: parts.length === 3 ? Number(parts[1]) : undefined, symbol: parts.at(-1)! }
  }

  function snapshot(c: Client, topic: string, m: Market, depth: number): void {
    const b = liveBook(m)
    const t = now()
    send(c.ws, { topic, type: 'snapshot', ts: t, data: { s: m.symbol, b: levels(b.book.bids.slice(0, depth), m), a: levels(b.book.asks.slice(0, depth), m), u: b.updateId, seq: b.updateId }, cts: t })
  }

  return {
    connect(ws: WebSocket, path: string) {
      const type: MarketType = path.endsWith('/spot') ? 'spot' : 'perp'
      const c: Client = { ws, type, subs: new Set(), cursor: new StreamCursor() }
      const id = `double-${++connId}`
      clients.add(c)
      ws.on('close', () => clients.delete(c))
      ws.on('message', (data) => {
        let msg: { op?: string; args?: unknown; req_id?: string }
        try {
          msg = JSON.parse(String(data)) as typeof msg
        } catch {
          return send(ws, { success: false, ret_msg: 'error:request not json', conn_id: id, op: '' })
        }
        const args = Array.isArray(msg.args) ? (msg.args as string[]) : []
        if (msg.op === 'ping') return send(ws, { success: true, ret_msg: 'pong', conn_id: id, req_id: msg.req_id ?? '', op: 'ping' })
        if (msg.op === 'unsubscribe') {
          for (const a of args) c.subs.delete(a)
          return send(ws, { success: true, ret_msg: '', conn_id: id, req_id: msg.req_id ?? '', op: 'unsubscribe' })
        }
        if (msg.op !== 'subscribe') return send(ws, { success: false, ret_msg: `error:unknown op ${String(msg.op)}`, conn_id: id, op: msg.op ?? '' })
        const bad = args.filter((a) => !markets.has(`${type}:${parse(a).symbol}`))
        if (bad.length) return send(ws, { success: false, ret_msg: `error:handler not found,topic:${bad[0]}`, conn_id: id, req_id: msg.req_id ?? '', op: 'subscribe' })
        send(ws, { success: true, ret_msg: type === 'spot' ? 'subscribe' : '', conn_id: id, req_id: msg.req_id ?? '', op: 'subscribe' })
        for (const a of args) {
          c.subs.add(a)
          c.cursor.start(a, now())
          const p = parse(a)
          if (p.kind === 'orderbook') snapshot(c, a, markets.get(`${type}:${p.symbol}`)!, p.depth ?? 50)
        }
      })
    },
    push() {
      const t = now()
      for (const m of markets.values()) {
        const followers = [...clients].filter((c) => c.type === m.type && [...c.subs].some((s) => s.startsWith('orderbook.') && s.endsWith(`.${m.symbol}`)))
        if (followers.length === 0) continue
        const d = liveBook(m).advance(t)
        if (!d) continue
        for (const c of followers)
          for (const s of c.subs)
            if (s.startsWith('orderbook.') && s.endsWith(`.${m.symbol}`)) send(c.ws, { topic: s, type: 'delta', ts: t, data: { s: m.symbol, b: levels(d.bids, m), a: levels(d.asks, m), u: liveBook(m).updateId, seq: liveBook(m).updateId }, cts: t })
      }
      for (const c of clients)
        for (const topic of c.subs) {
          const p = parse(topic)
          const m = markets.get(`${c.type}:${p.symbol}`)!
          if (p.kind === 'publicTrade') {
            const trades = freshTrades(history, c.cursor, topic, m.coin, m.type, t)
            if (trades.length)
              send(c.ws, { topic, type: 'snapshot', ts: t, data: trades.map((x) => ({ T: x.ts, s: m.symbol, S: x.buy ? 'Buy' : 'Sell', v: fixed(x.size, m.qtyDecimals), p: fixed(x.price, m.priceDecimals), L: 'ZeroPlusTick', i: `${x.id}`, BT: false, RPI: false, seq: x.id })) })
          } else if (p.kind === 'allLiquidation') {
            const w = c.cursor.window(topic, t)
            const ls = liquidations(history, m.coin, w.from, w.to)
            if (ls.length) send(c.ws, { topic, type: 'snapshot', ts: t, data: ls.map((l) => ({ T: l.ts, s: m.symbol, S: l.side === 'long' ? 'Buy' : 'Sell', v: fixed(l.size, m.qtyDecimals), p: fixed(l.price, m.priceDecimals) })) })
          }
        }
    },
  }
}
