// OKX v5 double: SWAP and SPOT on one origin (/api/v5/...), streams on /ws/v5/public.
//
// Rules it enforces, with their sources (www.okx.com/docs-v5/en, as copied in public SDKs' doc comments and a
// 2026-07 mirror of the "Trading statistics" and "Public data" sections; CCXT 4.5.84 js/src/okx.js and pro/okx.js):
// - Per-endpoint limits in requests per 2 seconds (IP, or IP + instrument where the docs say so): history-candles 20
//   (IP), candles 40, rubik open-interest-history 10 (IP + instId), long-short-account-ratio-contract 5 (IP + instId),
//   funding-rate-history 10 (IP + instId), instruments 20, tickers 20, index-tickers 20, mark-price 10, funding-rate 10,
//   open-interest 20, books-full 10, position-tiers 10. Over a limit: HTTP 429 {"msg":"Too Many Requests","code":"50011"}.
// - history-candles: "after: records earlier than the requested ts", "before: records newer than the requested ts. The
//   latest data will be returned when using before individually"; limit default 100, max 300 (CCXT 4.5.84:
//   "default 100, max 300"; older docs said 100); newest first; rows [ts, o, h, l, c, vol, volCcy, volCcyQuote, confirm]
//   (SWAP vol in contracts, volCcy in coin; SPOT vol in coin, volCcy in quote), as fixtures candles_swap/spot.json.
// - rubik/stat/contracts/open-interest-history: period 5m.., "end: records earlier than the requested ts", "begin:
//   records newer than the requested ts", limit max 100, "the latest 1,440 data entries" of the period (5 days at 5m);
//   rows [ts, oi (contracts), oiCcy (coin), oiUsd], newest first.
// - rubik/stat/contracts/long-short-account-ratio-contract: same paging, max 100, latest 1,440 entries; rows [ts, ratio].
// - public/funding-rate-history: "data from the last 3 months", before/after, limit max 400, default 400 ("The maximum is
//   `400`; The default is `400`", docs-v5 #public-data-rest-api-get-funding-rate-history, 2026-07), newest first; rows as
//   fixtures funding_rate_history.json {instType, instId, fundingRate, realizedRate, fundingTime}.
// - Instruments from fixtures instruments.json (SWAP) and ccxt_markets.json's raw info (SPOT); ctVal converts coins
//   to contracts everywhere a SWAP size is given.
// - Streams: {"op":"subscribe","args":[{channel, instId}]} → {"event":"subscribe","arg":…,"connId":…}; books (400
//   levels, snapshot then updates with seqId/prevSeqId and OKX's CRC32 checksum over the top 25 levels as sent),
//   trades, liquidation-orders (instType SWAP); text "ping" → "pong".
// - Refusal: 403 with CloudFront's country block page; 451 likewise.
import { crc32 } from 'node:zlib'
import type { WebSocket } from 'ws'
import type { MarketType } from '../../../src/domain/exchanges.js'
import { CLOUDFRONT_403 } from './binance.js'
import { venueFixture, renameCoin } from './fixtures.js'
import { createHistory, DAY, decimalsOf, FIVE_MINUTES, HOUR, MINUTE, type HistoryData, type MarketSpec } from './history.js'
import { WindowCounter } from './limits.js'
import type { DoubleRequest, Fault, Reply, VenueBehaviour } from './server.js'
import { fixed, freshTrades, inHole, intParam, liquidations, LiveBook, send, StreamCursor, type VenueOptions } from './venue-kit.js'

type Raw = Record<string, unknown>
const PERIODS: Record<string, number> = { '5m': FIVE_MINUTES, '15m': 15 * MINUTE, '30m': 30 * MINUTE, '1H': HOUR, '2H': 2 * HOUR, '4H': 4 * HOUR }
const BARS: Record<string, number> = { '1m': MINUTE, '3m': 3 * MINUTE, '5m': 5 * MINUTE, '15m': 15 * MINUTE, '30m': 30 * MINUTE, '1H': HOUR }
const STAT_ENTRIES = 1440
const FUNDING_RETENTION = 90 * DAY
const BOOK_LEVELS = 400

