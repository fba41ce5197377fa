// npm run recording:fixtures  ->  recordings/fixtures.jsonl
// The shared exchange fixtures (real recorded payloads, ../shared/fixtures/exchanges, see its SOURCES.md) as one
// recording the service can replay: every payload whose request SOURCES.md states, raw text copied byte for byte,
// stamped with its own time where it carries one (else the date SOURCES.md gives), sorted by that time; and the
// venues' documented liquidation frames and positioning answers of test/fixtures/venues (its SOURCES.md), the same way.
// Deterministic: the same fixtures give the same file. EXCHANGE_FIXTURES_DIR overrides the fixtures directory.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { formatLine, type HttpLine, type WsLine } from '../src/sources/replay/format.js'
import type { ExchangeId } from '../src/domain/exchanges.js'
import { jsonArrayElements, jsonMemberText } from './json-slices.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const DEFAULT_FIXTURES_DIR = path.resolve(ROOT, '../shared/fixtures/exchanges')
export const OUT_FILE = path.join(ROOT, 'recordings/fixtures.jsonl')

type Json = any
const day = (iso: string) => Date.parse(`${iso}T00:00:00.000Z`)
const max = (xs: number[]) => Math.max(...xs)

interface HttpEntry {
  venue: ExchangeId
  file: string
  method?: 'GET' | 'POST'
  url: string
  requestBody?: string
  /** receive time from the parsed body */
  at: (body: Json) => number
  /** the raw HTTP body inside the file (default: the whole file) */
  body?: (text: string) => string
  testnet?: boolean
  note?: string
}

interface WsEntry {
  venue: ExchangeId
  file: string
  url: string
  /** time of one frame */
  at: (frame: Json) => number
  /** the file holds one frame, not an array of frames */
  single?: boolean
  note?: string
}

const BINANCE_F = 'https://fapi.binance.com'
const BYBIT = 'https://api.bybit.com'
const OKX = 'https://www.okx.com'
const HL_INFO = 'https://api.hyperliquid.xyz/info'
const DYDX = 'https://indexer.dydx.trade'
// the indexer body inside nautilus' recorder wrapper {requestId, status, isoTimestamp, result}
const dydxResult = (text: string) => jsonMemberText(text, 'result')
const dydxAt = (wrapper: Json) => Date.parse(wrapper.isoTimestamp)

