// The screener endpoints on the replayed fixture recording (real venue payloads through the connectors): large trades
// are the recorded trades of at least 100,000 USD (the Bybit ones checked against the raw payload); the overview,
// funding arbitrage and regime figures are derived here from the raw venue bodies and frames of the recording
// (recordings/fixtures.jsonl) by the definitions of docs/methodology.md, the fee table read from that page, and placed
// on the replay's time line by the warp docs/recordings.md states.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { bybitTrades } from './expected.js'
import { FIXTURES_RECORDING, startReplayService, type ReplayService } from './helpers.js'
import { LINES, one, payloads, warpOf } from './recorded.js'

const MINUTE = 60_000
const HOUR = 3_600_000
const DAY = 24 * HOUR
/** a venue's rate or open interest counts while no older than this (FUNDING_MAX_SAMPLE_AGE_MS, OI sample tolerance) */
const FRESH_MS = 5 * MINUTE
const VENUES = ['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'] as const
type Venue = (typeof VENUES)[number]

let s: ReplayService
/** a recorded (venue) time on the replay's time line */
let warped: (t: number) => number
beforeAll(async () => {
  s = await startReplayService(FIXTURES_RECORDING, { start: Date.UTC(2026, 2, 2, 12, 0, 0), env: { LOG_LEVEL: 'silent' } })
  await s.playToEnd()
  warped = warpOf(s.replay.clock.shift)
}, 120_000)
afterAll(async () => {
  await s?.close()
})

const get = async (path: string) => {
  const res = await s.get(path)
  expect(res.status, `${path} ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200)
  return res.body.data
}
const close = (a: number | null, b: number, what = '') => {
  expect(a, what).not.toBeNull()
  expect(Math.abs(a! - b), `${what} ${a} vs ${b}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(b)))
}

/** the perp markets the recorded market lists name: venue symbol -> coin (and what else the list says of it) */
function listedPerps() {
  const binance = new Map<string, string>(one('binance/instruments.json').symbols.filter((x: any) => x.contractType === 'PERPETUAL').map((x: any) => [x.symbol, x.baseAsset]))
  const bybit = new Map<string, { coin: string; intervalHours: number }>(one('bybit/instruments.json').result.list.map((x: any) => [x.symbol, { coin: x.baseCoin, intervalHours: Number(x.fundingInterval) / 60 }]))
  const okx = new Map<string, string>(one('okx/instruments.json').data.map((x: any) => [x.instId, x.ctValCcy ?? x.instId.split('-')[0]]))
  return { binance, bybit, okx }
}

/** the newest recorded REST body of a source file (by receive time) */
const newest = (sources: string[]) => sources.map((f) => LINES.find((l) => l.source === f)!).sort((a, b) => a.at - b.at).map((l) => JSON.parse(l.body!)).at(-1)

/** the first settlement of an hourly venue after a recorded time (Hyperliquid and dYdX settle on the UTC hour) */
const nextHour = (t: number) => Math.floor(t / HOUR) * HOUR + HOUR

interface Quote {
  exchange: Venue
  coin: string
  /** predicted rate per intervalHours */
  rate: number | null
  intervalHours: number
  mark: number
  /** next settlement on the replay's time line */
  next: number
  /** the venue time of the figures, on the replay's time line */
  ts: number
  /** one-sided open interest in coins, where the venue's payload gives one */
  oi: number | null
  /** the mark that values oi (OKX: its mark-price row) */
  oiMark: number | null
}

/**
 * Each venue's current funding, mark and open interest per coin, from the raw payloads the replay answered its last
 * polls with. Poll time of the last polls: the recording's last line (the replay ends there).
 */