/** requests per 2 s, and whether the count is per instrument */
export const OKX_LIMITS: Record<string, { per2s: number; perInstrument: boolean }> = {
  '/api/v5/market/history-candles': { per2s: 20, perInstrument: false },
  '/api/v5/market/candles': { per2s: 40, perInstrument: false },
  '/api/v5/rubik/stat/contracts/open-interest-history': { per2s: 10, perInstrument: true },
  '/api/v5/rubik/stat/contracts/long-short-account-ratio-contract': { per2s: 5, perInstrument: true },
  '/api/v5/public/funding-rate-history': { per2s: 10, perInstrument: true },
  '/api/v5/public/instruments': { per2s: 20, perInstrument: false },
  '/api/v5/market/tickers': { per2s: 20, perInstrument: false },
  '/api/v5/market/index-tickers': { per2s: 20, perInstrument: false },
  '/api/v5/public/mark-price': { per2s: 10, perInstrument: false },
  '/api/v5/public/funding-rate': { per2s: 10, perInstrument: false },
  '/api/v5/public/open-interest': { per2s: 20, perInstrument: true },
  '/api/v5/market/books-full': { per2s: 10, perInstrument: true },
  '/api/v5/market/books': { per2s: 40, perInstrument: false },
  '/api/v5/public/position-tiers': { per2s: 10, perInstrument: false },
  '/api/v5/public/time': { per2s: 10, perInstrument: false },
}

interface Market {
  coin: string
  instId: string
  type: MarketType
  spec: MarketSpec
  /** coin per contract (SWAP), 1 for SPOT */
  ctVal: number
  priceDecimals: number
  /** decimals of a size as sent (contracts for SWAP) */
  szDecimals: number
}

const trim = (x: number, d: number) => String(Number(x.toFixed(d)))

