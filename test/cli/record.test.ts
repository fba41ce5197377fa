// npm run record: the command line, the progress line, and the file a recording session writes (the recorder's
// hooks on CCXT instances fed by the offline harness: REST bodies and WebSocket frames as a venue would send them).
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { parseRecordArgs, progressLine, RecordArgsError } from '../../src/cli/record.js'
import { parseLine, type HttpLine, type RecordingLine, type WsLine } from '../../src/sources/replay/format.js'
import { loadRecording } from '../../src/sources/replay/recording.js'
import { fixtureText } from '../sources/connectors/offline.js'
import { recordOffline, RECORDED_VENUES, type OfflineRecording } from '../sources/replay/offline-recording.js'

describe('npm run record -- arguments', () => {
  const now = new Date(Date.UTC(2026, 2, 2, 12, 30, 15, 250))

  it('minutes are required; exchanges and coins default to all; the file is named after the start', () => {
    expect(parseRecordArgs(['--minutes', '10'], now)).toEqual({
      minutes: 10,
      exchanges: ['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'],
      coins: ['BTC', 'ETH', 'SOL', 'XRP', 'BNB', 'DOGE', 'ADA', 'AVAX', 'LINK', 'LTC', 'DOT', 'SUI'],
      backfillDays: 1,
      out: path.join('recordings', '2026-03-02T12-30-15-250Z.jsonl'),
    })
    expect(parseRecordArgs(['--minutes', '0.5', '--exchanges', ' OKX,binance,okx', '--coins', 'btc,eth', '--out', 'x.jsonl'], now)).toEqual({
      minutes: 0.5,
      exchanges: ['okx', 'binance'],
      coins: ['BTC', 'ETH'],
      backfillDays: 1,
      out: 'x.jsonl',
    })
    expect(parseRecordArgs(['--minutes', '1', '--backfill-days', '0'], now)).toMatchObject({ backfillDays: 0 })
    expect(parseRecordArgs(['--minutes', '1', '--backfill-days', '2.5'], now)).toMatchObject({ backfillDays: 2.5 })
    expect(parseRecordArgs(['--help'], now)).toBe('help')
  })

  it('bad input names the option and the allowed values', () => {
    expect(() => parseRecordArgs([], now)).toThrow(/--minutes must be a number of minutes in \(0, 1440\]/)
    expect(() => parseRecordArgs(['--minutes', '0'], now)).toThrow(RecordArgsError)
    expect(() => parseRecordArgs(['--minutes', 'ten'], now)).toThrow(/--minutes/)
    expect(() => parseRecordArgs(['--minutes', '1', '--exchanges', 'binance,kraken'], now)).toThrow(/--exchanges: unknown kraken; use a comma-separated list of binance, bybit, okx, hyperliquid, dydx/)
    expect(() => parseRecordArgs(['--minutes', '1', '--verbose'], now)).toThrow(/Unknown option '--verbose'/)
    expect(() => parseRecordArgs(['--minutes', '1', '--backfill-days=-1'], now)).toThrow(/--backfill-days must be a number of days in \[0, 365\] \(0: no history\), got "-1"/)
    expect(() => parseRecordArgs(['--minutes', '1', '--backfill-days', 'all'], now)).toThrow(/--backfill-days/)
  })

  it('a plain progress line (what a non-TTY gets every 30 s)', () => {
    const line = progressLine({ elapsedMs: 90_500, totalMs: 600_000, stats: { lines: 1234, bytes: 2_500_000, http: 34, ws: 1200, undecodable: 0, perVenue: { bybit: { http: 34, ws: 1200 } } }, events: {} })
    expect(line).toBe('record 1:30 / 10:00: 1234 lines (http 34, ws 1200), 2.5 MB; http/ws per venue: bybit 34/1200')
    const stats = { lines: 10, bytes: 1_000, http: 10, ws: 0, undecodable: 0, perVenue: {} }
    expect(progressLine({ elapsedMs: 1_000, totalMs: 60_000, stats, events: {}, history: { pagesDone: 12, pagesLeft: 30, done: false } })).toBe('record 0:01 / 1:00: 10 lines (http 10, ws 0), 0.0 MB; history 12 pages, 30 left')
    expect(progressLine({ elapsedMs: 1_000, totalMs: 60_000, stats, events: {}, history: { pagesDone: 42, pagesLeft: 0, done: true } })).toMatch(/; history done, 42 pages$/)
  })
})

describe('a recording session over offline-fed connectors', () => {
  let rec: OfflineRecording
  let lines: RecordingLine[]
  beforeAll(async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'record-')), 'session.jsonl')
    rec = await recordOffline(file)
    lines = readFileSync(file, 'utf8').trimEnd().split('\n').map((t, i) => parseLine(t, i + 1)!)
  })

  it('starts with a meta line, then lines in receive order; a valid recording', async () => {
    expect(lines[0]).toMatchObject({ v: 1, kind: 'meta', exchanges: RECORDED_VENUES, coins: ['BTC'] })
    const at = lines.slice(1).map((l) => l.at)
    expect(at).toEqual([...at].sort((a, b) => a - b))
    const loaded = await loadRecording(rec.summary.file)
    expect([...loaded.venues].sort()).toEqual([...RECORDED_VENUES].sort())
    expect(rec.summary.stats.lines).toBe(lines.length)
  })

  it('HTTP: method, full URL, status and the raw body as the venue sent it; POST bodies too', () => {
    const http = lines.filter((l): l is HttpLine => l.kind === 'http')
    const instruments = http.filter((l) => l.venue === 'bybit' && new URL(l.url).pathname === '/v5/market/instruments-info')
    // CCXT asks for the Trading and the PreLaunch lists
    expect(instruments.map((l) => new URL(l.url).searchParams.get('status'))).toEqual(expect.arrayContaining([null, 'PreLaunch']))
    for (const l of instruments) expect(l).toMatchObject({ method: 'GET', status: 200, body: fixtureText('bybit/instruments.json') })
    expect(instruments[0]!.url).toMatch(/^https:\/\/api\.bybit\.com\/v5\/market\/instruments-info\?category=linear/)
    const meta = http.find((l) => l.venue === 'hyperliquid')!
    expect(meta).toMatchObject({ method: 'POST', url: 'https://api.hyperliquid.xyz/info', requestBody: '{"type":"metaAndAssetCtxs"}', body: fixtureText('hyperliquid/meta_and_asset_ctxs.json') })
    expect(http.find((l) => l.venue === 'dydx')!.url).toBe('https://indexer.dydx.trade/v4/perpetualMarkets')
    // a call the offline venue did not answer left no line (there was no response)
    expect(http.some((l) => l.url.includes('funding/history'))).toBe(false)
  })

  it('WebSocket: every frame pushed, as its raw text, on its stream URL, at its receive time', () => {
    const ws = lines.filter((l): l is WsLine => l.kind === 'ws')
    expect(ws.map((l) => ({ at: l.at, text: l.frame }))).toEqual(rec.pushed)
    for (const l of ws) expect(l).toMatchObject({ venue: 'bybit', url: 'wss://stream.bybit.com/v5/public/linear' })
    expect(rec.summary.stats.perVenue.bybit!.ws).toBe(rec.pushed.length)
    // the connectors parsed what was recorded: trades and books reached their sink
    expect(rec.summary.events.bybit).toBeGreaterThan(rec.pushed.length)
  })
})