function recordedQuotes(): Quote[] {
  const listed = listedPerps()
  const lastAt = LINES.at(-1)!.at
  const out: Quote[] = []
  // Binance premiumIndex (all symbols): lastFundingRate is the rate due at nextFundingTime; no interval in the body and
  // no fundingInfo recorded, so a symbol settles every 8 h (Binance's default for unlisted symbols)
  const pi = one<any[]>('binance/premium_index_all.json')
  for (const r of pi.filter((x) => listed.binance.has(x.symbol))) {
    expect(r.nextFundingTime % (8 * HOUR), 'Binance settles on the 8 h grid').toBe(0)
    const ts = warped(r.time)
    out.push({ exchange: 'binance', coin: listed.binance.get(r.symbol)!, rate: Number(r.lastFundingRate), intervalHours: 8, mark: Number(r.markPrice), next: ts + r.nextFundingTime - r.time, ts, oi: null, oiMark: null })
  }
  expect(LINES.some((l) => l.url?.includes('/fapi/v1/openInterest')), 'no Binance open interest recorded').toBe(false)
  expect(LINES.some((l) => l.url?.includes('/fapi/v1/fundingInfo')), 'no Binance fundingInfo recorded').toBe(false)
  // Bybit tickers: the newest body answers; openInterest one-sided before the 2026 change (no singleOpenInterest)
  const bt = newest(['bybit/tickers_testnet.json', 'bybit/tickers.json'])
  for (const r of bt.result.list.filter((x: any) => listed.bybit.has(x.symbol))) {
    const { coin, intervalHours } = listed.bybit.get(r.symbol)!
    const ts = warped(Number(bt.time))
    expect(r.singleOpenInterest).toBeUndefined()
    out.push({ exchange: 'bybit', coin, rate: Number(r.fundingRate), intervalHours, mark: Number(r.markPrice), next: ts + Number(r.nextFundingTime) - Number(bt.time), ts, oi: Number(r.openInterest), oiMark: Number(r.markPrice) })
  }
  // OKX: mark-price and open-interest of BTC-USDT-SWAP; no public/funding-rate answer is recorded, so no rate
  expect(LINES.some((l) => l.venue === 'okx' && /\/public\/funding-rate(\?|$)/.test(l.url ?? '')), 'no OKX funding-rate recorded').toBe(false)
  const marks = one('okx/mark_price.json').data
  for (const o of one('okx/open_interest.json').data.filter((x: any) => listed.okx.has(x.instId))) {
    const m = marks.find((x: any) => x.instId === o.instId)
    out.push({ exchange: 'okx', coin: listed.okx.get(o.instId)!, rate: null, intervalHours: 8, mark: Number(m.markPx), next: 0, ts: warped(Number(o.ts)), oi: Number(o.oiCcy), oiMark: Number(m.markPx) })
  }
  // Hyperliquid metaAndAssetCtxs: funding is hourly; openInterest counts both sides (halved); no time in the body
  const [meta, ctxs] = one<[{ universe: { name: string }[] }, Record<string, string>[]]>('hyperliquid/meta_and_asset_ctxs.json')
  meta.universe.forEach((u, i) => {
    const c = ctxs[i]!
    out.push({ exchange: 'hyperliquid', coin: u.name, rate: Number(c.funding), intervalHours: 1, mark: Number(c.markPx), next: warped(nextHour(lastAt)), ts: warped(lastAt), oi: Number(c.openInterest) / 2, oiMark: Number(c.markPx) })
  })
  // dYdX perpetualMarkets: nextFundingRate hourly; oraclePrice is the mark; no time in the body
  for (const [ticker, m] of Object.entries<any>(one('dydx/perpetual_markets.json').markets))
    out.push({ exchange: 'dydx', coin: ticker.replace(/-USD$/, ''), rate: Number(m.nextFundingRate), intervalHours: 1, mark: Number(m.oraclePrice), next: warped(nextHour(lastAt)), ts: warped(lastAt), oi: Number(m.openInterest), oiMark: Number(m.oraclePrice) })
  return out
}