export function okxVenue(opts: VenueOptions): { behaviour: VenueBehaviour; history: HistoryData } {
  const { now } = opts
  const started = now()
  const swaps = venueFixture<{ data: Raw[] }>('okx/instruments.json').data
  const spotInfos = Object.values(venueFixture<Record<string, { info: Raw; spot?: boolean }>>('okx/ccxt_markets.json')).filter((m) => m.spot).map((m) => m.info)
  const recorded = new Map(swaps.map((s) => [String(s['ctValCcy']), s]))
  const coins = opts.coins ?? [...recorded.keys()]
  const swapRows: Raw[] = []
  const spotRows: Raw[] = []
  const markets = new Map<string, Market>()
  const specs: Record<string, Partial<Record<MarketType, MarketSpec>>> = {}
  for (const coin of coins) {
    let row = recorded.get(coin)
    if (!row) {
      row = renameCoin(recorded.get('BTC')!, 'BTC', coin)
      const p = createHistory({ venue: 'okx', seed: 0, now: () => started, markets: {} }).price(coin, 'perp', started)
      row['tickSz'] = String(10 ** (Math.floor(Math.log10(p)) - 4))
      row['ctVal'] = String(10 ** Math.round(Math.log10(100 / p)))
    }
    if (opts.listedAt?.[coin] !== undefined) row['listTime'] = String(opts.listedAt[coin])
    swapRows.push(row)
    const ctVal = Number(row['ctVal'])
    const tick = Number(row['tickSz'])
    const spec = { tick, lot: ctVal * Number(row['lotSz']), listedAt: Number(row['listTime']) }
    markets.set(String(row['instId']), { coin, instId: String(row['instId']), type: 'perp', spec, ctVal, priceDecimals: decimalsOf(tick), szDecimals: decimalsOf(Number(row['lotSz'])) })
    specs[coin] = { perp: spec }
    const s = spotInfos.find((x) => x['baseCcy'] === coin)
    if (s) {
      spotRows.push(s)
      const st = Number(s['tickSz'])
      const sl = Number(s['lotSz'])
      const sspec = { tick: st, lot: sl, listedAt: spec.listedAt }
      markets.set(String(s['instId']), { coin, instId: String(s['instId']), type: 'spot', spec: sspec, ctVal: 1, priceDecimals: decimalsOf(st), szDecimals: decimalsOf(sl) })
      specs[coin] = { ...specs[coin], spot: sspec }
    }
  }
  const history = createHistory({ venue: 'okx', seed: opts.seed, now, markets: specs, fundingIntervalHours: opts.fundingIntervalHours })
  const ofType = (type: MarketType) => [...markets.values()].filter((m) => m.type === type)
  const contracts = (m: Market, coins: number) => trim(coins / m.ctVal, m.szDecimals + 4)

  const ok = (data: unknown): Reply => ({ status: 200, body: { code: '0', msg: '', data } })
  const bad = (code: string, msg: string): Reply => ({ status: 400, body: { code, msg, data: [] } })
  const tooMany = (): Reply => ({ status: 429, body: { msg: 'Too Many Requests', code: '50011' } })
  const instrument = (q: URLSearchParams) => {
    const m = markets.get(q.get('instId') ?? '')
    return m ? m : null
  }

  // ---- history --------------------------------------------------------------------------------
  /** OKX's exclusive after/before (or end/begin) paging: newest first; one bound alone or none as documented */
  function page<T extends { ts: number }>(rows: (from: number, to: number) => T[], older: number | undefined, newer: number | undefined, limit: number, step: number, earliest: number, holes: Array<{ from: number; to: number }>): T[] {
    // `newer` alone: the latest data (OKX: "The latest data will be returned when using before individually")
    const upTo = older !== undefined ? older - 1 : now()
    const from = Math.max(newer !== undefined ? newer + 1 : earliest, earliest)
    const out: T[] = []
    let windowTo = upTo + 1
    while (out.length < limit && windowTo > from) {
      const windowFrom = Math.max(from, windowTo - (limit - out.length) * step)
      out.push(...rows(windowFrom, windowTo).filter((r) => !inHole(holes, r.ts)).reverse())
      windowTo = windowFrom
    }
    return out.slice(0, limit)
  }

  function candles(req: DoubleRequest): Reply {
    const q = req.query
    const m = instrument(q)
    if (!m) return bad('51001', "Instrument ID doesn't exist")
    const bar = q.get('bar') ?? '1m'
    const step = BARS[bar]
    if (!step) return bad('51000', 'Parameter bar error')
    const limit = intParam(q, 'limit') ?? 100
    const after = intParam(q, 'after')
    const before = intParam(q, 'before')
    if (Number.isNaN(limit) || limit < 1 || limit > 300) return bad('51000', 'Parameter limit error')
    if (Number.isNaN(after) || Number.isNaN(before)) return bad('51000', 'Parameter after or before error')
    const series = (from: number, to: number) => {
      const out: Array<{ ts: number; row: string[] }> = []
      for (let t0 = Math.ceil(from / step) * step; t0 < to; t0 += step) {
        const cs = history.candles(m.coin, m.type, t0, t0 + step)
        if (cs.length === 0) continue
        const vol = cs.reduce((a, c) => a + c.volume, 0)
        const quote = cs.reduce((a, c) => a + c.quoteVolume, 0)
        const closed = cs.at(-1)!.closed && t0 + step <= now()
        const d = m.priceDecimals
        const head = [String(t0), trim(cs[0]!.open, d), trim(Math.max(...cs.map((c) => c.high)), d), trim(Math.min(...cs.map((c) => c.low)), d), trim(cs.at(-1)!.close, d)]
        const vols = m.type === 'perp' ? [contracts(m, vol), trim(vol, 8), trim(quote, 5)] : [trim(vol, 8), trim(quote, 9), trim(quote, 9)]
        out.push({ ts: t0, row: [...head, ...vols, closed ? '1' : '0'] })
      }
      return out
    }
    // `before` alone: the newest candles (after the bound), as documented
    const rows = page(series, after, after === undefined ? undefined : before, limit, step, Math.ceil(m.spec.listedAt / step) * step, opts.holes(req.path))
    const filtered = before !== undefined && after === undefined ? rows.filter((r) => r.ts > before) : rows
    return ok(filtered.map((r) => r.row))
  }

  function statistics(req: DoubleRequest, row: (m: Market, ts: number) => string[] | null, series: (m: Market, from: number, to: number) => Array<{ ts: number }>): Reply {
    const q = req.query
    const m = instrument(q)
    if (!m || m.type !== 'perp') return bad('51001', "Instrument ID doesn't exist")
    const step = PERIODS[q.get('period') ?? '5m']
    if (!step) return bad('51000', 'Parameter period error')
    const limit = intParam(q, 'limit') ?? 100
    const end = intParam(q, 'end')
    const begin = intParam(q, 'begin')
    if (Number.isNaN(limit) || limit < 1 || limit > 100) return bad('51000', 'Parameter limit error')
    if (Number.isNaN(end) || Number.isNaN(begin)) return bad('51000', 'Parameter begin or end error')
    // the latest 1,440 entries of the period
    const earliest = Math.max(m.spec.listedAt, (Math.floor(now() / step) - (STAT_ENTRIES - 1)) * step)
    const rows = page((from, to) => series(m, from, to).filter((p) => p.ts % step === 0), end, begin, limit, step, earliest, opts.holes(req.path))
    return ok(rows.map((p) => row(m, p.ts)).filter((r): r is string[] => r !== null))
  }

  function fundingHistory(req: DoubleRequest): Reply {
    const q = req.query
    const m = instrument(q)
    if (!m || m.type !== 'perp') return bad('51001', "Instrument ID doesn't exist")
    const limit = intParam(q, 'limit') ?? 400
    const after = intParam(q, 'after')
    const before = intParam(q, 'before')
    if (Number.isNaN(limit) || limit < 1 || limit > 400) return bad('51000', 'Parameter limit error')
    if (Number.isNaN(after) || Number.isNaN(before)) return bad('51000', 'Parameter after or before error')
    const h = history.predictedFunding(m.coin, now()).intervalHours
    const rows = page((from, to) => history.funding(m.coin, from, to), after, before, limit, h * HOUR, Math.max(m.spec.listedAt, now() - FUNDING_RETENTION), opts.holes(req.path))
    return ok(rows.map((f) => ({ instType: 'SWAP', instId: m.instId, fundingRate: f.rate.toFixed(10), realizedRate: f.rate.toFixed(5), fundingTime: String(f.ts) })))
  }

  // ---- live -----------------------------------------------------------------------------------
  const books = new Map<string, LiveBook>()
  const liveBook = (m: Market) => {
    let b = books.get(m.instId)
    if (!b) books.set(m.instId, (b = new LiveBook(history, m.coin, m.type, BOOK_LEVELS, now())))
    return b
  }
  const level = (m: Market, [p, s]: [number, number], orders = true) => (orders ? [fixed(p, m.priceDecimals), s === 0 ? '0' : contracts(m, s), '0', s === 0 ? '0' : '1'] : [fixed(p, m.priceDecimals), contracts(m, s), '1'])

  function ticker(m: Market) {
    const t = now()
    const day = history.candles(m.coin, m.type, t - DAY + MINUTE, t + 1)
    const last = day.at(-1)?.close ?? history.price(m.coin, m.type, t)
    const b = liveBook(m).book
    const vol = day.reduce((a, c) => a + c.volume, 0)
    const d = m.priceDecimals
    return {
      instType: m.type === 'perp' ? 'SWAP' : 'SPOT',
      instId: m.instId,
      last: fixed(last, d),
      lastSz: contracts(m, m.spec.lot),
      askPx: fixed(b.asks[0]?.[0] ?? last, d),
      askSz: contracts(m, b.asks[0]?.[1] ?? 0),
      bidPx: fixed(b.bids[0]?.[0] ?? last, d),
      bidSz: contracts(m, b.bids[0]?.[1] ?? 0),
      open24h: fixed(day[0]?.open ?? last, d),
      high24h: fixed(Math.max(last, ...day.map((c) => c.high)), d),
      low24h: fixed(Math.min(last, ...day.map((c) => c.low)), d),
      volCcy24h: m.type === 'perp' ? trim(vol, 8) : trim(day.reduce((a, c) => a + c.quoteVolume, 0), 8),
      vol24h: m.type === 'perp' ? contracts(m, vol) : trim(vol, 8),
      ts: String(t),
      sodUtc0: fixed(day[0]?.open ?? last, d),
      sodUtc8: fixed(day[0]?.open ?? last, d),
    }
  }

  function fundingRate(m: Market) {
    const t = now()
    const p = history.predictedFunding(m.coin, t)
    return {
      instType: 'SWAP',
      instId: m.instId,
      fundingRate: p.rate.toFixed(10),
      nextFundingRate: '',
      fundingTime: String(p.nextFundingTime),
      nextFundingTime: String(p.nextFundingTime + p.intervalHours * HOUR),
      minFundingRate: '-0.02',
      maxFundingRate: '0.02',
      method: 'current_period',
      formulaType: 'withRate',
      settState: 'settled',
      settFundingRate: (history.funding(m.coin, t - p.intervalHours * HOUR, t + 1).at(-1)?.rate ?? p.rate).toFixed(10),
      premium: '0.0001',
      interestRate: '0.0001',
      impactValue: '20000',
      ts: String(t),
    }
  }

  const swapsOnly = ofType('perp')
  const routes: Record<string, (req: DoubleRequest) => Reply> = {
    '/api/v5/public/time': () => ok([{ ts: String(now()) }]),
    '/api/v5/public/instruments': (r) => {
      const type = r.query.get('instType')
      if (type !== 'SWAP' && type !== 'SPOT') return bad('51000', 'Parameter instType error')
      return ok(type === 'SWAP' ? swapRows : spotRows)
    },
    '/api/v5/market/history-candles': candles,
    '/api/v5/market/candles': candles,
    '/api/v5/rubik/stat/contracts/open-interest-history': (r) =>
      statistics(
        r,
        (m, ts) => {
          const oi = history.openInterestAt(m.coin, ts)
          return [String(ts), trim(oi / m.ctVal, 8), trim(oi, 8), trim(oi * history.price(m.coin, 'perp', ts), 4)]
        },
        (m, from, to) => history.openInterest(m.coin, from, to),
      ),
    '/api/v5/rubik/stat/contracts/long-short-account-ratio-contract': (r) =>
      statistics(
        r,
        (m, ts) => {
          const p = history.longShort(m.coin, 'account', ts, ts + 1)[0]
          return p ? [String(ts), String(p.ratio)] : null
        },
        (m, from, to) => history.longShort(m.coin, 'account', from, to),
      ),
    '/api/v5/public/funding-rate-history': fundingHistory,
    '/api/v5/public/funding-rate': (r) => {
      const id = r.query.get('instId')
      if (id === 'ANY') return ok(swapsOnly.map(fundingRate))
      const m = markets.get(id ?? '')
      return m && m.type === 'perp' ? ok([fundingRate(m)]) : bad('51001', "Instrument ID doesn't exist")
    },
    '/api/v5/market/tickers': (r) => {
      const type = r.query.get('instType')
      if (type !== 'SWAP' && type !== 'SPOT') return bad('51000', 'Parameter instType error')
      return ok(ofType(type === 'SWAP' ? 'perp' : 'spot').map(ticker))
    },
    '/api/v5/public/mark-price': () => ok(swapsOnly.map((m) => ({ instType: 'SWAP', instId: m.instId, markPx: fixed(history.price(m.coin, 'perp', now()), m.priceDecimals), ts: String(now()) }))),
    '/api/v5/market/index-tickers': () =>
      ok(
        swapsOnly.map((m) => {
          const idx = fixed(history.price(m.coin, 'perp', now()) * 1.0001, m.priceDecimals)
          return { instId: m.instId.replace(/-SWAP$/, ''), idxPx: idx, high24h: idx, sodUtc0: idx, open24h: idx, low24h: idx, sodUtc8: idx, ts: String(now()) }
        }),
      ),
    '/api/v5/public/open-interest': (r) => {
      const id = r.query.get('instId')
      const ms = id ? [markets.get(id)] : swapsOnly
      if (ms.some((m) => !m || m.type !== 'perp')) return bad('51001', "Instrument ID doesn't exist")
      return ok(
        ms.map((m) => {
          const oi = history.openInterestAt(m!.coin, now())
          return { instId: m!.instId, instType: 'SWAP', oi: trim(oi / m!.ctVal, 8), oiCcy: trim(oi, 8), oiUsd: trim(oi * history.price(m!.coin, 'perp', now()), 6), ts: String(now()) }
        }),
      )
    },
    '/api/v5/market/books-full': (r) => {
      const m = instrument(r.query)
      if (!m) return bad('51001', "Instrument ID doesn't exist")
      const sz = Math.min(intParam(r.query, 'sz') ?? 1, 5000)
      const b = liveBook(m).book
      return ok([{ asks: b.asks.slice(0, sz).map((l) => level(m, l, false)), bids: b.bids.slice(0, sz).map((l) => level(m, l, false)), ts: String(now()) }])
    },
    '/api/v5/market/books': (r) => {
      const m = instrument(r.query)
      if (!m) return bad('51001', "Instrument ID doesn't exist")
      const sz = Math.min(intParam(r.query, 'sz') ?? 1, BOOK_LEVELS)
      const b = liveBook(m).book
      return ok([{ asks: b.asks.slice(0, sz).map((l) => level(m, l)), bids: b.bids.slice(0, sz).map((l) => level(m, l)), ts: String(now()) }])
    },
    '/api/v5/public/position-tiers': (r) => {
      const family = r.query.get('instFamily') ?? r.query.get('uly')
      const m = swapsOnly.find((x) => x.instId === `${family}-SWAP`)
      if (!m) return bad('51000', 'Parameter instFamily error')
      const unit = Math.round(1_000_000 / history.price(m.coin, 'perp', now()) / m.ctVal)
      return ok([1, 2, 3].map((tier) => ({ uly: family, instFamily: family, instId: '', tier: String(tier), minSz: String(tier === 1 ? 0 : unit * 10 ** (tier - 2)), maxSz: String(unit * 10 ** (tier - 1)), mmr: String(0.004 * tier), imr: String(0.008 * tier), maxLever: String(125 / 2 ** (tier - 1)), optMgnFactor: '0', quoteMaxLoan: '', baseMaxLoan: '' })))
    },
  }

  const windows = new Map<string, WindowCounter>()
  const behaviour: VenueBehaviour = {
    handle(req) {
      const route = routes[req.path]
      if (!route || req.method !== 'GET') return null
      const rule = OKX_LIMITS[req.path] ?? { per2s: 20, perInstrument: false }
      const key = rule.perInstrument ? `${req.path}|${req.query.get('instId') ?? ''}` : req.path
      let w = windows.get(key)
      if (!w) windows.set(key, (w = new WindowCounter(2_000, rule.per2s, now)))
      if (w.add(1).over) return tooMany()
      return route(req)
    },
    notFound: () => ({ status: 404, body: { code: '50014', msg: 'Not Found', data: [] } }),
    faultReply(f: Exclude<Fault, { kind: 'down' | 'hole' }>) {
      switch (f.kind) {
        case 'rate_limit':
        case 'ban418':
        case 'bybit10006':
          return tooMany()
        case 'refuse':
          return { status: f.status, body: CLOUDFRONT_403 }
        case 'fail':
          return { status: f.status ?? 503, body: { code: '50001', msg: 'Service temporarily unavailable. Please try again later', data: [] } }
      }
    },
    connection: (ws) => streams.connect(ws),
    push: () => streams.push(),
  }
  const streams = okxStreams(history, markets, liveBook, level, contracts, now)
  return { behaviour, history }
}