const HTTP: HttpEntry[] = [
  { venue: 'binance', file: 'binance/instruments.json', url: `${BINANCE_F}/fapi/v1/exchangeInfo`, at: (b) => b.serverTime },
  { venue: 'binance', file: 'binance/premium_index.json', url: `${BINANCE_F}/fapi/v1/premiumIndex?symbol=BTCUSDT`, at: (b) => b.time },
  { venue: 'binance', file: 'binance/premium_index_all.json', url: `${BINANCE_F}/fapi/v1/premiumIndex`, at: (b) => max(b.map((r: Json) => r.time)) },
  { venue: 'binance', file: 'binance/depth.json', url: `${BINANCE_F}/fapi/v1/depth?symbol=SUSHIUSDT&limit=1000`, at: (b) => b.E },
  { venue: 'binance', file: 'binance/depth_limit5.json', url: `${BINANCE_F}/fapi/v1/depth?symbol=BTCUSDT&limit=5`, at: (b) => Number(b.E), testnet: true },
  { venue: 'binance', file: 'binance/klines.json', url: `${BINANCE_F}/fapi/v1/klines?symbol=BTCUSDT&interval=1m&limit=3`, at: (b) => max(b.map((k: Json) => k[0])), testnet: true, note: 'at: open time of the newest (current) minute' },
  { venue: 'bybit', file: 'bybit/instruments.json', url: `${BYBIT}/v5/market/instruments-info?&category=linear&status=Trading&limit=1000`, at: (b) => b.time },
  { venue: 'bybit', file: 'bybit/tickers.json', url: `${BYBIT}/v5/market/tickers?category=linear&symbol=BTCUSDT`, at: (b) => Number(b.time) },
  { venue: 'bybit', file: 'bybit/tickers_testnet.json', url: `${BYBIT}/v5/market/tickers?category=linear&symbol=BTCUSDT`, at: (b) => Number(b.time), testnet: true },
  {
    venue: 'bybit',
    file: 'bybit/open_interest.json',
    url: `${BYBIT}/v5/market/open-interest?category=linear&symbol=BTCUSDT&limit=1`,
    at: (b) => b.time,
    note: 'the recorded request also had an intervalTime whose value SOURCES.md does not give; left out of the url',
  },
  { venue: 'bybit', file: 'bybit/orderbook.json', url: `${BYBIT}/v5/market/orderbook?category=linear&symbol=BTCUSDT&limit=2`, at: (b) => Number(b.time), testnet: true },
  { venue: 'bybit', file: 'bybit/recent_trades.json', url: `${BYBIT}/v5/market/recent-trade?category=linear&symbol=BTCUSDT&limit=1`, at: (b) => Number(b.time), testnet: true },
  { venue: 'bybit', file: 'bybit/klines.json', url: `${BYBIT}/v5/market/kline?category=linear&symbol=BTCUSDT&interval=60&limit=3`, at: (b) => Number(b.time) },
  { venue: 'okx', file: 'okx/instruments.json', url: `${OKX}/api/v5/public/instruments?instType=SWAP`, at: () => day('2022-05-13'), note: 'at: the recording date (the body carries no time)' },
  { venue: 'okx', file: 'okx/mark_price.json', url: `${OKX}/api/v5/public/mark-price?instType=SWAP&instId=BTC-USDT-SWAP`, at: (b) => Number(b.data[0].ts) },
  { venue: 'okx', file: 'okx/index_price.json', url: `${OKX}/api/v5/market/index-tickers?instId=BTC-USDT`, at: (b) => Number(b.data[0].ts) },
  { venue: 'okx', file: 'okx/funding_rate_history.json', url: `${OKX}/api/v5/public/funding-rate-history?instId=BTC-USDT-SWAP`, at: (b) => max(b.data.map((r: Json) => Number(r.fundingTime))), note: 'at: the newest settlement in the body' },
  { venue: 'okx', file: 'okx/open_interest.json', url: `${OKX}/api/v5/public/open-interest?instId=BTC-USDT-SWAP`, at: (b) => Number(b.data[0].ts) },
  { venue: 'okx', file: 'okx/orderbook.json', url: `${OKX}/api/v5/market/books?instId=BTC-USDT-SWAP&sz=2`, at: (b) => Number(b.data[0].ts) },
  { venue: 'okx', file: 'okx/candles_spot.json', url: `${OKX}/api/v5/market/candles?instId=BTC-USDT&bar=1H&limit=3`, at: (b) => max(b.data.map((r: Json) => Number(r[0]))), note: 'at: open time of the newest candle' },
  { venue: 'okx', file: 'okx/trades_spot.json', url: `${OKX}/api/v5/market/trades?instId=BTC-USDT&limit=1`, at: (b) => Number(b.data[0].ts) },
  { venue: 'okx', file: 'okx/ticker_spot.json', url: `${OKX}/api/v5/market/ticker?instId=BTC-USDT`, at: (b) => Number(b.data[0].ts) },
  { venue: 'hyperliquid', file: 'hyperliquid/meta.json', method: 'POST', url: HL_INFO, requestBody: '{"type":"meta"}', at: () => day('2023-07-17'), note: 'at: the recording date (the body carries no time)' },
  { venue: 'hyperliquid', file: 'hyperliquid/l2_book.json', method: 'POST', url: HL_INFO, requestBody: '{"type":"l2Book","coin":"DYDX"}', at: (b) => b.time },
  {
    venue: 'hyperliquid',
    file: 'hyperliquid/candles.json',
    method: 'POST',
    url: HL_INFO,
    requestBody: '{"type":"candleSnapshot","req":{"coin":"kPEPE","interval":"1h","startTime":1684702007000,"endTime":1684784807000}}',
    at: (b) => max(b.map((c: Json) => c.t)),
    note: 'at: open time of the newest candle',
  },
  {
    venue: 'hyperliquid',
    file: 'hyperliquid/funding_history.json',
    method: 'POST',
    url: HL_INFO,
    requestBody: '{"type":"fundingHistory","coin":"BTC","startTime":1681923833000,"endTime":1684811870000}',
    at: (b) => max(b.map((r: Json) => r.time)),
    note: 'at: the newest settlement in the body',
  },
  {
    venue: 'hyperliquid',
    file: 'hyperliquid/meta_and_asset_ctxs.json',
    method: 'POST',
    url: HL_INFO,
    requestBody: '{"type":"metaAndAssetCtxs"}',
    at: () => day('2024-12-21'),
    testnet: true,
    note: 'at: the recording date (the body carries no time); the request is implied by the response shape',
  },
  {
    venue: 'hyperliquid',
    file: 'hyperliquid/recent_trades.json',
    method: 'POST',
    url: HL_INFO,
    requestBody: '{"type":"recentTrades","coin":"BTC"}',
    at: (b) => max(b.map((t: Json) => t.time)),
    testnet: true,
    note: 'the request is implied by the response (BTC trades)',
  },
  { venue: 'dydx', file: 'dydx/perpetual_markets.json', url: `${DYDX}/v4/perpetualMarkets`, at: dydxAt, body: dydxResult },
  { venue: 'dydx', file: 'dydx/orderbook.json', url: `${DYDX}/v4/orderbooks/perpetualMarket/BTC-USD`, at: dydxAt, body: dydxResult },
  { venue: 'dydx', file: 'dydx/trades.json', url: `${DYDX}/v4/trades/perpetualMarket/BTC-USD`, at: dydxAt, body: dydxResult },
  { venue: 'dydx', file: 'dydx/candles.json', url: `${DYDX}/v4/candles/perpetualMarkets/BTC-USD?resolution=1MIN`, at: dydxAt, body: dydxResult },
  { venue: 'dydx', file: 'dydx/historical_funding.json', url: `${DYDX}/v4/historicalFunding/BTC-USD`, at: dydxAt, body: dydxResult },
]

