// Recordings carry history (issue 30 item 7): a recording made against the Binance venue double with the history
// service on holds its REST pages as http lines and a `history` line with the window it planned; replayed, the
// history service plans the same pages on the warped clock and every call is answered from a recorded page covering
// its window, so the replayed service's candles, open interest, funding and long/short ratios over the window are
// the recorded pages' rows (expected values read from the recorded bodies here), moved by the replay's warp.
import '../../helpers/no-network.js'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { parseLine, type HistoryLine, type HttpLine, type RecordingLine } from '../../../src/sources/replay/format.js'
import type { RecordSummary } from '../../../src/sources/replay/record-session.js'
import { openTestStore } from '../../helpers/store.js'
import { startVenueDouble, type VenueDouble } from '../../helpers/venue-doubles/index.js'
import { recordAgainstDouble } from './double-recording.js'
import { startReplayService, type ReplayService } from './helpers.js'

const MIN = 60_000
const DAY = 86_400_000
const DAYS = 2

let double: VenueDouble
let file: string
let summary: RecordSummary
let lines: RecordingLine[]
let planned: HistoryLine
let s: ReplayService
/** the replay's warp of the recording (one session: a whole number of minutes) */
let D: number

const http = () => lines.filter((l): l is HttpLine => l.kind === 'http')
const pathOf = (l: HttpLine) => new URL(l.url).pathname
/** the recorded history pages of an endpoint: the calls that asked for a window */
const pagesOf = (p: string) => http().filter((l) => pathOf(l) === p && new URL(l.url).searchParams.has('startTime'))
/** their rows, each time once (pages do not overlap; a repeated page would repeat its rows), in the planned window */
function rowsOf<T>(p: string, time: (r: T) => number): T[] {
  const byTime = new Map<number, T>()
  for (const l of pagesOf(p)) for (const r of JSON.parse(l.body) as T[]) if (time(r) >= planned.from && time(r) < planned.to) byTime.set(time(r), r)
  return [...byTime.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r)
}
const window = () => `start_time=${planned.from + D}&end_time=${planned.to + D}&limit=5000`