/** the recorded perp trades of the listed markets: [venue, coin, venue time, price, size], in file order */
function recordedPerpTrades(): Array<{ venue: Venue; coin: string; t: number; price: number; size: number }> {
  const listed = listedPerps()
  const out: Array<{ venue: Venue; coin: string; t: number; price: number; size: number }> = []
  for (const l of LINES.filter((x) => x.kind === 'ws')) {
    const f = JSON.parse(l.frame!)
    if (l.venue === 'bybit' && String(f.topic).startsWith('publicTrade.'))
      for (const t of f.data) if (listed.bybit.has(t.s)) out.push({ venue: 'bybit', coin: listed.bybit.get(t.s)!.coin, t: t.T, price: Number(t.p), size: Number(t.v) })
    if (l.venue === 'hyperliquid' && f.channel === 'trades') for (const t of f.data) out.push({ venue: 'hyperliquid', coin: t.coin, t: t.time, price: Number(t.px), size: Number(t.sz) })
    if (l.venue === 'dydx' && f.channel === 'v4_trades')
      for (const t of f.contents.trades) out.push({ venue: 'dydx', coin: String(f.id).replace(/-USD$/, ''), t: Date.parse(t.createdAt), price: Number(t.price), size: Number(t.size) })
    // the recorded Binance and OKX trades are of instruments their recorded market lists do not hold
    if (l.venue === 'binance' && f.data?.e === 'aggTrade') expect(listed.binance.has(f.data.s)).toBe(false)
    if (l.venue === 'okx' && f.arg?.channel === 'trades') expect(listed.okx.has(f.arg.instId)).toBe(false)
  }
  return out
}

/**
 * the prices of a venue's last recorded perp trades of a coin on the replay's time line: those of the newest instant in
 * the closed minutes that open within the 5 minutes before now (the stored minutes are what the service reads)
 */
function lastTrades(venue: Venue, coin: string, now: number): number[] {
  const minute = (t: number) => Math.floor(warped(t) / MINUTE) * MINUTE
  const ts = recordedPerpTrades().filter((t) => t.venue === venue && t.coin === coin && minute(t.t) >= now - FRESH_MS && minute(t.t) + MINUTE <= now)
  if (!ts.length) return []
  const newest = Math.max(...ts.map((t) => t.t))
  return [...new Set(ts.filter((t) => t.t === newest).map((t) => t.price))]
}

/** the coin of the opportunity a leg belongs to */
const o_coin = (d: any, leg: any): string => d.opportunities.find((o: any) => o.long === leg || o.short === leg).coin

/** the base-tier taker fees of docs/methodology.md's fee table */
function documentedFees(): Map<string, { fee: number; source: string }> {
  const doc = readFileSync(new URL('../../../docs/methodology.md', import.meta.url), 'utf8')
  const from = doc.indexOf('**Fee table**')
  const table = doc.slice(from, doc.indexOf('**Limits.**', from))
  const out = new Map<string, { fee: number; source: string }>()
  for (const m of table.matchAll(/^\| (\S+)[^|]*\| ([\d.]+) % \| (\S+)/gm)) out.set(m[1]!.toLowerCase(), { fee: Number(m[2]) / 100, source: m[3]! })
  expect([...out.keys()]).toEqual([...VENUES])
  return out
}

