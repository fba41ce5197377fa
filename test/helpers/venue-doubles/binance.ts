// Binance double: USD-M futures (/fapi, /futures/data) and spot (/api/v3) on one origin, plus the market streams.
//
// Rules it enforces, with their sources (USD-M: developers.binance.com/docs/derivatives/usds-margined-futures;
// spot: developers.binance.com/docs/binance-spot-api-docs; CCXT 4.5.84 js/src/binance.js and pro/binance.js):
// - Weight: USD-M 2400 per minute (exchangeInfo rateLimits REQUEST_WEIGHT), spot 6000 per minute, counted in windows
//   on the minute; every answer carries X-MBX-USED-WEIGHT-1M. Over the limit: 429 + Retry-After (seconds to the
//   window's end) and {"code":-1003}. A client that keeps sending after a 429 in the same window is banned: 418 +
//   Retry-After on everything "from 2 minutes to 3 days" (docs, LIMITS); the double bans at the `banAfter`-th such
//   request (default 3; Binance does not publish the threshold), for 2 min doubling per ban.
// - Per-endpoint weights (USD-M docs): klines by limit [1,100) 1, [100,500) 2, [500,1000] 5, >1000 10; depth 5-50: 2,
//   100: 5, 500: 10, 1000: 20; premiumIndex 1 with symbol, 10 without; openInterest 1; exchangeInfo 1; ticker/24hr 1 or
//   40; aggTrades 20; trades 5. fundingRate and fundingInfo: weight 0, "share 500/5min/IP". /futures/data/*: weight 0,
//   "IP rate limit 1000 requests/5min". Spot: klines 2, exchangeInfo 20, depth 5/25/50/250 by limit, ticker/24hr 2/40/80
//   by symbol count, trades 25, aggTrades 4.
// - klines: limit default 500, max 1500 (USD-M) / 1000 (spot); no startTime/endTime: the newest; startTime: from there
//   forward; endTime only: the `limit` newest at or before it; both: from startTime, at most `limit`. The current
//   minute is served partial. 12-column rows [openTime, o, h, l, c, volume, closeTime, quoteVolume, trades,
//   takerBuyBase, takerBuyQuote, "0"] as in the recorded fixtures/exchanges/binance/klines.json. A limit past the max
//   is refused (-1130) rather than clamped (the docs state only the max).
// - openInterestHist, globalLongShortAccountRatio, topLongShortPositionRatio, topLongShortAccountRatio: period 5m..1d,
//   limit default 30, max 500; "Only the data of the latest 30 days is available"; a startTime older than that is
//   refused 400 {"code":-1130,"msg":"parameter 'startTime' is invalid."} and a range holding more than `limit` rows
//   answers its newest `limit` (both observed on the live API and written up in a public project's notes, not in the
//   docs); rows as the docs' examples (strings, timestamp as a number).
// - fundingRate: limit default 100, max 1000; startTime and endTime inclusive; more rows than limit: from startTime;
//   neither given: the newest (docs: 200 when no limit is sent).
// - WebSocket: /ws (spot) and /public/ws, /market/ws (USD-M, CCXT 4.5.84's category paths) take
//   {"method":"SUBSCRIBE","params":[...],"id":n} and answer {"result":null,"id":n}; streams <sym>@aggTrade, <sym>@trade,
//   <sym>@depth@100ms (diffs with U/u and, on USD-M, pu, continuing the REST snapshot's lastUpdateId),
//   <sym>@forceOrder; frames as the recorded ws_*.json fixtures. /stream paths wrap frames as {stream, data}.
// - Refusal: 451 with Binance's restricted-location message; 403 with CloudFront's country block page.
import type { WebSocket } from 'ws'
import type { MarketType } from '../../../src/domain/exchanges.js'
import { venueFixture, renameCoin } from './fixtures.js'
import { createHistory, DAY, decimalsOf, FIVE_MINUTES, HOUR, MINUTE, type HistoryData, type MarketSpec } from './history.js'
import { WindowCounter } from './limits.js'
import type { DoubleRequest, Fault, Reply, VenueBehaviour } from './server.js'
import { fixed, freshTrades, inHole, intParam, liquidations, LiveBook, send, StreamCursor, type VenueOptions } from './venue-kit.js'

type Raw = Record<string, unknown>
const RETENTION_30D = 30 * DAY
const PERIODS: Record<string, number> = { '5m': FIVE_MINUTES, '15m': 15 * MINUTE, '30m': 30 * MINUTE, '1h': HOUR, '2h': 2 * HOUR, '4h': 4 * HOUR, '6h': 6 * HOUR, '12h': 12 * HOUR, '1d': DAY }
const KLINE_INTERVALS: Record<string, number> = { '1m': MINUTE, '3m': 3 * MINUTE, '5m': 5 * MINUTE, '15m': 15 * MINUTE, '30m': 30 * MINUTE, '1h': HOUR }