const BINANCE_FSTREAM = 'wss://fstream.binance.com/stream'
const BYBIT_LINEAR = 'wss://stream.bybit.com/v5/public/linear'
const OKX_PUBLIC = 'wss://ws.okx.com:8443/ws/v5/public'
const HL_WS = 'wss://api.hyperliquid.xyz/ws'
const DYDX_WS = 'wss://indexer.dydx.trade/v4/ws'
const binanceE = (f: Json) => f.data.E
const okxTs = (f: Json) => Number(f.data[0].ts)
// dYdX frames of connection 7ad53844 (2024-07-24): only the trades frame carries a time; the session's other frames
// (earlier and later message_ids on the same connection) take it, in message_id order
const DYDX_SESSION = Date.parse('2024-07-24T19:12:35.705Z')

const WS: WsEntry[] = [
  { venue: 'binance', file: 'binance/ws_agg_trade.json', url: BINANCE_FSTREAM, at: binanceE },
  { venue: 'binance', file: 'binance/ws_kline_1m.json', url: BINANCE_FSTREAM, at: binanceE },
  { venue: 'binance', file: 'binance/ws_depth_update.json', url: BINANCE_FSTREAM, at: binanceE },
  { venue: 'binance', file: 'binance/ws_book_ticker.json', url: BINANCE_FSTREAM, at: binanceE },
  { venue: 'binance', file: 'binance/ws_mark_price_and_ticker.json', url: BINANCE_FSTREAM, at: binanceE, note: 'converted from JS object literals in a test (SOURCES.md: TARDIS)' },
  { venue: 'bybit', file: 'bybit/ws_tickers.json', url: BYBIT_LINEAR, at: (f) => f.ts },
  { venue: 'bybit', file: 'bybit/ws_orderbook.json', url: BYBIT_LINEAR, at: (f) => f.ts },
  { venue: 'bybit', file: 'bybit/ws_public_trade.json', url: BYBIT_LINEAR, at: (f) => f.ts },
  { venue: 'bybit', file: 'bybit/ws_kline.json', url: BYBIT_LINEAR, at: (f) => f.ts },
  { venue: 'okx', file: 'okx/ws_books.json', url: OKX_PUBLIC, at: okxTs },
  { venue: 'okx', file: 'okx/ws_tickers.json', url: OKX_PUBLIC, at: okxTs },
  { venue: 'okx', file: 'okx/ws_trades.json', url: OKX_PUBLIC, at: okxTs },
  {
    venue: 'hyperliquid',
    file: 'hyperliquid/ws_trades_and_asset_ctx.json',
    url: HL_WS,
    at: (f) => (Array.isArray(f.data) ? max(f.data.map((t: Json) => t.time)) : day('2024-10-29')),
    note: 'converted from JS object literals in a test (SOURCES.md: TARDIS); activeAssetCtx carries no time: the recording date',
  },
  { venue: 'dydx', file: 'dydx/ws_orderbook_snapshot.json', url: DYDX_WS, at: () => DYDX_SESSION, single: true, note: 'at: the time of the same connection\'s trades frame (message_id 4 of that session)' },
  { venue: 'dydx', file: 'dydx/ws_trades.json', url: DYDX_WS, at: (f) => max(f.contents.trades.map((t: Json) => Date.parse(t.createdAt))), single: true },
  { venue: 'dydx', file: 'dydx/ws_orderbook_update.json', url: DYDX_WS, at: () => DYDX_SESSION, single: true, note: 'at: the time of the same connection\'s trades frame (message_id 3219 of that session)' },
  { venue: 'dydx', file: 'dydx/ws_markets_oracle_price.json', url: DYDX_WS, at: (f) => max(Object.values(f.contents.oraclePrices).map((p: Json) => Date.parse(p.effectiveAt))), single: true },
  { venue: 'dydx', file: 'dydx/ws_candles.json', url: DYDX_WS, at: (f) => Date.parse(f.contents.startedAt), single: true, note: 'at: the candle\'s start' },
]