/** OKX's books checksum: CRC32 (signed) of "bid1Px:bid1Sz:ask1Px:ask1Sz:…" over the top 25 levels, strings as sent */
function checksum(bids: string[][], asks: string[][]): number {
  const parts: string[] = []
  for (let i = 0; i < 25; i++) {
    if (bids[i]) parts.push(`${bids[i]![0]}:${bids[i]![1]}`)
    if (asks[i]) parts.push(`${asks[i]![0]}:${asks[i]![1]}`)
  }
  return crc32(parts.join(':')) | 0
}

function okxStreams(
  history: HistoryData,
  markets: Map<string, Market>,
  liveBook: (m: Market) => LiveBook,
  level: (m: Market, l: [number, number], orders?: boolean) => string[],
  contracts: (m: Market, coins: number) => string,
  now: () => number,
) {
  interface Client {
    ws: WebSocket
    subs: Map<string, { channel: string; instId?: string; instType?: string }>
    cursor: StreamCursor
  }
  const clients = new Set<Client>()
  let connId = 0
  const bookFrame = (m: Market, action: 'snapshot' | 'update', bids: Array<[number, number]>, asks: Array<[number, number]>, prevSeqId: number) => {
    const b = liveBook(m)
    const all = { bids: b.book.bids.map((l) => level(m, l)), asks: b.book.asks.map((l) => level(m, l)) }
    return { arg: { channel: 'books', instId: m.instId }, action, data: [{ asks: asks.map((l) => level(m, l)), bids: bids.map((l) => level(m, l)), ts: String(now()), checksum: checksum(all.bids, all.asks), prevSeqId, seqId: b.updateId }] }
  }

  return {
    connect(ws: WebSocket) {
      const c: Client = { ws, subs: new Map(), cursor: new StreamCursor() }
      const id = `double${++connId}`
      clients.add(c)
      ws.on('close', () => clients.delete(c))
      ws.on('message', (data) => {
        const text = String(data)
        if (text === 'ping') return send(ws, 'pong')
        let msg: { op?: string; args?: Array<{ channel?: string; instId?: string; instType?: string }> }
        try {
          msg = JSON.parse(text) as typeof msg
        } catch {
          return send(ws, { event: 'error', msg: `Illegal request: ${text}`, code: '60012', connId: id })
        }
        for (const arg of msg.args ?? []) {
          const key = JSON.stringify(arg)
          if (msg.op === 'unsubscribe') {
            c.subs.delete(key)
            send(ws, { event: 'unsubscribe', arg, connId: id })
            continue
          }
          const m = arg.instId ? markets.get(arg.instId) : undefined
          const known = arg.channel === 'liquidation-orders' ? arg.instType === 'SWAP' : (arg.channel === 'books' || arg.channel === 'trades') && m
          if (msg.op !== 'subscribe' || !known) {
            send(ws, { event: 'error', msg: `Wrong URL or channel:${String(arg.channel)},instId:${String(arg.instId)} doesn't exist.`, code: '60018', connId: id })
            continue
          }
          c.subs.set(key, { channel: arg.channel!, instId: arg.instId, instType: arg.instType })
          c.cursor.start(key, now())
          send(ws, { event: 'subscribe', arg, connId: id })
          if (arg.channel === 'books') {
            const b = liveBook(m!)
            send(ws, bookFrame(m!, 'snapshot', b.book.bids, b.book.asks, -1))
          }
        }
      })
    },
    push() {
      const t = now()
      for (const m of markets.values()) {
        const followers = [...clients].filter((c) => [...c.subs.values()].some((s) => s.channel === 'books' && s.instId === m.instId))
        if (followers.length === 0) continue
        const d = liveBook(m).advance(t)
        if (!d) continue
        const frame = bookFrame(m, 'update', d.bids, d.asks, d.prevId)
        for (const c of followers) send(c.ws, frame)
      }
      for (const c of clients)
        for (const [key, s] of c.subs) {
          if (s.channel === 'trades') {
            const m = markets.get(s.instId!)!
            const trades = freshTrades(history, c.cursor, key, m.coin, m.type, t)
            if (trades.length) send(c.ws, { arg: { channel: 'trades', instId: m.instId }, data: trades.map((x) => ({ instId: m.instId, tradeId: String(x.id), px: fixed(x.price, m.priceDecimals), sz: contracts(m, x.size), side: x.buy ? 'buy' : 'sell', ts: String(x.ts), count: '1' })) })
          } else if (s.channel === 'liquidation-orders') {
            const w = c.cursor.window(key, t)
            const data = [...markets.values()]
              .filter((m) => m.type === 'perp')
              .flatMap((m) => {
                const ls = liquidations(history, m.coin, w.from, w.to)
                const family = m.instId.replace(/-SWAP$/, '')
                return ls.length ? [{ instType: 'SWAP', instFamily: family, uly: family, instId: m.instId, details: ls.map((l) => ({ side: l.side === 'long' ? 'sell' : 'buy', posSide: l.side, bkPx: fixed(l.price, m.priceDecimals), sz: contracts(m, l.size), bkLoss: '0', ccy: '', ts: String(l.ts) })) }] : []
              })
            if (data.length) send(c.ws, { arg: { channel: 'liquidation-orders', instType: 'SWAP' }, data })
          }
        }
    },
  }
}