export const BINANCE_LIMITS = { futuresWeightPerMinute: 2400, spotWeightPerMinute: 6000, dataRequestsPer5Min: 1000, fundingRequestsPer5Min: 500 } as const

/** the CloudFront page a blocked country gets (recorded in public bug reports against Binance.US and Bybit) */
export const CLOUDFRONT_403 =
  '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">\n<HTML><HEAD><META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=iso-8859-1">\n<TITLE>ERROR: The request could not be satisfied</TITLE>\n</HEAD><BODY>\n<H1>403 ERROR</H1>\n<H2>The request could not be satisfied.</H2>\n<HR noshade size="1px">\nThe Amazon CloudFront distribution is configured to block access from your country.\nWe can\'t connect to the server for this app or website at this time. There might be too much traffic or a configuration error. Try again later, or contact the app or website owner.\n<BR clear="all">\n<HR noshade size="1px">\n<PRE>\nGenerated by cloudfront (CloudFront)\n</PRE>\n<ADDRESS>\n</ADDRESS>\n</BODY></HTML>'
const RESTRICTED_451 = { code: 0, msg: "Service unavailable from a restricted location according to 'b. Eligibility' in https://www.binance.com/en/terms. Please contact customer service if you believe you received this message in error." }

interface Market {
  coin: string
  symbol: string
  type: MarketType
  spec: MarketSpec
  priceDecimals: number
  qtyDecimals: number
}

const err = (status: number, code: number, msg: string): Reply => ({ status, body: { code, msg } })
const badParam = (name: string) => err(400, -1100, `Illegal characters found in parameter '${name}'; legal range is '^[0-9]{1,20}$'.`)
const mandatory = (name: string) => err(400, -1102, `Mandatory parameter '${name}' was not sent, was empty/null, or malformed.`)
const invalidLimit = () => err(400, -1130, "Data sent for parameter 'limit' is not valid.")

function tickOf(coinPrice: number): number {
  return 10 ** (Math.floor(Math.log10(coinPrice)) - 4)
}

/** USD-M exchangeInfo symbols and spot symbol infos for the coins asked, from the recorded lists */
function marketLists(coins: readonly string[] | undefined, listedAt: Record<string, number>, now: number) {
  const info = venueFixture<Raw & { symbols: Raw[] }>('binance/instruments.json')
  const ccxtMarkets = venueFixture<Record<string, { info: Raw; spot?: boolean }>>('binance/ccxt_markets.json')
  const recordedPerps = new Map(info.symbols.map((s) => [String(s['baseAsset']), s]))
  const recordedSpots = new Map(Object.values(ccxtMarkets).filter((m) => m.spot).map((m) => [String(m.info['baseAsset']), m.info]))
  const wanted = coins ?? [...recordedPerps.keys()]
  const perps: Raw[] = []
  const spots: Raw[] = []
  for (const coin of wanted) {
    let perp = recordedPerps.get(coin)
    if (!perp) {
      perp = renameCoin(recordedPerps.get('BTC')!, 'BTC', coin)
      // a clone keeps BTC's filters but for the tick, which follows the coin's price level
      const tick = tickOf(createHistory({ venue: 'binance', seed: 0, now: () => now, markets: {} }).price(coin, 'perp', now))
      const pf = (perp['filters'] as Raw[]).find((f) => f['filterType'] === 'PRICE_FILTER')!
      pf['tickSize'] = String(tick)
      pf['minPrice'] = String(tick)
      perp['pricePrecision'] = decimalsOf(tick)
    }
    if (listedAt[coin] !== undefined) perp['onboardDate'] = listedAt[coin]
    perps.push(perp)
    const spot = recordedSpots.get(coin)
    if (spot) spots.push(spot)
  }
  return { info, perps, spots }
}

const filter = (s: Raw, type: string) => (s['filters'] as Raw[]).find((f) => f['filterType'] === type) ?? {}

