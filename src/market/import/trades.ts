// Historical trade dumps -> TradeEvents.
//
// Supported layouts (column order is fixed; a header row is optional and only used for detection):
//
// Binance public data archive, data.binance.vision (booleans are true/false in futures, True/False in spot files):
//   USD-M futures aggTrades (7): agg_trade_id,price,quantity,first_trade_id,last_trade_id,transact_time,is_buyer_maker
//                                (header row in files from ~2022 on, none before)
//   USD-M futures trades    (6): id,price,qty,quote_qty,time,is_buyer_maker
//   spot aggTrades          (8): aggTradeId,price,quantity,firstTradeId,lastTradeId,timestamp,isBuyerMaker,isBestMatch
//   spot trades             (7): tradeId,price,qty,quoteQty,time,isBuyerMaker,isBestMatch
//                                (spot: no header row; timestamps in MICROseconds from 2025-01-01 on)
//   The layouts are told apart by content alone: the first boolean column is #7 in aggTrades and #6 in trades,
//   and spot rows have one extra trailing boolean (isBestMatch). is_buyer_maker=true means the taker SOLD.
//
// Tardis.dev normalized "trades" dataset (CSV, usually .csv.gz), header always present:
//   exchange,symbol,timestamp,local_timestamp,id,side,price,amount
//   timestamps in microseconds, side = taker side buy|sell|unknown, amount as the venue reports it
//   (contracts for okex-swap -> multiplied by the contract size).
//
// Timestamps: any value >= 1e14 is taken as microseconds and FLOORED to ms (12:00:59.999999 -> 12:00:59.999, so a
// trade never moves into the next minute); smaller values are ms. After conversion it must lie in 2009..2100.
import { basename } from 'node:path'
import { z } from 'zod'
import { EXCHANGE_IDS, type ExchangeId, type MarketType, type TakerSide, type TradeEvent } from '../events.js'
import { hasMarket } from '../exchanges.js'
import { ImportFileError, type RowError } from './errors.js'
import { openSource, peekLines, readLineChunks } from './source.js'
import {
  OKX_SWAP_CONTRACT_SIZES,
  TARDIS_VENUES,
  binancePathHint,
  coinFromBinanceSymbol,
  coinFromTardisSymbol,
  parseBinanceFileName,
  parseTardisFileName,
  type BinanceKind,
} from './symbols.js'

export type TradeFormat = 'binance-aggTrades' | 'binance-trades' | 'tardis-trades'

export interface ImportOverrides {
  exchange?: ExchangeId
  coin?: string
  marketType?: MarketType
  /** coins per contract for contract-denominated sources (tardis okex-swap): one number, or per coin */
  contractSize?: number | Record<string, number>
  /** tardis rows with side "unknown": 'skip' (default, counted in `skipped`) or 'error' */
  unknownSide?: 'skip' | 'error'
}

const OverridesSchema = z.object({
  exchange: z.enum(EXCHANGE_IDS).optional(),
  coin: z
    .string()
    .transform((c) => c.trim().toUpperCase())
    .pipe(z.string().regex(/^[A-Z0-9]+$/, 'coin must be letters/digits like BTC'))
    .optional(),
  marketType: z.enum(['perp', 'spot']).optional(),
  contractSize: z
    .union([z.number().positive().finite(), z.record(z.string(), z.number().positive().finite())])
    .optional(),
  unknownSide: z.enum(['skip', 'error']).optional(),
})