// The venues' liquidation frames and positioning answers (test/fixtures/venues, its SOURCES.md: the venues' documented
// examples, for want of recorded ones). Each keeps its own time; the replay re-times them like every other session.
// Frames of coins outside the universe (Bybit ROSEUSDT, OKX IOST-USDT-SWAP) are kept: the replay skips them.
export const VENUES_DIR = path.join(ROOT, 'test/fixtures/venues')
const VENUES_SOURCE = 'test/fixtures/venues/'

const VENUE_HTTP: HttpEntry[] = [
  {
    venue: 'binance',
    file: 'binance_global_long_short_account_ratio.json',
    url: `${BINANCE_F}/futures/data/globalLongShortAccountRatio?symbol=BTCUSDT`,
    at: (b) => max(b.map((r: Json) => r.timestamp)),
    note: 'at: the newest period in the body; the request\'s period and limit are not given (the symbol is the body\'s)',
  },
  {
    venue: 'bybit',
    file: 'bybit_account_ratio.json',
    url: `${BYBIT}/v5/market/account-ratio?symbol=BTCUSDT`,
    at: (b) => b.time,
    note: 'the request\'s category, period and limit are not given (the symbol is the body\'s)',
  },
]

const VENUE_WS: WsEntry[] = [
  { venue: 'binance', file: 'binance_ws_force_order.json', url: 'wss://fstream.binance.com/ws', at: (f) => f.E, note: 'the venue\'s documented example (raw event stream)' },
  { venue: 'bybit', file: 'bybit_ws_all_liquidation.json', url: BYBIT_LINEAR, at: (f) => f.ts, single: true, note: 'the venue\'s documented example; ROSEUSDT is outside the coin universe' },
  {
    venue: 'okx',
    file: 'okx_ws_liquidation_orders.json',
    url: OKX_PUBLIC,
    at: (f) => max(f.data.flatMap((i: Json) => i.details.map((d: Json) => Number(d.ts)))),
    single: true,
    note: 'the venue\'s documented example; IOST-USDT-SWAP is outside the coin universe',
  },
  {
    venue: 'dydx',
    file: 'dydx_ws_trades_liquidated.json',
    url: DYDX_WS,
    at: (f) => max(f.contents.trades.map((t: Json) => Date.parse(t.createdAt))),
    single: true,
    note: 'the indexer\'s documented example',
  },
]

