// The series endpoints (oi/history, funding/history, cvd, taker-volume, basis) on the replayed fixture recording:
// every figure is derived here from the raw venue bodies and frames the recording holds (recordings/fixtures.jsonl),
// moved onto the replay's time line by the rule docs/recordings.md states (sessions, cut silences, whole-minute shift).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FIXTURES_RECORDING, startReplayService, type ReplayService } from './helpers.js'
import { LINES, one, payloads, warpOf } from './recorded.js'

const START = Date.UTC(2026, 2, 2, 12, 0, 0)
const MINUTE = 60_000
const HOUR = 3_600_000
let s: ReplayService
/** a venue timestamp on the replay's time line: moved with the first session ending at or after it */
let warped: (t: number) => number

beforeAll(async () => {
  s = await startReplayService(FIXTURES_RECORDING, { start: START, env: { LOG_LEVEL: 'silent' } })
  await s.playToEnd()
  // a minute and its grace later: the last minute of trades and every venue's last sample slot are closed and stored
  await s.moveTo(s.now() + MINUTE + 5_000)
  await s.flush()
  const shift = s.replay.clock.shift
  expect(Math.abs(shift % MINUTE)).toBe(0)
  warped = warpOf(shift)
}, 120_000)
afterAll(async () => {
  await s?.close()
})

const get = async (path: string) => {
  const res = await s.get(path)
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200)
  return res.body.data
}
const close = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(b)))

describe('funding/history on a replayed recording', () => {
  it('the settlements are the settled rows the recording holds: OKX realizedRate, Hyperliquid fundingHistory, dYdX historicalFunding', async () => {
    const d = await get('/v1/funding/history?coin=BTC&lookback=30d&interval=1d')
    // the interval a venue settles on, from the spacing of its settlements (to the hour: stamps carry ms of jitter)
    const spacing = (ts: number[]) => Math.round((ts[1]! - ts[0]!) / HOUR)
    // OKX funding-rate-history: realizedRate is what was paid at fundingTime (fundingRate there is the forecast it replaced)
    const okx = one('okx/funding_rate_history.json').data.map((r: any) => ({ ts: Number(r.fundingTime), rate: Number(r.realizedRate) })).sort((a: any, b: any) => a.ts - b.ts)
    // Hyperliquid fundingHistory: in May 2023 it settled every 8 hours; the poll asks for the newest 10 (limit 10:
    // a live answer to its startTime holds no more), and CCXT keeps those of the 34 this wider recorded answer holds
    const hlAll = one<any[]>('hyperliquid/funding_history.json').map((r) => ({ ts: r.time, rate: Number(r.fundingRate) })).sort((a, b) => a.ts - b.ts)
    expect(hlAll.length).toBeGreaterThan(10)
    const hl = hlAll.slice(-10)
    const dydx = one('dydx/historical_funding.json').historicalFunding.map((r: any) => ({ ts: Date.parse(r.effectiveAt), rate: Number(r.rate) })).sort((a: any, b: any) => a.ts - b.ts)
    const want: Record<string, Array<{ ts: number; rate: number }>> = { okx, hyperliquid: hl, dydx }
    expect(d.exchanges.map((v: any) => v.exchange)).toEqual(['okx', 'hyperliquid', 'dydx'])
    for (const v of d.exchanges) {
      const rows = want[v.exchange]!
      const h = spacing(rows.map((r) => r.ts))
      expect([8, 8, 1]).toContain(h)
      expect(v.settlements.map((x: any) => [x.ts, x.rate, x.interval_hours, x.kind]), v.exchange).toEqual(rows.map((r) => [warped(r.ts), r.rate, h, 'settled']))
      for (const x of v.settlements) close(x.rate_8h, (x.rate * 8) / h)
      close(v.cumulative, rows.reduce((a, r) => a + r.rate, 0))
    }
    // Binance premiumIndex lastFundingRate and Bybit tickers fundingRate are the rates of the next settlement, not
    // settled ones, and the recording holds neither venue's settled history: no row, named as missing
    expect(d.missing.map((m: any) => m.exchange)).toEqual(['binance', 'bybit'])
    const predicted = [Number(one<any[]>('binance/premium_index_all.json').find((r) => r.symbol === 'BTCUSDT').lastFundingRate), Number(one('bybit/tickers.json').result.list[0].fundingRate)]
    for (const v of d.exchanges) for (const x of v.settlements) expect(predicted).not.toContain(x.rate)
  })
})