export function binanceVenue(opts: VenueOptions): { behaviour: VenueBehaviour; history: HistoryData } {
  const { now } = opts
  const started = now()
  const lists = marketLists(opts.coins, opts.listedAt ?? {}, started)
  const markets = new Map<string, Market>() // key `${type}:${symbol}`
  const specs: Record<string, Partial<Record<MarketType, MarketSpec>>> = {}
  for (const p of lists.perps) {
    const coin = String(p['baseAsset'])
    const spec = { tick: Number(filter(p, 'PRICE_FILTER')['tickSize']), lot: Number(filter(p, 'LOT_SIZE')['stepSize']), listedAt: Number(p['onboardDate']) }
    markets.set(`perp:${String(p['symbol'])}`, { coin, symbol: String(p['symbol']), type: 'perp', spec, priceDecimals: Number(p['pricePrecision']), qtyDecimals: Number(p['quantityPrecision']) })
    specs[coin] = { perp: spec }
  }
  for (const s of lists.spots) {
    const coin = String(s['baseAsset'])
    const perp = specs[coin]?.perp
    const spec = { tick: Number(filter(s, 'PRICE_FILTER')['tickSize']), lot: Number(filter(s, 'LOT_SIZE')['stepSize']), listedAt: perp?.listedAt ?? started - 400 * DAY }
    // spot answers carry 8 decimals everywhere
    markets.set(`spot:${String(s['symbol'])}`, { coin, symbol: String(s['symbol']), type: 'spot', spec, priceDecimals: 8, qtyDecimals: 8 })
    specs[coin] = { ...specs[coin], spot: spec }
  }
  const history = createHistory({ venue: 'binance', seed: opts.seed, now, markets: specs, fundingIntervalHours: opts.fundingIntervalHours })
  const market = (type: MarketType, symbol: string | null) => (symbol ? markets.get(`${type}:${symbol.toUpperCase()}`) : undefined)
  const ofType = (type: MarketType) => [...markets.values()].filter((m) => m.type === type)

  // ---- limits ---------------------------------------------------------------------------------
  const futuresWeight = new WindowCounter(MINUTE, BINANCE_LIMITS.futuresWeightPerMinute, now)
  const spotWeight = new WindowCounter(MINUTE, BINANCE_LIMITS.spotWeightPerMinute, now)
  const dataRequests = new WindowCounter(FIVE_MINUTES, BINANCE_LIMITS.dataRequestsPer5Min, now)
  const fundingRequests = new WindowCounter(FIVE_MINUTES, BINANCE_LIMITS.fundingRequestsPer5Min, now)
  let bannedUntil = 0
  let bans = 0
  let violations = 0
  let limitedWindowEnd = 0

  const tooMany = (retryAfterS: number, limit: number): Reply => ({
    status: 429,
    headers: { 'retry-after': String(retryAfterS) },
    body: { code: -1003, msg: `Too many requests; current limit of IP(127.0.0.1) request weight per minute is ${limit}. Please use WebSocket Streams for live updates to avoid polling the API.` },
  })
  const banned = (until: number): Reply => ({
    status: 418,
    headers: { 'retry-after': String(Math.max(1, Math.ceil((until - now()) / 1000))) },
    body: { code: -1003, msg: `Way too many requests; IP(127.0.0.1) banned until ${until}. Please use the websocket for live updates to avoid bans.` },
  })

  /** charges a request; a Reply when it is refused (429/418) */
  function charge(counters: Array<{ c: WindowCounter; cost: number }>, weightHeader: WindowCounter): { refused: Reply | null; headers: Record<string, string> } {
    const t = now()
    if (t < bannedUntil) return { refused: banned(bannedUntil), headers: {} }
    const states = counters.map(({ c, cost }) => ({ c, s: c.add(cost) }))
    const over = states.find((x) => x.s.over)
    const used = weightHeader.peek().used
    const headers = { 'x-mbx-used-weight-1m': String(used), 'x-mbx-used-weight': String(used) }
    if (!over) return { refused: null, headers }
    if (t < limitedWindowEnd) {
      if (++violations >= (opts.banAfter ?? 3)) {
        bannedUntil = t + Math.min((opts.banMs ?? 2 * MINUTE) * 2 ** bans++, 3 * DAY)
        violations = 0
        return { refused: banned(bannedUntil), headers }
      }
    } else violations = 0
    limitedWindowEnd = over.s.resetAt
    const r = tooMany(Math.max(1, Math.ceil((over.s.resetAt - t) / 1000)), over.c.limit)
    return { refused: { ...r, headers: { ...headers, ...r.headers } }, headers }
  }

  // ---- payloads -------------------------------------------------------------------------------
  /** one kline row per interval opening at t0 (null when the venue has nothing there: before listing, a hole) */
  function klineRow(m: Market, step: number, t0: number, holes: Array<{ from: number; to: number }>): unknown[] | null {
    const cs = history.candles(m.coin, m.type, t0, t0 + step).filter((c) => !inHole(holes, c.openTime))
    if (cs.length === 0) return null
    const sum = (f: (c: (typeof cs)[number]) => number) => cs.reduce((a, c) => a + f(c), 0)
    const qd = Math.min(m.priceDecimals + m.qtyDecimals, 8)
    return [
      t0,
      fixed(cs[0]!.open, m.priceDecimals),
      fixed(Math.max(...cs.map((c) => c.high)), m.priceDecimals),
      fixed(Math.min(...cs.map((c) => c.low)), m.priceDecimals),
      fixed(cs.at(-1)!.close, m.priceDecimals),
      fixed(sum((c) => c.volume), m.qtyDecimals),
      t0 + step - 1,
      fixed(sum((c) => c.quoteVolume), qd),
      sum((c) => c.trades),
      fixed(sum((c) => c.takerBuyVolume), m.qtyDecimals),
      fixed(sum((c) => c.takerBuyQuoteVolume), qd),
      '0',
    ]
  }

  /** up to `limit` rows with openTime in [from, to], from the oldest (forward) or the newest (backward), oldest first */
  function klineRows(m: Market, step: number, from: number, to: number, limit: number, forward: boolean, path: string): unknown[][] {
    const holes = opts.holes(path)
    const first = Math.max(Math.ceil(from / step) * step, Math.ceil(m.spec.listedAt / step) * step)
    const last = Math.floor(Math.min(to, now()) / step) * step
    const rows: unknown[][] = []
    for (let t0 = forward ? first : last; rows.length < limit && t0 >= first && t0 <= last; t0 += forward ? step : -step) {
      const row = klineRow(m, step, t0, holes)
      if (row) rows.push(row)
    }
    return forward ? rows : rows.reverse()
  }

  function klines(req: DoubleRequest, type: MarketType, maxLimit: number): Reply {
    const q = req.query
    const m = market(type, q.get('symbol'))
    if (!q.get('symbol')) return mandatory('symbol')
    if (!m) return err(400, -1121, 'Invalid symbol.')
    const interval = q.get('interval')
    if (!interval) return mandatory('interval')
    const step = KLINE_INTERVALS[interval]
    if (!step) return err(400, -1120, 'Invalid interval.')
    const limit = intParam(q, 'limit') ?? 500
    const start = intParam(q, 'startTime')
    const end = intParam(q, 'endTime')
    if (Number.isNaN(limit)) return badParam('limit')
    if (Number.isNaN(start)) return badParam('startTime')
    if (Number.isNaN(end)) return badParam('endTime')
    if (limit < 1 || limit > maxLimit) return invalidLimit()
    if (start !== undefined && end !== undefined && start > end) return err(400, -1023, 'Start time is greater than end time.')
    return { status: 200, body: klineRows(m, step, start ?? 0, end ?? now(), limit, start !== undefined, req.path) }
  }

  /** the 30-day statistics endpoints (/futures/data/*): one row builder over the shared paging rules */
  function statistics(req: DoubleRequest, rows: (m: Market, period: number, from: number, to: number) => Array<Raw & { timestamp: number }>): Reply {
    const q = req.query
    if (!q.get('symbol')) return mandatory('symbol')
    if (!q.get('period')) return mandatory('period')
    const period = PERIODS[q.get('period')!]
    if (!period) return err(400, -1130, "parameter 'period' is invalid.")
    const m = market('perp', q.get('symbol'))
    // an unknown symbol answers an empty list (observed), not an error
    if (!m) return { status: 200, body: [] }
    const limit = intParam(q, 'limit') ?? 30
    const start = intParam(q, 'startTime')
    const end = intParam(q, 'endTime')
    if (Number.isNaN(limit)) return badParam('limit')
    if (Number.isNaN(start)) return badParam('startTime')
    if (Number.isNaN(end)) return badParam('endTime')
    if (limit < 1 || limit > 500) return invalidLimit()
    const t = now()
    const oldest = t - RETENTION_30D
    if (start !== undefined && start < oldest) return err(400, -1130, "parameter 'startTime' is invalid.")
    const from = Math.max(start ?? oldest, oldest)
    const to = Math.min(end ?? t, t)
    if (from > to) return { status: 200, body: [] }
    const holes = opts.holes(req.path)
    // the newest `limit` rows of the range (inclusive of both ends)
    const all = rows(m, period, from, to + 1).filter((r) => !inHole(holes, r.timestamp))
    return { status: 200, body: all.slice(-limit) }
  }

  const oiRows = (m: Market, period: number, from: number, to: number) =>
    history
      .openInterest(m.coin, from, to)
      .filter((p) => p.ts % period === 0)
      .map((p) => ({ symbol: m.symbol, sumOpenInterest: fixed(p.openInterest, 8), sumOpenInterestValue: fixed(p.openInterestUsd, 8), CMCCirculatingSupply: '19500000.00000000', timestamp: p.ts }))
  const ratioRows = (kind: 'account' | 'top_position') => (m: Market, period: number, from: number, to: number) =>
    history
      .longShort(m.coin, kind, from, to)
      .filter((p) => p.ts % period === 0)
      .map((p) => ({ symbol: m.symbol, longShortRatio: fixed(p.ratio, 4), longAccount: fixed(p.longShare, 4), shortAccount: fixed(p.shortShare, 4), timestamp: p.ts }))

  function fundingRate(req: DoubleRequest): Reply {
    const q = req.query
    const symbol = q.get('symbol')
    const m = market('perp', symbol)
    if (symbol && !m) return err(400, -1121, 'Invalid symbol.')
    const limitParam = intParam(q, 'limit')
    const start = intParam(q, 'startTime')
    const end = intParam(q, 'endTime')
    if (Number.isNaN(limitParam)) return badParam('limit')
    if (Number.isNaN(start)) return badParam('startTime')
    if (Number.isNaN(end)) return badParam('endTime')
    const limit = limitParam ?? (start === undefined && end === undefined ? 200 : 100)
    if (limit < 1 || limit > 1000) return invalidLimit()
    const holes = opts.holes(req.path)
    const t = now()
    const rows = (m ? [m] : ofType('perp'))
      .flatMap((mk) => history.funding(mk.coin, start ?? 0, Math.min(end ?? t, t) + 1).map((f) => ({ f, mk })))
      .filter(({ f }) => !inHole(holes, f.ts))
      .sort((a, b) => a.f.ts - b.f.ts)
      .map(({ f, mk }) => ({ symbol: mk.symbol, fundingRate: fixed(f.rate, 8), fundingTime: f.ts, markPrice: fixed(f.markPrice, 8) }))
    return { status: 200, body: start !== undefined ? rows.slice(0, limit) : rows.slice(-limit) }
  }

  function premiumIndex(m: Market) {
    const t = now()
    const mark = history.price(m.coin, 'perp', t)
    const p = history.predictedFunding(m.coin, t)
    return {
      symbol: m.symbol,
      markPrice: fixed(mark, 8),
      indexPrice: fixed(mark * 0.9998, 8),
      estimatedSettlePrice: fixed(mark * 0.9999, 8),
      lastFundingRate: fixed(p.rate, 8),
      interestRate: '0.00010000',
      nextFundingTime: p.nextFundingTime,
      time: t,
    }
  }

  // live books: one per market, advanced by the push timer and read by REST depth snapshots
  const books = new Map<string, LiveBook>()
  const liveBook = (m: Market) => {
    const key = `${m.type}:${m.symbol}`
    let b = books.get(key)
    if (!b) books.set(key, (b = new LiveBook(history, m.coin, m.type, 200, now())))
    return b
  }
  const levels = (ls: Array<[number, number]>, m: Market) => ls.map(([p, s]) => [fixed(p, m.priceDecimals), fixed(s, m.qtyDecimals)])

  function depth(req: DoubleRequest, type: MarketType): Reply {
    const m = market(type, req.query.get('symbol'))
    if (!req.query.get('symbol')) return mandatory('symbol')
    if (!m) return err(400, -1121, 'Invalid symbol.')
    const limit = intParam(req.query, 'limit') ?? (type === 'perp' ? 500 : 100)
    if (Number.isNaN(limit)) return badParam('limit')
    const b = liveBook(m)
    const t = now()
    const body: Raw = { lastUpdateId: b.updateId, bids: levels(b.book.bids.slice(0, limit), m), asks: levels(b.book.asks.slice(0, limit), m) }
    return { status: 200, body: type === 'perp' ? { lastUpdateId: b.updateId, E: t, T: t, bids: body['bids'], asks: body['asks'] } : body }
  }

  function ticker24h(m: Market) {
    const t = now()
    const day = history.candles(m.coin, m.type, Math.floor(t / HOUR) * HOUR - 23 * HOUR, t + 1)
    const open = day[0]?.open ?? history.price(m.coin, m.type, t)
    const last = day.at(-1)?.close ?? open
    const volume = day.reduce((a, c) => a + c.volume, 0)
    const quote = day.reduce((a, c) => a + c.quoteVolume, 0)
    const d = m.priceDecimals
    return {
      symbol: m.symbol,
      priceChange: fixed(last - open, d),
      priceChangePercent: fixed(((last - open) / open) * 100, 3),
      weightedAvgPrice: fixed(volume > 0 ? quote / volume : last, d),
      lastPrice: fixed(last, d),
      lastQty: fixed(m.spec.lot, m.qtyDecimals),
      openPrice: fixed(open, d),
      highPrice: fixed(Math.max(...day.map((c) => c.high), open), d),
      lowPrice: fixed(Math.min(...day.map((c) => c.low), open), d),
      volume: fixed(volume, m.qtyDecimals),
      quoteVolume: fixed(quote, 2),
      openTime: t - DAY,
      closeTime: t,
      firstId: day[0] ? (day[0].openTime / MINUTE) * 100 : 0,
      lastId: day.at(-1) ? (day.at(-1)!.openTime / MINUTE) * 100 + day.at(-1)!.trades - 1 : 0,
      count: day.reduce((a, c) => a + c.trades, 0),
    }
  }

  function aggTrades(req: DoubleRequest, type: MarketType): Reply {
    const m = market(type, req.query.get('symbol'))
    if (!m) return err(400, -1121, 'Invalid symbol.')
    const limit = Math.min(intParam(req.query, 'limit') ?? 500, 1000)
    const t = now()
    const rows = history.trades(m.coin, type, t - 10 * MINUTE, t + 1).slice(-limit)
    return { status: 200, body: rows.map((x) => ({ a: x.id, p: fixed(x.price, m.priceDecimals), q: fixed(x.size, m.qtyDecimals), f: x.id, l: x.id, T: x.ts, m: !x.buy })) }
  }

  // ---- routing --------------------------------------------------------------------------------
  type Route = { weight: (q: URLSearchParams) => number; pool: 'futures' | 'spot' | 'data' | 'funding'; answer: (req: DoubleRequest) => Reply }
  const w = (n: number) => () => n
  const byLimit = (buckets: Array<[number, number]>, def: number) => (q: URLSearchParams) => {
    const l = intParam(q, 'limit') ?? def
    return (buckets.find(([max]) => (Number.isNaN(l) ? def : l) <= max) ?? buckets.at(-1)!)[1]
  }
  const routes: Record<string, Route> = {
    '/fapi/v1/ping': { weight: w(1), pool: 'futures', answer: () => ({ status: 200, body: {} }) },
    '/fapi/v1/time': { weight: w(1), pool: 'futures', answer: () => ({ status: 200, body: { serverTime: now() } }) },
    '/fapi/v1/exchangeInfo': { weight: w(1), pool: 'futures', answer: () => ({ status: 200, body: { ...lists.info, serverTime: now(), symbols: lists.perps } }) },
    '/fapi/v1/klines': { weight: byLimit([[99, 1], [499, 2], [1000, 5], [Infinity, 10]], 500), pool: 'futures', answer: (r) => klines(r, 'perp', 1500) },
    '/fapi/v1/depth': { weight: byLimit([[50, 2], [100, 5], [500, 10], [Infinity, 20]], 500), pool: 'futures', answer: (r) => depth(r, 'perp') },
    '/fapi/v1/premiumIndex': {
      weight: (q) => (q.get('symbol') ? 1 : 10),
      pool: 'futures',
      answer: (r) => {
        const s = r.query.get('symbol')
        if (!s) return { status: 200, body: ofType('perp').map(premiumIndex) }
        const m = market('perp', s)
        return m ? { status: 200, body: premiumIndex(m) } : err(400, -1121, 'Invalid symbol.')
      },
    },
    '/fapi/v1/fundingInfo': {
      weight: w(0),
      pool: 'funding',
      answer: () => ({
        status: 200,
        body: ofType('perp')
          .filter((m) => history.predictedFunding(m.coin, now()).intervalHours !== 8)
          .map((m) => ({ symbol: m.symbol, adjustedFundingRateCap: '0.02000000', adjustedFundingRateFloor: '-0.02000000', fundingIntervalHours: history.predictedFunding(m.coin, now()).intervalHours, disclaimer: false })),
      }),
    },
    '/fapi/v1/fundingRate': { weight: w(0), pool: 'funding', answer: fundingRate },
    '/fapi/v1/openInterest': {
      weight: w(1),
      pool: 'futures',
      answer: (r) => {
        const m = market('perp', r.query.get('symbol'))
        if (!r.query.get('symbol')) return mandatory('symbol')
        return m ? { status: 200, body: { openInterest: fixed(history.openInterestAt(m.coin, now()), m.qtyDecimals), symbol: m.symbol, time: now() } } : err(400, -1121, 'Invalid symbol.')
      },
    },
    '/fapi/v1/ticker/24hr': {
      weight: (q) => (q.get('symbol') ? 1 : 40),
      pool: 'futures',
      answer: (r) => {
        const s = r.query.get('symbol')
        const m = market('perp', s)
        return s ? (m ? { status: 200, body: ticker24h(m) } : err(400, -1121, 'Invalid symbol.')) : { status: 200, body: ofType('perp').map(ticker24h) }
      },
    },
    '/fapi/v1/aggTrades': { weight: w(20), pool: 'futures', answer: (r) => aggTrades(r, 'perp') },
    '/futures/data/openInterestHist': { weight: w(0), pool: 'data', answer: (r) => statistics(r, oiRows) },
    '/futures/data/globalLongShortAccountRatio': { weight: w(0), pool: 'data', answer: (r) => statistics(r, ratioRows('account')) },
    '/futures/data/topLongShortAccountRatio': { weight: w(0), pool: 'data', answer: (r) => statistics(r, ratioRows('account')) },
    '/futures/data/topLongShortPositionRatio': { weight: w(0), pool: 'data', answer: (r) => statistics(r, ratioRows('top_position')) },
    '/api/v3/ping': { weight: w(1), pool: 'spot', answer: () => ({ status: 200, body: {} }) },
    '/api/v3/time': { weight: w(1), pool: 'spot', answer: () => ({ status: 200, body: { serverTime: now() } }) },
    '/api/v3/exchangeInfo': {
      weight: w(20),
      pool: 'spot',
      answer: () => ({ status: 200, body: { timezone: 'UTC', serverTime: now(), rateLimits: [{ rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: 6000 }], exchangeFilters: [], symbols: lists.spots } }),
    },
    '/api/v3/klines': { weight: w(2), pool: 'spot', answer: (r) => klines(r, 'spot', 1000) },
    '/api/v3/depth': { weight: byLimit([[100, 5], [500, 25], [1000, 50], [Infinity, 250]], 100), pool: 'spot', answer: (r) => depth(r, 'spot') },
    '/api/v3/ticker/24hr': {
      weight: (q) => {
        const n = q.get('symbols') ? (JSON.parse(q.get('symbols')!) as unknown[]).length : q.get('symbol') ? 1 : Infinity
        return n <= 20 ? 2 : n <= 100 ? 40 : 80
      },
      pool: 'spot',
      answer: (r) => {
        const one = r.query.get('symbol')
        const many = r.query.get('symbols')
        if (one) {
          const m = market('spot', one)
          return m ? { status: 200, body: ticker24h(m) } : err(400, -1121, 'Invalid symbol.')
        }
        const names = many ? (JSON.parse(many) as string[]) : ofType('spot').map((m) => m.symbol)
        const ms = names.map((n) => market('spot', n))
        if (ms.some((m) => !m)) return err(400, -1121, 'Invalid symbol.')
        return { status: 200, body: ms.map((m) => ticker24h(m!)) }
      },
    },
    '/api/v3/aggTrades': { weight: w(4), pool: 'spot', answer: (r) => aggTrades(r, 'spot') },
  }

  const behaviour: VenueBehaviour = {
    handle(req) {
      const route = routes[req.path]
      if (!route || req.method !== 'GET') return null
      const weight = route.weight(req.query)
      const counters =
        route.pool === 'spot'
          ? [{ c: spotWeight, cost: weight }]
          : route.pool === 'data'
            ? [{ c: dataRequests, cost: 1 }]
            : route.pool === 'funding'
              ? [{ c: fundingRequests, cost: 1 }]
              : [{ c: futuresWeight, cost: weight }]
      const { refused, headers } = charge(counters, route.pool === 'spot' ? spotWeight : futuresWeight)
      if (refused) return refused
      const reply = route.answer(req)
      return { ...reply, headers: { ...headers, ...reply.headers } }
    },
    notFound: () => ({ status: 404, body: '<html><body><h2>404 Not found</h2></body></html>' }),
    faultReply(f: Exclude<Fault, { kind: 'down' | 'hole' }>) {
      switch (f.kind) {
        case 'rate_limit':
          return tooMany(f.retryAfterS ?? 1, BINANCE_LIMITS.futuresWeightPerMinute)
        case 'ban418':
          return banned(now() + (f.retryAfterS ?? 120) * 1000)
        case 'refuse':
          return f.status === 451 ? { status: 451, body: RESTRICTED_451 } : { status: 403, body: CLOUDFRONT_403 }
        case 'fail':
          return { status: f.status ?? 503, body: { code: -1001, msg: 'Internal error; unable to process your request. Please try again.' } }
        case 'bybit10006':
          return tooMany(1, BINANCE_LIMITS.futuresWeightPerMinute)
      }
    },
    connection: (ws, path) => streams.connect(ws, path),
    push: () => streams.push(),
  }

  // ---- streams --------------------------------------------------------------------------------
  const streams = binanceStreams(history, markets, liveBook, levels, now)
  return { behaviour, history }
}