/** Files left out, and why (docs/recordings.md lists them too). */
export const LEFT_OUT: Record<string, string> = {
  '*/ccxt_markets.json': 'CCXT unified market structures, not a venue payload',
  'binance/tiers.json': 'CCXT unified leverage tiers, not the raw /fapi/v1/leverageBracket body',
  'okx/candles_swap.json': 'SOURCES.md does not give the request (the instrument is only implied)',
  'hyperliquid/all_mids.json': 'no time in the payload and no date in SOURCES.md',
  'hyperliquid/ws_all_dexs_asset_ctxs.json': 'no time in the payload and no date in SOURCES.md',
  'dydx/ws_orderbook_batched.json': 'no time in the payload and no date in SOURCES.md',
  'dydx/ws_markets_trading.json': 'no time in the payload and no date in SOURCES.md',
  'test/fixtures/venues/okx_long_short_account_ratio_contract.json': 'the instrument is not given (the body names none); it would answer every coin\'s call',
}

/** The recording's text: one line per payload, sorted by receive time (file order kept among equal times). */
export function buildFixturesRecording(dir: string = DEFAULT_FIXTURES_DIR, venuesDir: string = VENUES_DIR): string {
  const lines: Array<HttpLine | WsLine> = []
  const sources = [
    { base: dir, source: '', http: HTTP, ws: WS },
    { base: venuesDir, source: VENUES_SOURCE, http: VENUE_HTTP, ws: VENUE_WS },
  ]
  for (const src of sources) lines.push(...linesOf(src.base, src.source, src.http, src.ws))
  for (const l of lines) if (!Number.isFinite(l.at)) throw new Error(`${l.source}: no time`)
  // stable: equal times keep the order above (a session's frames in message order)
  const sorted = lines.map((l, i) => ({ l, i })).sort((a, b) => a.l.at - b.l.at || a.i - b.i)
  return sorted.map(({ l }) => formatLine(l) + '\n').join('')
}

/** one line per payload of the entries, read from `dir`; `source` is the file prefixed with `prefix` */
function linesOf(dir: string, prefix: string, http: HttpEntry[], ws: WsEntry[]): Array<HttpLine | WsLine> {
  const read = (file: string) => fs.readFileSync(path.join(dir, file), 'utf8')
  const lines: Array<HttpLine | WsLine> = []
  for (const e of http) {
    const text = read(e.file)
    const body = e.body ? e.body(text) : text
    lines.push({
      v: 1,
      venue: e.venue,
      at: e.at(JSON.parse(text)),
      kind: 'http',
      method: e.method ?? 'GET',
      url: e.url,
      ...(e.requestBody !== undefined ? { requestBody: e.requestBody } : {}),
      status: 200,
      body,
      source: prefix + e.file,
      ...(e.note !== undefined ? { note: e.note } : {}),
      ...(e.testnet ? { testnet: true } : {}),
    })
  }
  for (const e of ws) {
    const text = read(e.file)
    const frames = e.single ? [text] : jsonArrayElements(text)
    for (const frame of frames) {
      lines.push({ v: 1, venue: e.venue, at: e.at(JSON.parse(frame)), kind: 'ws', url: e.url, frame, source: prefix + e.file, ...(e.note !== undefined ? { note: e.note } : {}) })
    }
  }
  return lines
}

function main(): void {
  const dir = process.env['EXCHANGE_FIXTURES_DIR'] ?? DEFAULT_FIXTURES_DIR
  const text = buildFixturesRecording(dir)
  fs.mkdirSync(path.dirname(OUT_FILE), { recursive: true })
  fs.writeFileSync(OUT_FILE, text)
  const count = text.split('\n').length - 1
  console.log(`wrote ${path.relative(process.cwd(), OUT_FILE)}: ${count} lines from ${dir}`)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main()