function checkOverrides(o: ImportOverrides): ImportOverrides {
  const r = OverridesSchema.safeParse(o)
  if (!r.success) throw new Error(`invalid import options: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
  const out: ImportOverrides = { ...r.data }
  if (out.contractSize && typeof out.contractSize === 'object') {
    out.contractSize = Object.fromEntries(Object.entries(out.contractSize).map(([k, v]) => [k.toUpperCase(), v]))
  }
  return out
}

// ---------------------------------------------------------------------------------------------------------------
// detection

export interface DetectedFormat {
  format: TradeFormat | 'binance-klines'
  /** first non-blank line is a header */
  hasHeader: boolean
  /** number of columns of the layout (binance: 6/7 futures, 7/8 spot), null when unknown (empty file) */
  columns: number | null
  /** binance: market type implied by the column layout (spot has the trailing isBestMatch column) */
  layoutMarketType: MarketType | null
}

const TARDIS_HEADER = 'exchange,symbol,timestamp,local_timestamp,id,side,price,amount'
const isBool = (s: string | undefined) => s !== undefined && /^(true|false)$/i.test(s.trim())
const isDigitStart = (s: string) => {
  const c = s.charCodeAt(0)
  return c >= 48 && c <= 57
}

/** binance layout of one data row, by where its first boolean column is */
function binanceRowLayout(f: string[]): { kind: BinanceKind; market: MarketType } | null {
  if (f.length === 7 && isBool(f[6]) && !isBool(f[5])) return { kind: 'aggTrades', market: 'perp' }
  if (f.length === 8 && isBool(f[6]) && isBool(f[7]) && !isBool(f[5])) return { kind: 'aggTrades', market: 'spot' }
  if (f.length === 6 && isBool(f[5])) return { kind: 'trades', market: 'perp' }
  if (f.length === 7 && isBool(f[5]) && isBool(f[6])) return { kind: 'trades', market: 'spot' }
  return null
}

/** binance layout from a header row (names compared without case and underscores) */
function binanceHeaderLayout(f: string[]): { kind: BinanceKind | 'klines' | 'coin-m'; market: MarketType } | null {
  const n = f.map((x) => x.trim().toLowerCase().replace(/[_\s]/g, ''))
  if (n[0] === 'opentime') return { kind: 'klines', market: 'perp' }
  if (n.includes('basequantity') || n.includes('baseqty')) return { kind: 'coin-m', market: 'perp' }
  const spot = n.includes('isbestmatch')
  if (n.includes('firsttradeid') && (f.length === 7 || f.length === 8)) return { kind: 'aggTrades', market: spot ? 'spot' : 'perp' }
  if ((n.includes('quoteqty') || n.includes('quotequantity')) && (f.length === 6 || f.length === 7)) return { kind: 'trades', market: spot ? 'spot' : 'perp' }
  return null
}

/**
 * Identify a trade file from its name and first lines (raw text lines, blank lines allowed).
 * Throws ImportFileError when the content matches no supported layout or contradicts the file name.
 */
export function detectFormat(path: string, firstLines: string[]): DetectedFormat {
  const name = basename(path)
  const lines = firstLines.map((l) => l.replace(/^\uFEFF/, '').replace(/\r$/, '')).filter((l) => l.trim() !== '')
  const fromName = parseBinanceFileName(name)
  const first = lines[0]
  if (first === undefined) {
    if (fromName && fromName.kind !== 'klines') return { format: `binance-${fromName.kind}`, hasHeader: false, columns: null, layoutMarketType: null }
    if (parseTardisFileName(name)) return { format: 'tardis-trades', hasHeader: false, columns: null, layoutMarketType: null }
    throw new ImportFileError(path, 0, 'empty file and the file name does not tell its format')
  }
  const f0 = first.split(',')

  // tardis
  if (first.trim().toLowerCase() === TARDIS_HEADER) return { format: 'tardis-trades', hasHeader: true, columns: 8, layoutMarketType: null }
  if (f0.length === 8 && f0[0]! in TARDIS_VENUES) return { format: 'tardis-trades', hasHeader: false, columns: 8, layoutMarketType: null }
  if (f0[0]?.trim().toLowerCase() === 'exchange') {
    throw new ImportFileError(path, 1, `tardis header must be "${TARDIS_HEADER}", got "${first}"`)
  }

  // binance
  let hasHeader = false
  let layout: { kind: BinanceKind | 'klines'; market: MarketType } | null = null
  if (!isDigitStart(f0[0]!.trim())) {
    const h = binanceHeaderLayout(f0)
    if (!h) throw new ImportFileError(path, 1, `unrecognized header "${first}"`)
    if (h.kind === 'coin-m') throw new ImportFileError(path, 1, 'COIN-M futures trades (sizes in contracts) are not supported')
    hasHeader = true
    layout = h as { kind: BinanceKind | 'klines'; market: MarketType }
  }
  const dataLine = hasHeader ? lines[1] : first
  if (dataLine !== undefined) {
    const f = dataLine.split(',')
    const fromRow = f.length === 12 ? { kind: 'klines' as const, market: layout?.market ?? 'perp' } : binanceRowLayout(f)
    if (!fromRow) {
      throw new ImportFileError(path, hasHeader ? 2 : 1, `row matches no supported layout (${f.length} columns): "${dataLine}"`)
    }
    if (layout && (layout.kind !== fromRow.kind || (layout.kind !== 'klines' && layout.market !== fromRow.market))) {
      throw new ImportFileError(path, 2, `header says ${layout.market} ${layout.kind} but the first row looks like ${fromRow.market} ${fromRow.kind}`)
    }
    layout = fromRow
  }
  if (!layout) throw new ImportFileError(path, 1, 'cannot tell the layout')
  if (layout.kind === 'klines') return { format: 'binance-klines', hasHeader, columns: 12, layoutMarketType: null }
  if (fromName && fromName.kind !== layout.kind) {
    throw new ImportFileError(path, 0, `file name says ${fromName.kind} but the content is ${layout.kind}`)
  }
  const columns = layout.kind === 'aggTrades' ? (layout.market === 'spot' ? 8 : 7) : layout.market === 'spot' ? 7 : 6
  return { format: `binance-${layout.kind}`, hasHeader, columns, layoutMarketType: layout.market }
}

// ---------------------------------------------------------------------------------------------------------------
// description

export interface FileDescription {
  path: string
  format: TradeFormat
  hasHeader: boolean
  /** the header row text, when present (repeated header rows further down are skipped) */
  header: string | null
  exchange: ExchangeId
  coin: string
  marketType: MarketType
  /** binance: columns per row */
  columns: number | null
  /** tardis: venue and symbol of the first row (a tardis file may mix symbols; every row is mapped on its own) */
  sourceExchange: string | null
  symbol: string | null
  /** coins per contract applied to sizes (tardis okex-swap), null when sizes are already coins */
  contractSize: number | null
  /** how each field was decided, for CLI messages */
  inferred: { exchange: Source; coin: Source; marketType: Source }
}
type Source = 'flag' | 'file-name' | 'path' | 'layout' | 'data' | 'default'

const fail = (path: string, line: number, msg: string): never => {
  throw new ImportFileError(path, line, msg)
}

function contractSizeFor(o: ImportOverrides, coin: string): number | null {
  const cs = o.contractSize
  if (typeof cs === 'number') return cs
  if (cs && cs[coin] !== undefined) return cs[coin]!
  return OKX_SWAP_CONTRACT_SIZES[coin] ?? null
}

function checkMarket(path: string, exchange: ExchangeId, marketType: MarketType) {
  if (!hasMarket(exchange, marketType)) fail(path, 0, `${exchange} has no ${marketType} market`)
}

function describeFrom(path: string, det: DetectedFormat, peek: { line: number; text: string }[], entryName: string | null, o: ImportOverrides): FileDescription {
  const header = det.hasHeader ? (peek[0]?.text ?? null) : null
  if (det.format === 'binance-klines') return fail(path, 0, 'this is a Binance kline file, not trades (use readBinanceKlineFile)')
  if (det.format === 'tardis-trades') {
    const firstData = peek[det.hasHeader ? 1 : 0]
    let tex: string | undefined
    let sym: string | undefined
    let line = 0
    if (firstData) {
      const f = splitCsvLine(firstData.text)
      tex = f[0]
      sym = f[1]
      line = firstData.line
    } else {
      const n = parseTardisFileName(basename(path))
      tex = n?.exchange
      sym = n?.symbol
    }
    if (!tex || sym === undefined) return fail(path, 0, 'empty tardis file: cannot tell exchange and symbol')
    const venue = TARDIS_VENUES[tex]
    if (!venue) return fail(path, line, `unsupported tardis exchange "${tex}" (supported: ${Object.keys(TARDIS_VENUES).join(', ')})`)
    let coin = o.coin
    if (!coin) {
      const c = coinFromTardisSymbol(tex, sym)
      if ('error' in c) return fail(path, line, `${c.error}; pass --coin to force`)
      coin = c.coin
    }
    const exchange = o.exchange ?? venue.exchange
    const marketType = o.marketType ?? venue.marketType
    checkMarket(path, exchange, marketType)
    let contractSize: number | null = null
    if (venue.contracts) {
      contractSize = contractSizeFor(o, coin)
      if (contractSize === null) return fail(path, line, `${tex} ${sym} sizes are contracts and the contract size of ${coin} is unknown; pass --contract-size`)
    } else if (o.contractSize !== undefined) {
      return fail(path, 0, `--contract-size given but ${tex} amounts are already in coins`)
    }
    return {
      path, format: 'tardis-trades', hasHeader: det.hasHeader, header, exchange, coin, marketType, columns: 8,
      sourceExchange: tex, symbol: sym, contractSize,
      inferred: { exchange: o.exchange ? 'flag' : 'data', coin: o.coin ? 'flag' : 'data', marketType: o.marketType ? 'flag' : 'data' },
    }
  }

  // binance
  if (o.contractSize !== undefined) fail(path, 0, '--contract-size does not apply to Binance USD-M/spot dumps (sizes are coins)')
  const nameInfo = parseBinanceFileName(basename(path)) ?? (entryName ? parseBinanceFileName(entryName) : null)
  let coin = o.coin
  let coinSrc: Source = 'flag'
  if (!coin) {
    if (!nameInfo) return fail(path, 0, 'cannot infer the coin: file name is not SYMBOL-aggTrades|trades-DATE; pass --coin')
    const c = coinFromBinanceSymbol(nameInfo.symbol)
    if ('error' in c) return fail(path, 0, c.error)
    coin = c.coin
    coinSrc = 'file-name'
  } else if (nameInfo) {
    // even with --coin, refuse markets whose sizes are not coins
    const c = coinFromBinanceSymbol(nameInfo.symbol)
    if ('error' in c && !/cannot infer coin/.test(c.error)) fail(path, 0, c.error)
  }
  const hint = binancePathHint(path)
  if (hint === 'coin-m' && !o.marketType) fail(path, 0, 'COIN-M futures (/futures/cm/) are not supported: sizes are contracts')
  let marketType: MarketType
  let mtSrc: Source
  if (o.marketType) [marketType, mtSrc] = [o.marketType, 'flag']
  else if (hint && hint !== 'coin-m') [marketType, mtSrc] = [hint, 'path']
  else if (det.layoutMarketType) [marketType, mtSrc] = [det.layoutMarketType, 'layout']
  else return fail(path, 0, 'cannot tell perp from spot (no data rows, no /futures/um/ or /spot/ in the path); pass --market-type')
  if (det.layoutMarketType && det.layoutMarketType !== marketType) {
    fail(path, 0, `${mtSrc === 'flag' ? '--market-type' : 'path'} says ${marketType} but the rows have the ${det.layoutMarketType} layout (${det.columns} columns)`)
  }
  const exchange = o.exchange ?? 'binance'
  checkMarket(path, exchange, marketType)
  return {
    path, format: det.format, hasHeader: det.hasHeader, header, exchange, coin, marketType,
    columns: det.columns ?? (det.format === 'binance-aggTrades' ? (marketType === 'spot' ? 8 : 7) : marketType === 'spot' ? 7 : 6),
    sourceExchange: null, symbol: nameInfo?.symbol ?? null, contractSize: null,
    inferred: { exchange: o.exchange ? 'flag' : 'default', coin: coinSrc, marketType: mtSrc },
  }
}

/**
 * What a file is and which market its trades belong to. Flags (overrides) win over the file name and path;
 * a flag that contradicts the column layout is an error. Reads only the first lines.
 */
export async function describeFile(path: string, overrides: ImportOverrides = {}): Promise<FileDescription> {
  const o = checkOverrides(overrides)
  const { lines, entryName } = await peekLines(path, 3)
  const det = detectFormat(entryName ? `${path}/${entryName}` : path, lines.map((l) => l.text))
  // file-name checks use the outer name; detectFormat also saw the entry name
  if (entryName) {
    const outer = parseBinanceFileName(basename(path))
    if (outer && outer.kind !== 'klines' && det.format !== 'tardis-trades' && `binance-${outer.kind}` !== det.format) {
      fail(path, 0, `file name says ${outer.kind} but the content is ${det.format.replace('binance-', '')}`)
    }
  }
  return describeFrom(path, det, lines, entryName, o)
}

// ---------------------------------------------------------------------------------------------------------------
// row parsing (hot path: plain split + Number, no regexes)

const MIN_TS = Date.UTC(2009, 0, 3)
const MAX_TS = Date.UTC(2100, 0, 1)

/** ms or µs (>= 1e14) integer -> integer ms (floored); NaN when malformed / out of range */
export function toMillis(raw: string): number {
  if (raw.length === 0) return NaN
  const v = Number(raw)
  if (!Number.isInteger(v)) return NaN
  const ms = v >= 1e14 ? (v - (v % 1000)) / 1000 : v
  return ms >= MIN_TS && ms < MAX_TS ? ms : NaN
}

const num = (s: string) => (s.length === 0 ? NaN : Number(s))

function parseBool(s: string): boolean | null {
  if (s === 'true' || s === 'True' || s === 'TRUE') return true
  if (s === 'false' || s === 'False' || s === 'FALSE') return false
  return null
}

/** a row parser returns an event, an error message, or null to skip the row */
type RowParser = (line: string, lineNo: number) => TradeEvent | string | null

function priceSizeError(price: number, size: number, rawP: string, rawS: string): string | null {
  if (!(price > 0) || !Number.isFinite(price)) return `bad price "${rawP}"`
  if (!(size > 0) || !Number.isFinite(size)) return `bad size "${rawS}" (must be a positive number)`
  return null
}

function binanceParser(d: FileDescription): RowParser {
  const cols = d.columns!
  const agg = d.format === 'binance-aggTrades'
  const tsCol = agg ? 5 : 4
  const makerCol = agg ? 6 : 5
  const { exchange, coin, marketType } = d
  const spot = cols === (agg ? 8 : 7)
  return (line) => {
    const f = line.split(',')
    if (f.length !== cols) return `expected ${cols} columns, got ${f.length}`
    const rawId = f[0]!
    if (rawId.length === 0 || !isDigitStart(rawId)) return `bad trade id "${rawId}"`
    const price = num(f[1]!)
    const size = num(f[2]!)
    const e = priceSizeError(price, size, f[1]!, f[2]!)
    if (e) return e
    const ts = toMillis(f[tsCol]!)
    if (ts !== ts) return `bad timestamp "${f[tsCol]}"`
    const maker = parseBool(f[makerCol]!)
    if (maker === null) return `bad is_buyer_maker "${f[makerCol]}"`
    if (spot && parseBool(f[cols - 1]!) === null) return `bad isBestMatch "${f[cols - 1]}"`
    return {
      type: 'trade', exchange, coin, marketType, ts,
      id: agg ? 'a' + rawId : rawId,
      price, size,
      side: maker ? 'sell' : 'buy',
    }
  }
}

/** CSV split honouring double quotes (tardis never quotes in practice; this is the slow path) */
export function splitCsvLine(line: string): string[] {
  if (line.indexOf('"') === -1) return line.split(',')
  const out: string[] = []
  let cur = ''
  let q = false
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (q) {
      if (c === '"') {
        if (line[i + 1] === '"') (cur += '"'), i++
        else q = false
      } else cur += c
    } else if (c === '"') q = true
    else if (c === ',') out.push(cur), (cur = '')
    else cur += c
  }
  out.push(cur)
  return out
}

interface TardisMapping {
  exchange: ExchangeId
  coin: string
  marketType: MarketType
  mult: number
}

function tardisParser(_d: FileDescription, o: ImportOverrides): RowParser {
  const cache = new Map<string, TardisMapping | string>()
  let lastKey = ''
  let last: TardisMapping | string = ''
  const symbolsSeen = new Set<string>()
  const mapping = (tex: string, sym: string): TardisMapping | string => {
    const venue = TARDIS_VENUES[tex]
    if (!venue) return `unsupported tardis exchange "${tex}"`
    let coin = o.coin
    if (!coin) {
      const c = coinFromTardisSymbol(tex, sym)
      if ('error' in c) return c.error
      coin = c.coin
    }
    const exchange = o.exchange ?? venue.exchange
    const marketType = o.marketType ?? venue.marketType
    if (!hasMarket(exchange, marketType)) return `${exchange} has no ${marketType} market`
    let mult = 1
    if (venue.contracts) {
      const cs = contractSizeFor(o, coin)
      if (cs === null) return `${tex} ${sym} sizes are contracts and the contract size of ${coin} is unknown; pass --contract-size`
      mult = cs
    }
    return { exchange, coin, marketType, mult }
  }
  const unknownSkip = (o.unknownSide ?? 'skip') === 'skip'
  return (line, lineNo) => {
    const f = splitCsvLine(line)
    if (f.length !== 8) return `expected 8 columns, got ${f.length}`
    const tex = f[0]!
    const sym = f[1]!
    const key = tex + ',' + sym
    if (key !== lastKey) {
      let m = cache.get(key)
      if (m === undefined) {
        m = mapping(tex, sym)
        cache.set(key, m)
        if (typeof m !== 'string') symbolsSeen.add(key)
        // a forced coin/exchange cannot apply to a file that mixes markets
        if (symbolsSeen.size > 1 && (o.coin || o.exchange)) {
          m = `file mixes symbols (${[...symbolsSeen].join(' / ')}); --coin/--exchange cannot be applied to it`
          cache.set(key, m)
        }
      }
      lastKey = key
      last = m
    }
    const m = last
    if (typeof m === 'string') return m
    let side: TakerSide
    const s = f[5]!
    if (s === 'buy') side = 'buy'
    else if (s === 'sell') side = 'sell'
    else if (s === 'unknown') {
      if (unknownSkip) return null
      return 'side is "unknown"'
    } else return `bad side "${s}"`
    const price = num(f[6]!)
    const amount = num(f[7]!)
    const e = priceSizeError(price, amount, f[6]!, f[7]!)
    if (e) return e
    const rawTs = f[2]!.length > 0 ? f[2]! : f[3]!
    const ts = toMillis(rawTs)
    if (ts !== ts) return `bad timestamp "${rawTs}"`
    // tardis ids can be empty for venues without trade ids: synthesize a stable one (same file -> same ids)
    const id = f[4]!.length > 0 ? f[4]! : `t${rawTs}-${lineNo}`
    return { type: 'trade', exchange: m.exchange, coin: m.coin, marketType: m.marketType, ts, id, price, size: m.mult === 1 ? amount : amount * m.mult, side }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// reading

export interface ReadHooks {
  /** called for each malformed row; without it the first one throws ImportFileError */
  onError?: (err: RowError) => void
  /** called for rows skipped by rule (tardis side "unknown") */
  onSkip?: (line: number) => void
  /** an already computed description (saves re-reading the first lines) */
  description?: FileDescription
}

/**
 * Stream a trade file as batches of events (one batch per ~1 MB read). The fastest way to consume a file.
 * Never loads the whole file. Throws ImportFileError(file, line) on the first malformed row unless hooks.onError is given.
 */
export async function* readTradeBatches(path: string, overrides: ImportOverrides = {}, hooks: ReadHooks = {}): AsyncGenerator<TradeEvent[]> {
  const o = checkOverrides(overrides)
  const d = hooks.description ?? (await describeFile(path, o))
  const parse = d.format === 'tardis-trades' ? tardisParser(d, o) : binanceParser(d)
  const onError = hooks.onError ?? ((e: RowError) => {
    throw new ImportFileError(path, e.line, e.message)
  })
  const onSkip = hooks.onSkip
  const header = d.header
  let headerPending = d.hasHeader
  const src = await openSource(path)
  try {
    for await (const { lines, firstLine } of readLineChunks(src.stream, path)) {
      const batch: TradeEvent[] = []
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!
        if (line.length === 0) continue
        const c = line.charCodeAt(0)
        if (c <= 32 && line.trim() === '') continue
        if (headerPending) {
          headerPending = false
          continue
        }
        if ((c < 48 || c > 57) && header !== null && line === header) continue // repeated header of concatenated files
        const r = parse(line, firstLine + i)
        if (r === null) onSkip?.(firstLine + i)
        else if (typeof r === 'string') onError({ line: firstLine + i, message: r })
        else batch.push(r)
      }
      if (batch.length > 0) yield batch
    }
  } catch (e) {
    if (e instanceof ImportFileError) throw e
    throw new ImportFileError(path, 0, `read failed: ${(e as Error).message}`)
  } finally {
    src.close()
  }
}

/** Stream a trade file event by event. Throws ImportFileError (file name + line number) on the first malformed row. */
export async function* readTradeFile(path: string, overrides: ImportOverrides = {}): AsyncGenerator<TradeEvent> {
  for await (const batch of readTradeBatches(path, overrides)) yield* batch
}

export interface ValidationResult {
  file: string
  /** null when the file could not even be identified (see errors, line 0) */
  description: FileDescription | null
  /** valid trade rows */
  rows: number
  /** rows skipped by rule (tardis side "unknown") */
  skipped: number
  /** earliest / latest trade time, Unix ms (null without rows) */
  firstTs: number | null
  lastTs: number | null
  /** rows whose ts is earlier than the previous row's (informational; files are normally time ordered) */
  outOfOrder: number
  /** distinct exchange:coin:marketType keys the file would write */
  markets: string[]
  /** the first `maxErrors` errors; line 0 = file-level problem */
  errors: RowError[]
  /** all errors, including those not listed */
  errorCount: number
  ok: boolean
}

/**
 * Dry run over a whole file: parses every row, writes nothing, never throws for content problems.
 * The CLI runs this first and imports only files with ok === true, so nothing is left half-imported.
 */
export async function validateTradeFile(path: string, overrides: ImportOverrides = {}, opts: { maxErrors?: number } = {}): Promise<ValidationResult> {
  const maxErrors = opts.maxErrors ?? 100
  const res: ValidationResult = {
    file: path, description: null, rows: 0, skipped: 0, firstTs: null, lastTs: null, outOfOrder: 0, markets: [], errors: [], errorCount: 0, ok: false,
  }
  const addError = (e: RowError) => {
    res.errorCount++
    if (res.errors.length < maxErrors) res.errors.push(e)
  }
  const markets = new Set<string>()
  let min = Infinity
  let max = -Infinity
  let prev = -Infinity
  try {
    res.description = await describeFile(path, overrides)
    for await (const batch of readTradeBatches(path, overrides, { onError: addError, onSkip: () => res.skipped++, description: res.description })) {
      res.rows += batch.length
      let lastMarket = ''
      for (const t of batch) {
        const ts = t.ts
        if (ts < min) min = ts
        if (ts > max) max = ts
        if (ts < prev) res.outOfOrder++
        prev = ts
        if (res.description.format === 'tardis-trades') {
          const k = `${t.exchange}:${t.coin}:${t.marketType}`
          if (k !== lastMarket) markets.add((lastMarket = k))
        }
      }
    }
  } catch (e) {
    if (e instanceof ImportFileError) addError({ line: e.line, message: e.reason })
    else addError({ line: 0, message: (e as Error).message })
  }
  if (res.description && res.description.format !== 'tardis-trades' && res.rows > 0) {
    const d = res.description
    markets.add(`${d.exchange}:${d.coin}:${d.marketType}`)
  }
  res.markets = [...markets].sort()
  if (res.rows > 0) [res.firstTs, res.lastTs] = [min, max]
  res.ok = res.errorCount === 0
  return res
}