function binanceStreams(
  history: HistoryData,
  markets: Map<string, Market>,
  liveBook: (m: Market) => LiveBook,
  levels: (ls: Array<[number, number]>, m: Market) => string[][],
  now: () => number,
) {
  interface Client {
    ws: WebSocket
    type: MarketType
    combined: boolean
    subs: Set<string>
    cursor: StreamCursor
  }
  const clients = new Set<Client>()
  const subscribed = (stream: string) => [...clients].filter((c) => c.subs.has(stream))

  function subscribe(c: Client, names: string[]): boolean {
    for (const name of names) {
      const [sym, kind] = name.split('@')
      if (!sym || !kind) return false
      if (name !== '!forceOrder@arr' && !markets.has(`${c.type}:${sym.toUpperCase()}`)) continue
      c.subs.add(name)
      c.cursor.start(name, now())
      if (kind === 'depth') liveBook(markets.get(`${c.type}:${sym.toUpperCase()}`)!)
    }
    return true
  }

  return {
    connect(ws: WebSocket, path: string) {
      // USD-M streams live under /public, /market and /private (CCXT 4.5.84); the rest is spot
      const type: MarketType = /^\/(public|market|private)\//.test(path) ? 'perp' : 'spot'
      const c: Client = { ws, type, combined: path.startsWith('/stream') || path.includes('/stream'), subs: new Set(), cursor: new StreamCursor() }
      clients.add(c)
      ws.on('close', () => clients.delete(c))
      ws.on('message', (data) => {
        let msg: { method?: string; params?: unknown; id?: unknown }
        try {
          msg = JSON.parse(String(data)) as typeof msg
        } catch {
          return send(ws, { error: { code: 3, msg: 'Invalid JSON: expected value at line 1 column 1' }, id: null })
        }
        const params = Array.isArray(msg.params) ? (msg.params as string[]) : []
        if (msg.method === 'SUBSCRIBE' && subscribe(c, params)) return send(ws, { result: null, id: msg.id })
        if (msg.method === 'UNSUBSCRIBE') {
          for (const p of params) c.subs.delete(p)
          return send(ws, { result: null, id: msg.id })
        }
        if (msg.method === 'LIST_SUBSCRIPTIONS') return send(ws, { result: [...c.subs], id: msg.id })
        send(ws, { error: { code: 2, msg: `Invalid request: unknown method ${String(msg.method)}` }, id: msg.id ?? null })
      })
    },
    push() {
      const t = now()
      const out = (c: Client, stream: string, data: unknown) => send(c.ws, c.combined ? { stream, data } : data)
      // books move once per push for every market someone follows, then each follower gets the same diff
      for (const m of markets.values()) {
        const stream = `${m.symbol.toLowerCase()}@depth@100ms`
        const followers = [...clients].filter((c) => c.type === m.type && (c.subs.has(stream) || c.subs.has(`${m.symbol.toLowerCase()}@depth`)))
        if (followers.length === 0) continue
        const d = liveBook(m).advance(t)
        if (!d) continue
        const u = liveBook(m).updateId
        const frame = m.type === 'perp' ? { e: 'depthUpdate', E: t, T: t, s: m.symbol, U: u, u, pu: d.prevId, b: levels(d.bids, m), a: levels(d.asks, m) } : { e: 'depthUpdate', E: t, s: m.symbol, U: u, u, b: levels(d.bids, m), a: levels(d.asks, m) }
        for (const c of followers) out(c, c.subs.has(stream) ? stream : `${m.symbol.toLowerCase()}@depth`, frame)
      }
      for (const c of clients) {
        for (const stream of c.subs) {
          const [sym, kind] = stream.split('@') as [string, string]
          if (kind === 'aggTrade' || kind === 'trade') {
            const m = markets.get(`${c.type}:${sym.toUpperCase()}`)!
            for (const x of freshTrades(history, c.cursor, stream, m.coin, m.type, t)) {
              const p = fixed(x.price, m.priceDecimals)
              const q = fixed(x.size, m.qtyDecimals)
              out(c, stream, kind === 'aggTrade' ? { e: 'aggTrade', E: t, a: x.id, s: m.symbol, p, q, f: x.id, l: x.id, T: x.ts, m: !x.buy } : { e: 'trade', E: t, s: m.symbol, t: x.id, p, q, T: x.ts, m: !x.buy, M: true })
            }
          } else if (kind === 'forceOrder') {
            const targets = sym === '!forceOrder' ? [...markets.values()].filter((m) => m.type === 'perp') : [markets.get(`perp:${sym.toUpperCase()}`)!]
            const w = c.cursor.window(stream, t)
            for (const m of targets)
              for (const l of liquidations(history, m.coin, w.from, w.to)) {
                const q = fixed(l.size, m.qtyDecimals)
                const p = fixed(l.price, m.priceDecimals)
                out(c, stream, { e: 'forceOrder', E: t, o: { s: m.symbol, S: l.side === 'long' ? 'SELL' : 'BUY', o: 'LIMIT', f: 'IOC', q, p, ap: p, X: 'FILLED', l: q, z: q, T: l.ts } })
              }
          }
        }
      }
    },
  }
}