/** the 1-minute candles of the DAYS before `end` (ohlc: a day a call) */
async function candlesOf(r: ReplayService, marketType: 'perp' | 'spot', end: number): Promise<Array<Record<string, number>>> {
  const out: Array<Record<string, number>> = []
  for (let day = DAYS - 1; day >= 0; day--) {
    const res = await r.get(`/v1/markets/ohlc?coin=BTC&exchange=binance&market_type=${marketType}&interval=1m&lookback=24h&limit=5000&end=${end - day * DAY}`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    out.push(...(res.body.data.candles as Array<Record<string, number>>))
  }
  return out
}

const firstAt = (ls: RecordingLine[]) => ls.find((l) => l.kind === 'http' || l.kind === 'ws')!.at

function readLines(f: string): RecordingLine[] {
  return readFileSync(f, 'utf8').trimEnd().split('\n').map((t, i) => parseLine(t, i + 1)!)
}

beforeAll(async () => {
  double = await startVenueDouble('binance', { coins: ['BTC'] })
  file = path.join(mkdtempSync(path.join(tmpdir(), 'history-')), 'history.jsonl')
  const db = await openTestStore()
  try {
    summary = await recordAgainstDouble(double, { out: file, coins: ['BTC'], days: DAYS, db })
  } finally {
    await db.close()
    await double.close()
  }
  lines = readLines(file)
  planned = lines.find((l): l is HistoryLine => l.kind === 'history')!
  // replayed a week after it was recorded, to the millisecond of its first line: the warp moves every time by exactly
  // 7 days (a shift of whole days keeps the venues' 5-minute and 8-hour grids, so each point is one recorded row)
  s = await startReplayService(file, { start: firstAt(lines) + 7 * DAY })
  await s.runtime.backfill
  D = s.replay.clock.shift
}, 120_000)
afterAll(async () => {
  await s?.close()
})

describe('npm run record with history', () => {
  it('writes where the history planned (window, clock) and its pages as http lines, the double answering every page', () => {
    expect(summary.history).toMatchObject({ done: true, pagesLeft: 0 })
    expect(planned).toMatchObject({ venue: 'binance', days: DAYS })
    expect(planned.to).toBe(Math.floor(planned.now / MIN) * MIN)
    expect(planned.to - planned.from).toBe(DAYS * DAY)
    // after the market lists it needs, before its first page
    const at = (l: RecordingLine) => lines.indexOf(l)
    expect(at(planned)).toBeGreaterThan(at(http().find((l) => pathOf(l) === '/fapi/v1/exchangeInfo')!))
    expect(at(planned)).toBeLessThan(at(pagesOf('/fapi/v1/klines')[0]!))
    // every minute of the window, perp and spot, in the pages: 1 500 and 1 000 klines a page
    expect(pagesOf('/fapi/v1/klines')).toHaveLength(2)
    expect(pagesOf('/api/v3/klines')).toHaveLength(3)
    for (const p of ['/fapi/v1/klines', '/api/v3/klines']) expect(rowsOf<unknown[]>(p, (r) => Number(r[0])).map((r) => r[0])).toEqual(Array.from({ length: DAYS * 1440 }, (_, i) => planned.from + i * MIN))
    for (const p of ['/futures/data/openInterestHist', '/fapi/v1/fundingRate', '/futures/data/globalLongShortAccountRatio', '/futures/data/topLongShortPositionRatio'])
      expect(pagesOf(p).length, p).toBeGreaterThan(0)
    // each recorded page is what the double answered to that very request
    const asked = new Set(double.requests.filter((r) => r.status === 200).map((r) => `${r.path}?${r.query.toString()}`))
    for (const l of http()) expect(asked.has(`${pathOf(l)}?${new URL(l.url).searchParams.toString()}`), l.url).toBe(true)
  })
})

describe('replaying a recording that carries history', () => {
  it('plans the recorded window moved by the warp, and answers every history call from a recorded page covering it', () => {
    expect(D).toBe(7 * DAY)
    const runner = s.runtime.history!.runners.get('binance')!
    expect(runner.started).toMatchObject({ from: planned.from + D, to: planned.to + D })
    const stats = s.replay.stats().http.history
    expect(stats.uncovered).toBe(0)
    // one call a page, two for a long/short page (accounts and top traders' positions)
    const pages = runner.status()
    const calls = pages.reduce((n, p) => n + p.pages_done * (p.kind === 'long_short' ? 2 : 1), 0)
    expect(stats.exact + stats.covering).toBe(calls)
    expect(pages.every((p) => p.pages_remaining === 0 && p.covered_from === planned.from + D && p.covered_to === planned.to + D)).toBe(true)
  })

  it('1-minute candles, perp and spot: the recorded klines rows (taker-buy volume as the buy side)', async () => {
    for (const [marketType, p] of [['perp', '/fapi/v1/klines'], ['spot', '/api/v3/klines']] as const) {
      const expected = rowsOf<Array<string | number>>(p, (r) => Number(r[0]))
      const candles = await candlesOf(s, marketType, planned.to + D)
      expect(candles.map((c) => c['ts'])).toEqual(expected.map((r) => Number(r[0]) + D))
      expect(candles.map((c) => [c['open'], c['high'], c['low'], c['close'], c['trades']])).toEqual(expected.map((r) => [Number(r[1]), Number(r[2]), Number(r[3]), Number(r[4]), Number(r[8])]))
      candles.forEach((c, i) => {
        const r = expected[i]!
        expect(c['volume']).toBeCloseTo(Number(r[5]), 8)
        expect(c['buy_volume']).toBeCloseTo(Number(r[9]), 8)
        expect(c['sell_volume']).toBeCloseTo(Number(r[5]) - Number(r[9]), 8)
      })
    }
  })

  it('open interest every 5 minutes: the recorded openInterestHist rows (one side, coins)', async () => {
    const expected = rowsOf<{ sumOpenInterest: string; timestamp: number }>('/futures/data/openInterestHist', (r) => r.timestamp)
    expect(expected.length).toBe((DAYS * DAY) / (5 * MIN))
    const res = await s.get(`/v1/oi/history?coin=BTC&exchange=binance&interval=5m&${window()}`)
    expect(res.status).toBe(200)
    const points = res.body.data.exchanges.find((e: { exchange: string }) => e.exchange === 'binance').points as Array<Record<string, number>>
    expect(points.map((p) => [p['ts'], p['open'], p['close']])).toEqual(expected.map((r) => [r.timestamp + D, Number(r.sumOpenInterest), Number(r.sumOpenInterest)]))
  })

  it('settled funding: the recorded fundingRate rows, each with the interval the recorded fundingInfo states', async () => {
    const expected = rowsOf<{ fundingRate: string; fundingTime: number; symbol: string }>('/fapi/v1/fundingRate', (r) => r.fundingTime)
    expect(expected.length).toBeGreaterThanOrEqual(DAYS * 3)
    const info = JSON.parse(http().find((l) => pathOf(l) === '/fapi/v1/fundingInfo')!.body) as Array<{ symbol: string; fundingIntervalHours: number }>
    const hours = info.find((i) => i.symbol === 'BTCUSDT')?.fundingIntervalHours ?? 8
    const res = await s.get(`/v1/funding/history?coin=BTC&exchange=binance&interval=1h&${window()}`)
    expect(res.status).toBe(200)
    const settlements = res.body.data.exchanges.find((e: { exchange: string }) => e.exchange === 'binance').settlements as Array<Record<string, number>>
    expect(settlements.map((x) => [x['ts'], x['rate'], x['interval_hours']])).toEqual(expected.map((r) => [r.fundingTime + D, Number(r.fundingRate), hours]))
  })

  it('long/short ratios every 5 minutes: the recorded accounts and top traders\' position pages', async () => {
    const res = await s.get(`/v1/positioning/long-short?coin=BTC&exchange=binance&interval=5m&${window()}`)
    expect(res.status).toBe(200)
    const venue = res.body.data.exchanges.find((e: { exchange: string }) => e.exchange === 'binance')
    type Row = { longAccount: string; shortAccount: string; longShortRatio: string; timestamp: number }
    for (const [series, p] of [['account', '/futures/data/globalLongShortAccountRatio'], ['top_position', '/futures/data/topLongShortPositionRatio']] as const) {
      const expected = rowsOf<Row>(p, (r) => r.timestamp)
      expect(expected.length).toBe((DAYS * DAY) / (5 * MIN))
      const points = venue[series].points as Array<Record<string, number>>
      expect(points.map((x) => [x['sampled_at'], x['long_share'], x['short_share'], x['ratio']])).toEqual(expected.map((r) => [r.timestamp + D, Number(r.longAccount), Number(r.shortAccount), Number(r.longShortRatio)]))
    }
  })
})

describe('a history call no recorded page covers', () => {
  let t: ReplayService
  let dropped: HttpLine
  beforeAll(async () => {
    // the same recording without its older perp klines page
    dropped = pagesOf('/fapi/v1/klines').sort((a, b) => Number(new URL(a.url).searchParams.get('startTime')) - Number(new URL(b.url).searchParams.get('startTime')))[0]!
    const cut = path.join(path.dirname(file), 'cut.jsonl')
    writeFileSync(cut, readFileSync(file, 'utf8').split('\n').filter((l) => !l.includes(dropped.url)).join('\n'))
    t = await startReplayService(cut, { start: firstAt(lines) + 3 * DAY })
    await t.runtime.backfill
  }, 60_000)
  afterAll(async () => {
    await t?.close()
  })

  it("gets the venue's empty answer: the span is a hole, asked once, and the rest of the window is served", async () => {
    const d = t.replay.clock.shift
    const q = new URL(dropped.url).searchParams
    const hole = { from: Number(q.get('startTime')) + d, to: Number(q.get('endTime')) + 1 + d }
    expect(t.replay.stats().http.history.uncovered).toBe(1)
    // the service reads its holes back from the store a moment after they are written (a debounced refresh)
    await vi.waitFor(() => {
      const holes = t.t.services.market.historyHoles.filter((h) => h.exchange === 'binance' && h.kind === 'candles_perp')
      expect(holes.map((h) => [h.from, h.to])).toEqual([[hole.from, hole.to]])
    }, { timeout: 10_000, interval: 50 })
    const ts = (await candlesOf(t, 'perp', planned.to + d)).map((c) => c['ts'])
    expect(ts[0]).toBe(hole.to)
    expect(ts).toHaveLength((planned.to + d - hole.to) / MIN)
  })
})