describe('screener endpoints on a replayed recording', () => {
  it('large trades: the recorded Bybit trades of at least 100,000 USD, with their ids, sides, prices and sizes', async () => {
    const want = bybitTrades().filter((x) => Number(x.p) * Number(x.v) >= 100_000)
    expect(want.length).toBeGreaterThan(0)
    const { status, body } = await s.get('/v1/flow/large-trades?min_usd=100000&exchange=bybit&limit=5000')
    expect(status).toBe(200)
    const got = body.data.trades
    expect(got.map((x: { trade_id: string }) => x.trade_id).sort()).toEqual(want.map((x) => (x as unknown as { i: string }).i).sort())
    for (const w of want) {
      const g = got.find((x: { trade_id: string }) => x.trade_id === (w as unknown as { i: string }).i)
      expect([g.price, g.size, g.side, g.coin, g.market_type]).toEqual([Number(w.p), Number(w.v), w.S === 'Buy' ? 'buy' : 'sell', 'BTC', 'perp'])
    }
    const stored = await s.t.services.db.sql.query<{ n: string }>('SELECT count(*) AS n FROM large_trade WHERE notional_usd < 100000')
    expect(Number(stored[0]!.n)).toBe(0)
  })

  it('funding arbitrage: every pair of venues with a recorded current rate, legs, differential, APR, price spread, fees and net APR; ranked', async () => {
    const fees = documentedFees()
    const now = s.now()
    const quotes = recordedQuotes()
    const coins: string[] = (await get('/v1/markets/overview')).coins.map((c: { coin: string }) => c.coin)
    const usable = quotes.filter((q) => coins.includes(q.coin) && q.rate !== null)
    for (const q of usable) expect(now - q.ts, `${q.exchange} ${q.coin} fresh`).toBeLessThanOrEqual(FRESH_MS)
    const check = async (query: string, onlyCoin: string | null, holdingHours: number) => {
      const d = await get(`/v1/funding/arbitrage${query}`)
      expect(d.holding_hours).toBe(holdingHours)
      expect(d.fees).toEqual(VENUES.map((e) => ({ exchange: e, taker_fee: fees.get(e)!.fee, source: fees.get(e)!.source })))
      const want: any[] = []
      for (const coin of coins.filter((c) => onlyCoin === null || c === onlyCoin)) {
        const vs = VENUES.flatMap((e) => usable.filter((q) => q.coin === coin && q.exchange === e))
        // dYdX's tradable price is its last trade of the rate's 5 minutes (its oracle is no price to trade at); the
        // others' their marks. A price more than 5 % from the median of the coin's priced venues is an outlier.
        const candidates = lastTrades('dydx', coin, now)
        // trades of the newest instant differ in price, so the close is the one that arrived last: one of them
        const served = d.opportunities.flatMap((o: any) => [o.long, o.short]).find((l: any) => o_coin(d, l) === coin && l.exchange === 'dydx')?.price ?? null
        if (candidates.length) expect(candidates).toContain(served)
        else expect(served).toBeNull()
        const priceOf = (q: Quote): number | null => (q.exchange === 'dydx' ? served : q.mark)
        const priced = vs.map(priceOf).filter((p): p is number => p !== null).sort((x, y) => x - y)
        const median = priced.length % 2 ? priced[priced.length >> 1]! : (priced[priced.length / 2 - 1]! + priced[priced.length / 2]!) / 2
        const outlier = (p: number | null) => priced.length >= 3 && p !== null && Math.abs(p - median) > 0.05 * median
        for (let i = 0; i < vs.length; i++)
          for (let j = i + 1; j < vs.length; j++) {
            const leg = (q: Quote) => ({
              exchange: q.exchange, rate: q.rate!, interval_hours: q.intervalHours, rate_8h: (q.rate! * 8) / q.intervalHours, price: priceOf(q), next_funding_time: q.next, taker_fee: fees.get(q.exchange)!.fee,
              quote: q.exchange === 'hyperliquid' || q.exchange === 'dydx' ? 'USDC' : 'USDT', price_source: priceOf(q) === null ? null : q.exchange === 'dydx' ? 'last_trade' : 'mark', funding_kind: 'predicted', price_outlier: outlier(priceOf(q)),
            })
            const a = leg(vs[i]!)
            const b = leg(vs[j]!)
            // long the lower 8 h rate; equal rates: the earlier venue is long
            const [long, short] = b.rate_8h < a.rate_8h ? [b, a] : [a, b]
            const differential8h = short.rate_8h - long.rate_8h
            const feesRoundTrip = 2 * (long.taker_fee + short.taker_fee)
            const feesApr = (feesRoundTrip * 8760) / holdingHours
            const priceSpreadBps = long.price === null || short.price === null || long.price_outlier || short.price_outlier ? null : ((short.price - long.price) / ((short.price + long.price) / 2)) * 1e4
            want.push({ coin, long, short, differential8h, differentialApr: differential8h * 3 * 365, priceSpreadBps, feesRoundTrip, feesApr, netApr: differential8h * 3 * 365 - feesApr })
          }
      }
      const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0)
      want.sort((x, y) => y.netApr - x.netApr || cmp(x.coin, y.coin) || cmp(x.long.exchange, y.long.exchange) || cmp(x.short.exchange, y.short.exchange))
      expect(want.length).toBeGreaterThan(0)
      expect(d.opportunities.map((o: any) => [o.rank, o.coin, o.long.exchange, o.short.exchange])).toEqual(want.map((w, i) => [i + 1, w.coin, w.long.exchange, w.short.exchange]))
      d.opportunities.forEach((o: any, i: number) => {
        const w = want[i]!
        for (const side of ['long', 'short'] as const) {
          expect([o[side].exchange, o[side].interval_hours, o[side].next_funding_time, o[side].taker_fee]).toEqual([w[side].exchange, w[side].interval_hours, w[side].next_funding_time, w[side].taker_fee])
          close(o[side].rate, w[side].rate, `${o.coin} ${side} rate`)
          close(o[side].rate_8h, w[side].rate_8h, `${o.coin} ${side} rate_8h`)
          if (w[side].price === null) expect(o[side].price).toBeNull()
          else close(o[side].price, w[side].price, `${o.coin} ${side} price`)
          expect([o[side].quote, o[side].price_source, o[side].funding_kind, o[side].price_outlier], `${o.coin} ${side}`).toEqual([w[side].quote, w[side].price_source, w[side].funding_kind, w[side].price_outlier])
        }
        expect(o.mixed_quotes).toBe(w.long.quote !== w.short.quote)
        expect(o.long.rate_8h).toBeLessThanOrEqual(o.short.rate_8h)
        close(o.differential_8h, w.differential8h, 'differential_8h')
        close(o.differential_apr, w.differentialApr, 'differential_apr')
        if (w.priceSpreadBps === null) expect([o.price_spread_bps, typeof o.price_spread_note]).toEqual([null, 'string'])
        else close(o.price_spread_bps, w.priceSpreadBps, 'price_spread_bps')
        close(o.fees_round_trip, w.feesRoundTrip, 'fees_round_trip')
        close(o.fees_apr, w.feesApr, 'fees_apr')
        close(o.net_apr, w.netApr, 'net_apr')
      })
      // every coin and venue without a usable current rate is named; OKX lists BTC but its recorded answers carry no rate
      const have = new Set(usable.map((q) => `${q.coin}|${q.exchange}`))
      const missing = coins.filter((c) => onlyCoin === null || c === onlyCoin).flatMap((c) => VENUES.filter((e) => !have.has(`${c}|${e}`)).map((e) => `${c}|${e}`))
      expect(d.missing.map((m: any) => `${m.coin}|${m.exchange}`).sort()).toEqual(missing.sort())
      const noRate = quotes.filter((q) => q.rate === null && coins.includes(q.coin) && (onlyCoin === null || q.coin === onlyCoin))
      expect(noRate.map((q) => `${q.coin}|${q.exchange}`)).toContain('BTC|okx')
      for (const q of noRate) expect(d.missing.find((m: any) => m.coin === q.coin && m.exchange === q.exchange).reason).toBe(`no ${q.coin} funding rate`)
      // coverage: the venues with a rate; OKX has a ticker without one: no data (not stale, its ticker is current)
      expect(d.coverage.exchanges).toEqual(VENUES.filter((e) => usable.some((q) => q.exchange === e && (onlyCoin === null || q.coin === onlyCoin))))
      expect(d.coverage.missing.find((m: any) => m.exchange === 'okx')).toMatchObject({ status: 'no_data', reason: 'no BTC funding rate' })
      expect(d.coverage.partial).toBe(true)
    }
    await check('', null, 24)
    await check('?coin=BTC&holding_hours=72', 'BTC', 72)
  })

  it('overview: composite price and 24 h volume from the recorded trades, OI in USD and OI-weighted funding from the recorded tickers; no history, so no changes', async () => {
    const now = s.now()
    const d = await get('/v1/markets/overview')
    const current = Math.floor(now / MINUTE) * MINUTE
    const last = current - MINUTE
    // trades of closed minutes on the replay's time line (the minute in progress is not stored yet)
    const trades = recordedPerpTrades().map((t) => ({ ...t, minute: Math.floor(warped(t.t) / MINUTE) * MINUTE })).filter((t) => t.minute < current)
    const quotes = recordedQuotes()
    // liquidations: the recording's documented liquidation frames in the universe are all BTC: Binance forceOrder at
    // ap × z, dYdX's LIQUIDATED trades at price × size (test/fixtures/venues); a coin whose liquidation streams the
    // replayed connectors carried (the markets the recording lists) and that had none is 0, any other coin null
    const venueFile = (f: string) => JSON.parse(readFileSync(new URL(`../../fixtures/venues/${f}`, import.meta.url), 'utf8'))
    const btcLiquidated =
      venueFile('binance_ws_force_order.json').reduce((a: number, f: any) => a + Number(f.o.ap) * Number(f.o.z), 0) +
      venueFile('dydx_ws_trades_liquidated.json').contents.trades.filter((x: any) => x.type === 'LIQUIDATED').reduce((a: number, x: any) => a + Number(x.price) * Number(x.size), 0)
    const carried = new Set((await s.t.services.db.sql.query<{ coin: string }>('SELECT DISTINCT unnest(coins) AS coin FROM feed_uptime')).map((r) => r.coin))
    expect([...carried].sort()).toContain('BTC')
    expect(d.coins.length).toBeGreaterThan(3)
    for (const row of d.coins) {
      const mine = trades.filter((t) => t.coin === row.coin)
      const venues = VENUES.filter((e) => mine.some((t) => t.venue === e))
      if (mine.length === 0) {
        expect([row.price, row.price_ts, row.volume_24h_usd, row.exchanges], row.coin).toEqual([null, null, null, []])
        expect(row.note, row.coin).toContain('no perp close in the last 30 minutes')
      } else {
        // every venue that traded has a candle in each later minute (flat at its close when quiet): the composite of
        // the last closed minute weighs the closes of the venues that traded in it by their volume, else averages
        // each venue's last close
        const closeOf = (ts: typeof mine) => [...ts].sort((a, b) => a.t - b.t).at(-1)!.price
        // each venue's close of the last minute (its last trade so far) where it has a candle there (a quiet venue's is
        // flat at its close when the ingest saw its feed carry on past the minute); the documented outlier rule by
        // hand: with 3 or more, a close further than 5 % from their median is left out (the collage's venues are days apart)
        const stored = await s.t.services.db.sql.query<{ exchange: string }>(`SELECT exchange FROM candle_1m WHERE coin = $1 AND market_type = 'perp' AND ts = $2`, [row.coin, last])
        const closes = venues.filter((e) => stored.some((r) => r.exchange === e)).map((e) => ({ e, close: closeOf(mine.filter((t) => t.venue === e)) }))
        const sorted = closes.map((c) => c.close).sort((a, b) => a - b)
        const median = sorted.length % 2 ? sorted[sorted.length >> 1]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2
        const aside = closes.length >= 3 ? closes.filter((c) => Math.abs(c.close - median) > 0.05 * median).map((c) => c.e) : []
        const kept = closes.map((c) => c.e).filter((e) => !aside.includes(e))
        expect(kept.length, `${row.coin}: a venue near the median`).toBeGreaterThan(0)
        const inLast = kept.map((e) => mine.filter((t) => t.venue === e && t.minute === last)).filter((ts) => ts.length > 0)
        const vol = (ts: typeof mine) => ts.reduce((a, t) => a + t.size, 0)
        const price = inLast.length ? inLast.reduce((a, ts) => a + closeOf(ts) * vol(ts), 0) / inLast.reduce((a, ts) => a + vol(ts), 0) : kept.reduce((a, e) => a + closeOf(mine.filter((t) => t.venue === e)), 0) / kept.length
        expect(row.price_ts, row.coin).toBe(last)
        close(row.price, price, `${row.coin} price`)
        expect(row.price_outliers, row.coin).toEqual(aside)
        for (const e of aside) expect(d.coverage.missing, `${row.coin} ${e}`).toContainEqual({ exchange: e, status: 'outlier', reason: expect.stringContaining(`${row.coin} close of `) })
        close(row.volume_24h_usd, mine.filter((t) => t.minute >= current - DAY).reduce((a, t) => a + t.price * t.size, 0), `${row.coin} volume`)
        expect(row.exchanges, row.coin).toEqual(venues)
        // the recording holds under an hour of trades: no composite close 1 h (let alone 4 h or 24 h) back
        expect(Math.min(...mine.map((t) => t.minute))).toBeGreaterThan(last - HOUR)
        expect([row.change_1h_pct, row.change_4h_pct, row.change_24h_pct], row.coin).toEqual([null, null, null])
      }
      // open interest in USD: Σ one-sided OI × the same payload's mark, over the venues with a current OI
      const ois = quotes.filter((q) => q.coin === row.coin && q.oi !== null)
      for (const q of ois) expect(now - q.ts, `${q.exchange} ${q.coin} OI fresh`).toBeLessThanOrEqual(FRESH_MS)
      if (ois.length === 0) expect(row.oi_usd, row.coin).toBeNull()
      else close(row.oi_usd, ois.reduce((a, q) => a + q.oi! * q.oiMark!, 0), `${row.coin} oi_usd`)
      // funding_8h: Σ rate_8h × oi_usd / Σ oi_usd over the venues with both a rate and OI (Binance: no OI recorded; OKX: no rate)
      const weighted = ois.filter((q) => q.rate !== null)
      if (weighted.length === 0) expect(row.funding_8h, row.coin).toBeNull()
      else close(row.funding_8h, weighted.reduce((a, q) => a + ((q.rate! * 8) / q.intervalHours) * q.oi! * q.oiMark!, 0) / weighted.reduce((a, q) => a + q.oi! * q.oiMark!, 0), `${row.coin} funding_8h`)
      // the recording's first line plays well inside the last 24 h: no OI sample 24 h back
      expect(warped(LINES[0]!.at)).toBeGreaterThan(now - DAY + FRESH_MS)
      expect(row.oi_change_24h_pct, row.coin).toBeNull()
      if (row.coin === 'BTC') close(row.liquidations_24h_usd, btcLiquidated, 'BTC liquidations_24h_usd')
      else expect(row.liquidations_24h_usd, row.coin).toBe(carried.has(row.coin) ? 0 : null)
    }
    expect(d.coins.filter((c: any) => c.price !== null).map((c: any) => c.coin).sort()).toEqual(['BTC', 'ETH'])
    // coverage: said to span only the replayed minutes of the 24 h asked for, never beyond now
    const c = d.coverage
    expect(c.requested_from).toBe(current - DAY)
    expect(c.requested_to).toBe(now)
    expect(c.partial).toBe(true)
    expect(c.note).toMatch(/the data spans/)
    expect(c.from).toBeGreaterThan(c.requested_from)
    expect(c.to).toBeLessThanOrEqual(now)
    expect(c.exchanges).toEqual(VENUES.filter((e) => trades.some((t) => t.venue === e)))
  })

  it('regime: the recording holds no complete hour, so no regime, with the count of closes it had and no venue claimed', async () => {
    const now = s.now()
    const d = await get('/v1/signals/regime?coin=BTC')
    const hour = Math.floor(now / HOUR) * HOUR
    // hours with a BTC perp close: from the first traded hour on (quiet minutes are flat candles), complete ones only
    const first = Math.min(...recordedPerpTrades().filter((t) => t.coin === 'BTC').map((t) => warped(t.t)))
    const complete = Math.max(0, (hour - Math.floor(first / HOUR) * HOUR) / HOUR)
    expect(complete).toBeLessThan(25)
    expect(d.current).toMatchObject({ ts: hour, as_of: hour, regime: null, efficiency_ratio: null, net_move: null, realized_vol: null, vol_percentile: null, oi_change: null, exchanges: [], oi_exchanges: [] })
    expect(d.current.note).toBe(`insufficient history: ${complete} of 25 hourly closes`)
    // only intervals with a complete hour behind them have a point
    expect(d.history).toEqual([])
    expect(d.coverage.partial).toBe(true)
    expect(d.coverage.to === null || d.coverage.to <= hour).toBe(true)
    expect(d.coverage.exchanges).toEqual([])
    expect(d.coverage.missing.map((m: any) => m.exchange)).toEqual([...VENUES])
  })
})