describe('oi/history on a replayed recording', () => {
  it('each venue\'s points are its recorded one-sided open interest, in coins and at the same payload\'s mark in USD', async () => {
    const d = await get('/v1/oi/history?coin=BTC&interval=1m&lookback=1h')
    const by = Object.fromEntries(d.exchanges.map((v: any) => [v.exchange, v.points as any[]]))
    // Bybit tickers rows from before its 2026 change carry no singleOpenInterest: openInterest is one side
    const bybitRows = ['bybit/tickers_testnet.json', 'bybit/tickers.json'].map((f) => one(f).result.list[0])
    for (const r of bybitRows) expect(r.singleOpenInterest).toBeUndefined()
    const [meta, ctxs] = one<[{ universe: { name: string }[] }, Record<string, string>[]]>('hyperliquid/meta_and_asset_ctxs.json')
    const hl = ctxs[meta.universe.findIndex((u) => u.name === 'BTC')]!
    const dydx = one('dydx/perpetual_markets.json').markets['BTC-USD']
    const okx = one('okx/open_interest.json').data[0]
    const okxMark = Number(one('okx/mark_price.json').data[0].markPx)
    // [oi in coins, mark], newest recorded last
    const recorded: Record<string, Array<[number, number]>> = {
      bybit: bybitRows.map((r) => [Number(r.openInterest), Number(r.markPrice)]),
      okx: [[Number(okx.oiCcy), okxMark]],
      // metaAndAssetCtxs openInterest counts both sides: halved (docs/methodology.md)
      hyperliquid: [[Number(hl.openInterest) / 2, Number(hl.markPx)]],
      dydx: [[Number(dydx.openInterest), Number(dydx.oraclePrice)]],
    }
    expect(Object.keys(by)).toEqual(['bybit', 'okx', 'hyperliquid', 'dydx'])
    expect(d.missing.map((m: any) => m.exchange)).toEqual(['binance'])
    for (const [venue, rows] of Object.entries(recorded)) {
      const points = by[venue]!
      for (const p of points) {
        expect([p.open, p.high, p.low].map((x) => x === p.close), venue).toEqual([true, true, true])
        const r = rows.find(([oi]) => Math.abs(oi - p.close) <= 1e-12 * oi)
        expect(r, `${venue} ${p.close}`).toBeDefined()
        // USD at the mark the service had then; a point whose minute held no mark yet has none
        if (p.close_usd !== null) close(p.close_usd, p.close * r![1])
      }
      // the last point is the newest recorded figure, with its USD
      const [oi, mark] = rows.at(-1)!
      close(points.at(-1)!.close, oi)
      close(points.at(-1)!.close_usd, oi * mark)
    }
    // the aggregate sums, per minute, the venues it names
    for (const a of d.aggregate) close(a.close, a.exchanges.reduce((sum: number, e: string) => sum + by[e]!.find((p: any) => p.ts === a.ts).close, 0))
  })
})

/** the recorded BTC perp trades: [venue, venue time, size in coins, taker buy] */
function recordedTrades(): Array<[string, number, number, boolean]> {
  const bybit = payloads<{ data: Array<{ T: number; s: string; S: string; v: string }> }>('bybit/ws_public_trade.json').flatMap((f) => f.data).filter((t) => t.s === 'BTCUSDT')
  // Hyperliquid trades: side is the taker's, B(uy) or A(sell)
  const hl = payloads<{ channel: string; data: any }>('hyperliquid/ws_trades_and_asset_ctx.json').filter((f) => f.channel === 'trades').flatMap((f) => f.data as Array<{ coin: string; side: string; sz: string; time: number }>).filter((t) => t.coin === 'BTC')
  // dYdX v4_trades of BTC-USD (the liquidations fixture's frame: its LIQUIDATED fills are trades too); side is the taker's
  const dydx = LINES.filter((l) => l.venue === 'dydx' && l.kind === 'ws').map((l) => JSON.parse(l.frame!)).filter((f) => f.channel === 'v4_trades' && f.id === 'BTC-USD').flatMap((f) => f.contents.trades as Array<{ createdAt: string; side: string; size: string }>)
  return [
    ...bybit.map((t) => ['bybit', t.T, Number(t.v), t.S === 'Buy'] as [string, number, number, boolean]),
    ...hl.map((t) => ['hyperliquid', t.time, Number(t.sz), t.side === 'B'] as [string, number, number, boolean]),
    ...dydx.map((t) => ['dydx', Date.parse(t.createdAt), Number(t.size), t.side === 'BUY'] as [string, number, number, boolean]),
  ]
}

