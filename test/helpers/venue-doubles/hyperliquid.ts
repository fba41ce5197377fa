// Hyperliquid double: POST /info (typed bodies) and the /ws streams.
//
// Rules it enforces, with their sources (hyperliquid.gitbook.io/hyperliquid-docs, "Rate limits and user limits" and
// "Info endpoint"; CCXT 4.5.84 js/src/hyperliquid.js and pro/hyperliquid.js):
// - "REST requests share an aggregated weight limit of 1200 per minute" per IP; info weight 2 for l2Book, allMids,
//   clearinghouseState, orderStatus, spotClearinghouseState, exchangeStatus; 60 for userRole; 20 for every other type;
//   plus 1 per 20 items returned for recentTrades and fundingHistory (among others) and 1 per 60 items returned for
//   candleSnapshot. Over the limit: HTTP 429 (the body is not documented; the double sends a short text). Windows on
//   the minute of the double's clock.
// - candleSnapshot: {coin, interval, startTime, endTime}; "Only the most recent 5000 candles are available" for an
//   interval (at 1m that is 3.47 days: older minutes are simply absent), at most 5000 per response, oldest first from
//   startTime; rows {t, T, s, i, o, c, h, l, v, n} (fixtures hyperliquid/candles.json). No taker split.
// - fundingHistory: {coin, startTime, endTime?}; "responses that take a time range return at most 500 elements ... use
//   the last returned timestamp as the next startTime"; hourly settlements {coin, fundingRate, premium, time}
//   (fixtures funding_history.json). No open-interest history is published (metaAndAssetCtxs has the current value only).
// - metaAndAssetCtxs / meta: the recorded universe (fixtures meta_and_asset_ctxs.json), contexts live from the series;
//   `openInterest` is both sides (the connector halves it), funding the current hourly rate. l2Book: at most 20 levels
//   a side, nSigFigs 2..5 aggregation. recentTrades.
// - Streams: {"method":"subscribe","subscription":{"type":"trades"|"l2Book",…}} → {"channel":"subscriptionResponse",…};
//   trades {coin, side B/A (taker), px, sz, time, hash, tid, users}; l2Book full snapshots on change;
//   {"method":"ping"} → {"channel":"pong"}.
import type { WebSocket } from 'ws'
import { venueFixture } from './fixtures.js'
import { createHistory, DAY, HOUR, MINUTE, roundTo, type HistoryData, type MarketSpec } from './history.js'
import { bookAt, type Level } from './books.js'
import { WindowCounter } from './limits.js'
import type { DoubleRequest, Fault, Reply, VenueBehaviour } from './server.js'
import { freshTrades, inHole, send, StreamCursor, type VenueOptions } from './venue-kit.js'

type Raw = Record<string, unknown>
export const HYPERLIQUID_LIMITS = { weightPerMinute: 1200, candlesAvailable: 5000, candlesPerResponse: 5000, fundingPerResponse: 500 } as const
const INTERVALS: Record<string, number> = { '1m': MINUTE, '3m': 3 * MINUTE, '5m': 5 * MINUTE, '15m': 15 * MINUTE, '30m': 30 * MINUTE, '1h': HOUR }
const LIGHT = new Set(['l2Book', 'allMids', 'clearinghouseState', 'orderStatus', 'spotClearinghouseState', 'exchangeStatus'])

/** Hyperliquid's number strings: the value, trailing zeros dropped, a whole number written "69997.0" */
const hl = (x: number, d: number) => {
  const s = String(Number(x.toFixed(d)))
  return s.includes('.') ? s : `${s}.0`
}

