// recordings/fixtures.jsonl is what scripts/build-fixtures-recording.ts makes of the shared fixtures, and it copies
// every payload byte for byte with an honest time.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildFixturesRecording, OUT_FILE } from '../../scripts/build-fixtures-recording.js'
import { parseLine, type HttpLine, type WsLine } from '../../src/sources/replay/format.js'
import { loadRecording } from '../../src/sources/replay/recording.js'
import { FIXTURES_DIR } from '../sources/replay/helpers.js'

const committed = readFileSync(OUT_FILE, 'utf8')
const lines = committed.trimEnd().split('\n').map((t, i) => parseLine(t, i + 1) as HttpLine | WsLine)
const REPO = path.resolve(path.dirname(OUT_FILE), '..')
// a source under test/fixtures/venues is named from the repository root; the shared fixtures from their folder
const raw = (file: string) => readFileSync(file.startsWith('test/') ? path.join(REPO, file) : path.join(FIXTURES_DIR, file), 'utf8')

describe('recordings/fixtures.jsonl', () => {
  it('is exactly what the script builds from the fixtures (rebuild: npm run recording:fixtures)', () => {
    expect(buildFixturesRecording(FIXTURES_DIR)).toBe(committed)
  })

  it('is a valid recording, sorted by receive time, every line naming its source file', async () => {
    const rec = await loadRecording(OUT_FILE)
    expect(rec.times.length).toBe(lines.length)
    expect([...rec.venues].sort()).toEqual(['binance', 'bybit', 'dydx', 'hyperliquid', 'okx'])
    for (const l of lines) expect(l.source, JSON.stringify(l).slice(0, 120)).toMatch(/^((binance|bybit|okx|hyperliquid|dydx)\/|test\/fixtures\/venues\/)[a-z0-9_]+\.json$/)
  })

  it('holds the venues\' liquidation frames and positioning answers of test/fixtures/venues, byte for byte, at their own times', () => {
    const of = (file: string) => lines.filter((l) => l.source === `test/fixtures/venues/${file}`)
    const text = (file: string) => raw(`test/fixtures/venues/${file}`)
    const force = of('binance_ws_force_order.json') as WsLine[]
    expect(force.map((l) => JSON.parse(l.frame))).toEqual(JSON.parse(text('binance_ws_force_order.json')))
    expect(force.map((l) => l.at)).toEqual(JSON.parse(text('binance_ws_force_order.json')).map((f: { E: number }) => f.E))
    for (const file of ['bybit_ws_all_liquidation.json', 'okx_ws_liquidation_orders.json', 'dydx_ws_trades_liquidated.json']) expect((of(file) as WsLine[]).map((l) => l.frame)).toEqual([text(file)])
    for (const file of ['binance_global_long_short_account_ratio.json', 'bybit_account_ratio.json']) expect((of(file) as HttpLine[]).map((l) => l.body)).toEqual([text(file)])
    // OKX's answer names no instrument: left out rather than answering every coin's call
    expect(of('okx_long_short_account_ratio_contract.json')).toEqual([])
  })

  it('HTTP bodies are the files byte for byte (dYdX: the indexer body inside the recorder wrapper)', () => {
    for (const l of lines.filter((x): x is HttpLine => x.kind === 'http')) {
      if (l.venue === 'dydx') expect(JSON.parse(l.body)).toEqual(JSON.parse(raw(l.source!)).result)
      else expect(l.body).toBe(raw(l.source!))
    }
    // a dYdX body is a slice of its file, not a re-serialization
    const dydx = lines.find((l) => l.source === 'dydx/perpetual_markets.json') as HttpLine
    expect(raw('dydx/perpetual_markets.json')).toContain(dydx.body)
  })

  it('WebSocket frames are the array elements of their file, in order, byte for byte', () => {
    const frames = (file: string) => lines.filter((l): l is WsLine => l.kind === 'ws' && l.source === file)
    const trades = frames('bybit/ws_public_trade.json')
    expect(trades.map((f) => JSON.parse(f.frame))).toEqual(JSON.parse(raw('bybit/ws_public_trade.json')))
    for (const f of trades) expect(raw('bybit/ws_public_trade.json')).toContain(f.frame)
    // a single-frame file is the whole file
    expect(frames('dydx/ws_trades.json').map((f) => f.frame)).toEqual([raw('dydx/ws_trades.json')])
  })

  it('times are the payloads\' own, else the date SOURCES.md gives', () => {
    const at = (file: string) => lines.filter((l) => l.source === file).map((l) => l.at)
    expect(at('bybit/instruments.json')).toEqual([JSON.parse(raw('bybit/instruments.json')).time])
    expect(at('bybit/ws_public_trade.json')).toEqual(JSON.parse(raw('bybit/ws_public_trade.json')).map((f: { ts: number }) => f.ts))
    expect(at('okx/mark_price.json')).toEqual([Number(JSON.parse(raw('okx/mark_price.json')).data[0].ts)])
    expect(at('dydx/perpetual_markets.json')).toEqual([Date.parse(JSON.parse(raw('dydx/perpetual_markets.json')).isoTimestamp)])
    expect(at('hyperliquid/meta_and_asset_ctxs.json')).toEqual([Date.UTC(2024, 11, 21)])
    // Hyperliquid's POST bodies are recorded: they select the answer
    const meta = lines.find((l) => l.source === 'hyperliquid/meta_and_asset_ctxs.json') as HttpLine
    expect([meta.method, meta.requestBody, meta.testnet]).toEqual(['POST', '{"type":"metaAndAssetCtxs"}', true])
  })
})