describe('cvd and taker-volume on a replayed recording', () => {
  it('per venue and minute: taker buy and sell of the recorded trades; CVD at the end = Σ buy − Σ sell', async () => {
    const trades = recordedTrades()
    expect(new Set(trades.map((t) => t[0]))).toEqual(new Set(['bybit', 'hyperliquid', 'dydx']))
    const minutes = new Map<string, { buy: number; sell: number }>()
    for (const [venue, t, size, buy] of trades) {
      const k = `${venue}|${Math.floor(warped(t) / MINUTE) * MINUTE}`
      const m = minutes.get(k) ?? { buy: 0, sell: 0 }
      m[buy ? 'buy' : 'sell'] += size
      minutes.set(k, m)
    }
    const cvd = await get('/v1/flow/cvd?coin=BTC&interval=1m&lookback=1h')
    const taker = await get('/v1/flow/taker-volume?coin=BTC&interval=1m&lookback=1h')
    for (const series of [cvd.perp, taker]) {
      expect(series.exchanges.map((v: any) => v.exchange)).toEqual(['bybit', 'hyperliquid', 'dydx'])
      const got = new Map<string, { buy: number; sell: number }>()
      // a minute bar without trades (a venue's candle feed, or a quiet minute after a trade, depending on how far the
      // replay has run) is a zero, never a volume of its own
      for (const v of series.exchanges)
        for (const p of v.points) {
          if (p.buy_volume === 0 && p.sell_volume === 0 && !minutes.has(`${v.exchange}|${p.ts}`)) continue
          got.set(`${v.exchange}|${p.ts}`, { buy: p.buy_volume, sell: p.sell_volume })
        }
      expect([...got.keys()].sort()).toEqual([...minutes.keys()].sort())
      for (const [k, m] of minutes) {
        close(got.get(k)!.buy, m.buy)
        close(got.get(k)!.sell, m.sell)
      }
    }
    for (const v of cvd.perp.exchanges) {
      const mine = trades.filter((t) => t[0] === v.exchange)
      close(v.points.at(-1).cvd, mine.reduce((a, [, , size, buy]) => a + (buy ? size : -size), 0))
    }
    close(cvd.perp.aggregate.at(-1).cvd, trades.reduce((a, [, , size, buy]) => a + (buy ? size : -size), 0))
    for (const v of taker.exchanges) for (const p of v.points) expect(p.ratio).toBe(p.sell_volume > 0 ? p.buy_volume / p.sell_volume : null)
    // no spot market list is recorded, so no spot trades: the spot leg is empty
    expect(cvd.spot.exchanges).toEqual([])
  })
})

describe('basis on a replayed recording', () => {
  it('premium to index from each venue\'s recorded mark and index; no recorded spot market, so no basis to spot', async () => {
    const d = await get('/v1/structure/basis?coin=BTC&interval=1m&lookback=1h')
    const [meta, ctxs] = one<[{ universe: { name: string }[] }, Record<string, string>[]]>('hyperliquid/meta_and_asset_ctxs.json')
    const hl = ctxs[meta.universe.findIndex((u) => u.name === 'BTC')]!
    const binance = one<any[]>('binance/premium_index_all.json').find((r) => r.symbol === 'BTCUSDT')
    const dydx = one('dydx/perpetual_markets.json').markets['BTC-USD']
    // [mark, index] pairs one payload (or one venue poll) gives
    const pairs: Record<string, Array<[number, number]>> = {
      binance: [[Number(binance.markPrice), Number(binance.indexPrice)]],
      bybit: ['bybit/tickers_testnet.json', 'bybit/tickers.json'].map((f) => one(f).result.list[0]).map((r) => [Number(r.markPrice), Number(r.indexPrice)]),
      // OKX's mark (mark-price, 2025-04-14) and index (index-tickers, 2025-05-11): two bodies a month apart in the collage
      okx: [[Number(one('okx/mark_price.json').data[0].markPx), Number(one('okx/index_price.json').data[0].idxPx)]],
      hyperliquid: [[Number(hl.markPx), Number(hl.oraclePx)]],
    }
    // dYdX publishes one oracle price (oraclePrice) and no mark apart from it: no premium, named as not published
    expect(dydx.oraclePrice).toBeDefined()
    expect(dydx.markPrice).toBeUndefined()
    expect(d.exchanges.map((v: any) => v.exchange)).toEqual(Object.keys(pairs))
    expect(d.coverage.missing).toContainEqual({ exchange: 'dydx', status: 'not_published', reason: expect.stringContaining('no mark price apart from its oracle') })
    for (const v of d.exchanges) {
      expect(v.points.length, v.exchange).toBeGreaterThan(0)
      for (const p of v.points) {
        const pair = pairs[v.exchange]!.find(([m, i]) => m === p.mark_price && i === p.index_price)
        expect(pair, `${v.exchange} ${p.mark_price}/${p.index_price}`).toBeDefined()
        close(p.premium_bps, ((pair![0] - pair![1]) / pair![1]) * 10_000)
        expect([p.spot_price, p.basis_bps, p.basis_annualized_pct]).toEqual([null, null, null])
      }
    }
  })
})