export function hyperliquidVenue(opts: VenueOptions): { behaviour: VenueBehaviour; history: HistoryData } {
  const { now } = opts
  const started = now()
  const [meta] = venueFixture<[{ universe: Array<{ name: string; szDecimals: number; maxLeverage: number }> }, Raw[]]>('hyperliquid/meta_and_asset_ctxs.json')
  const recorded = new Map(meta.universe.map((u) => [u.name, u]))
  const coins = opts.coins ?? [...recorded.keys()]
  const universe = coins.map((c) => recorded.get(c) ?? { name: c, szDecimals: 2, maxLeverage: 20 })
  const probe = createHistory({ venue: 'hyperliquid', seed: 0, now: () => started, markets: {} })
  const specs: Record<string, { perp: MarketSpec }> = {}
  const decimals = new Map<string, { px: number; sz: number }>()
  for (const u of universe) {
    const p = probe.price(u.name, 'perp', started)
    // prices: 5 significant figures and at most 6 - szDecimals decimals (Hyperliquid's tick rules)
    const pxDecimals = Math.max(0, Math.min(6 - u.szDecimals, 4 - Math.floor(Math.log10(p))))
    specs[u.name] = { perp: { tick: 10 ** -pxDecimals, lot: 10 ** -u.szDecimals, listedAt: opts.listedAt?.[u.name] ?? started - 400 * DAY } }
    decimals.set(u.name, { px: pxDecimals, sz: u.szDecimals })
  }
  const fundingHours = Object.fromEntries(universe.map((u) => [u.name, opts.fundingIntervalHours?.[u.name] ?? 1]))
  const history = createHistory({ venue: 'hyperliquid', seed: opts.seed, now, markets: specs, fundingIntervalHours: fundingHours })
  const dec = (coin: string) => decimals.get(coin)!

  function ctx(coin: string) {
    const t = now()
    const mark = history.price(coin, 'perp', t)
    const d = dec(coin).px
    const p = history.predictedFunding(coin, t)
    const day = history.candles(coin, 'perp', t - DAY + MINUTE, t + 1)
    const ntl = day.reduce((a, c) => a + c.quoteVolume, 0)
    return {
      funding: p.rate.toFixed(8),
      openInterest: hl(2 * history.openInterestAt(coin, t), dec(coin).sz),
      prevDayPx: hl(day[0]?.open ?? mark, d),
      dayNtlVlm: ntl.toFixed(2),
      premium: '0.0',
      oraclePx: hl(mark * 0.9999, d),
      markPx: hl(mark, d),
      midPx: hl(mark, d),
      impactPxs: [hl(mark * 0.9999, d), hl(mark * 1.0001, d)],
      dayBaseVlm: day.reduce((a, c) => a + c.volume, 0).toFixed(dec(coin).sz),
    }
  }

  function l2(coin: string, nSigFigs: number | null): { coin: string; time: number; levels: Array<Array<{ px: string; sz: string; n: number }>> } {
    const t = now()
    const book = bookAt(history, coin, 'perp', t, 60)
    const d = dec(coin)
    const mid = history.price(coin, 'perp', t)
    const bucket = nSigFigs ? 10 ** (Math.floor(Math.log10(mid)) - nSigFigs + 1) : 0
    const side = (levels: Level[], up: boolean) => {
      const merged = new Map<number, { sz: number; n: number }>()
      for (const [p, s] of levels) {
        const key = bucket ? roundTo((up ? Math.ceil(p / bucket) : Math.floor(p / bucket)) * bucket, Math.min(bucket, 1)) : p
        const m = merged.get(key) ?? { sz: 0, n: 0 }
        merged.set(key, { sz: m.sz + s, n: m.n + 1 })
      }
      return [...merged.entries()].slice(0, 20).map(([p, v]) => ({ px: hl(p, d.px), sz: hl(v.sz, d.sz), n: v.n }))
    }
    return { coin, time: t, levels: [side(book.bids, false), side(book.asks, true)] }
  }

  const trade = (coin: string, x: { id: number; ts: number; price: number; size: number; buy: boolean }) => ({
    coin,
    side: x.buy ? 'B' : 'A',
    px: hl(x.price, dec(coin).px),
    sz: hl(x.size, dec(coin).sz),
    time: x.ts,
    hash: `0x${x.id.toString(16).padStart(64, '0')}`,
    tid: x.id,
    users: ['0x0000000000000000000000000000000000000001', '0x0000000000000000000000000000000000000002'],
  })

  /** the answer to one /info body and the items it returned (for the per-item weights) */
  function info(body: Raw, path: string): { reply: Reply; items: number } {
    const type = String(body['type'])
    const coin = typeof body['coin'] === 'string' ? body['coin'] : undefined
    const known = (c: unknown): c is string => typeof c === 'string' && c in specs
    switch (type) {
      case 'meta':
        return { reply: { status: 200, body: { universe } }, items: 0 }
      case 'metaAndAssetCtxs':
        return { reply: { status: 200, body: [{ universe }, universe.map((u) => ctx(u.name))] }, items: 0 }
      case 'allMids':
        return { reply: { status: 200, body: Object.fromEntries(universe.map((u) => [u.name, hl(history.price(u.name, 'perp', now()), dec(u.name).px)])) }, items: 0 }
      case 'l2Book':
        if (!known(coin)) return { reply: { status: 200, body: null }, items: 0 }
        return { reply: { status: 200, body: l2(coin, typeof body['nSigFigs'] === 'number' ? body['nSigFigs'] : null) }, items: 0 }
      case 'recentTrades': {
        if (!known(coin)) return { reply: { status: 200, body: [] }, items: 0 }
        const rows = history.trades(coin, 'perp', now() - 5 * MINUTE, now() + 1).slice(-10).reverse().map((x) => trade(coin, x))
        return { reply: { status: 200, body: rows }, items: rows.length }
      }
      case 'candleSnapshot': {
        const req = (body['req'] ?? {}) as Raw
        const c = req['coin']
        const step = INTERVALS[String(req['interval'])]
        if (!known(c) || !step || typeof req['startTime'] !== 'number') return { reply: { status: 422, body: 'Failed to deserialize the JSON body into the target type' }, items: 0 }
        const t = now()
        // only the most recent 5000 candles of the interval exist
        const oldest = (Math.floor(t / step) - (HYPERLIQUID_LIMITS.candlesAvailable - 1)) * step
        const from = Math.max(Math.ceil(req['startTime'] / step) * step, oldest, Math.ceil(specs[c]!.perp.listedAt / step) * step)
        const to = Math.min(typeof req['endTime'] === 'number' ? req['endTime'] : t, t)
        const holes = opts.holes(path)
        const d = dec(c)
        const rows: unknown[] = []
        for (let t0 = from; t0 <= to && rows.length < HYPERLIQUID_LIMITS.candlesPerResponse; t0 += step) {
          const cs = history.candles(c, 'perp', t0, t0 + step).filter((x) => !inHole(holes, x.openTime))
          if (cs.length === 0) continue
          rows.push({ t: t0, T: t0 + step - 1, s: c, i: String(req['interval']), o: hl(cs[0]!.open, d.px), c: hl(cs.at(-1)!.close, d.px), h: hl(Math.max(...cs.map((x) => x.high)), d.px), l: hl(Math.min(...cs.map((x) => x.low)), d.px), v: hl(cs.reduce((a, x) => a + x.volume, 0), d.sz), n: cs.reduce((a, x) => a + x.trades, 0) })
        }
        return { reply: { status: 200, body: rows }, items: rows.length }
      }
      case 'fundingHistory': {
        if (!known(coin) || typeof body['startTime'] !== 'number') return { reply: { status: 422, body: 'Failed to deserialize the JSON body into the target type' }, items: 0 }
        const end = typeof body['endTime'] === 'number' ? body['endTime'] : now()
        const holes = opts.holes(path)
        const rows = history
          .funding(coin, body['startTime'], Math.min(end, now()) + 1)
          .filter((f) => !inHole(holes, f.ts))
          .slice(0, HYPERLIQUID_LIMITS.fundingPerResponse)
          .map((f) => ({ coin, fundingRate: f.rate.toFixed(8), premium: (f.rate - 0.0000125).toFixed(8), time: f.ts }))
        return { reply: { status: 200, body: rows }, items: rows.length }
      }
      default:
        return { reply: { status: 422, body: 'Failed to deserialize the JSON body into the target type' }, items: 0 }
    }
  }

  const weight = new WindowCounter(MINUTE, HYPERLIQUID_LIMITS.weightPerMinute, now)
  const tooMany = (): Reply => ({ status: 429, body: 'Too many requests' })
  const behaviour: VenueBehaviour = {
    handle(req: DoubleRequest) {
      if (req.path !== '/info' || req.method !== 'POST') return null
      let body: Raw
      try {
        body = JSON.parse(req.body ?? '') as Raw
      } catch {
        return { status: 422, body: 'Failed to deserialize the JSON body into the target type' }
      }
      // a request that finds the minute's weight spent is refused; the one that spends it is still answered
      if (weight.peek().used >= HYPERLIQUID_LIMITS.weightPerMinute) return tooMany()
      const type = String(body['type'])
      const { reply, items } = info(body, `/info:${type}`)
      const extra = type === 'candleSnapshot' ? Math.floor(items / 60) : type === 'fundingHistory' || type === 'recentTrades' ? Math.floor(items / 20) : 0
      weight.add((LIGHT.has(type) ? 2 : type === 'userRole' ? 60 : 20) + extra)
      return reply
    },
    notFound: () => ({ status: 404, body: 'Not Found' }),
    faultReply(f: Exclude<Fault, { kind: 'down' | 'hole' }>) {
      switch (f.kind) {
        case 'rate_limit':
        case 'ban418':
        case 'bybit10006':
          return tooMany()
        case 'refuse':
          return { status: f.status, body: 'Forbidden' }
        case 'fail':
          return { status: f.status ?? 502, body: 'Bad Gateway' }
      }
    },
    connection: (ws) => streams.connect(ws),
    push: () => streams.push(),
  }

  // ---- streams --------------------------------------------------------------------------------
  const streams = (() => {
    interface Client {
      ws: WebSocket
      subs: Map<string, Raw>
      cursor: StreamCursor
      books: Map<string, string>
    }
    const clients = new Set<Client>()
    const sendBook = (c: Client, key: string, sub: Raw) => {
      const b = l2(String(sub['coin']), typeof sub['nSigFigs'] === 'number' ? sub['nSigFigs'] : null)
      const levels = JSON.stringify(b.levels)
      if (c.books.get(key) === levels) return
      c.books.set(key, levels)
      send(c.ws, { channel: 'l2Book', data: b })
    }
    return {
      connect(ws: WebSocket) {
        const c: Client = { ws, subs: new Map(), cursor: new StreamCursor(), books: new Map() }
        clients.add(c)
        ws.on('close', () => clients.delete(c))
        ws.on('message', (data) => {
          let msg: { method?: string; subscription?: Raw }
          try {
            msg = JSON.parse(String(data)) as typeof msg
          } catch {
            return send(ws, { channel: 'error', data: `Error parsing JSON into valid websocket request: ${String(data)}` })
          }
          if (msg.method === 'ping') return send(ws, { channel: 'pong' })
          const sub = msg.subscription ?? {}
          const key = JSON.stringify(sub)
          if (msg.method === 'unsubscribe') {
            c.subs.delete(key)
            return send(ws, { channel: 'subscriptionResponse', data: { method: 'unsubscribe', subscription: sub } })
          }
          if (msg.method !== 'subscribe' || !(String(sub['coin']) in specs) || (sub['type'] !== 'trades' && sub['type'] !== 'l2Book'))
            return send(ws, { channel: 'error', data: `Invalid subscription ${JSON.stringify(sub)}` })
          c.subs.set(key, sub)
          c.cursor.start(key, now())
          send(ws, { channel: 'subscriptionResponse', data: { method: 'subscribe', subscription: sub } })
          if (sub['type'] === 'l2Book') sendBook(c, key, sub)
        })
      },
      push() {
        const t = now()
        for (const c of clients)
          for (const [key, sub] of c.subs) {
            const coin = String(sub['coin'])
            if (sub['type'] === 'l2Book') sendBook(c, key, sub)
            else {
              const trades = freshTrades(history, c.cursor, key, coin, 'perp', t)
              if (trades.length) send(c.ws, { channel: 'trades', data: trades.map((x) => trade(coin, x)) })
            }
          }
      },
    }
  })()
  return { behaviour, history }
}
