// What a trade file is and which market its trades belong to: format, exchange, coin, market type, contract size.
import { basename } from 'node:path'
import { type ExchangeId, hasMarket, type MarketType } from '../../domain/exchanges.js'
import { detectFormat, type DetectedFormat, type TradeFormat } from './detect.js'
import { ImportFileError } from './errors.js'
import { splitCsvLine } from './fields.js'
import { checkOverrides, contractSizeFor, type ImportOverrides } from './overrides.js'
import { peekLines } from './source.js'
import { TARDIS_VENUES, binancePathHint, coinFromBinanceSymbol, coinFromTardisSymbol, parseBinanceFileName, parseTardisFileName } from './symbols.js'

export interface FileDescription {
  path: string
  /** a trade file, or a Binance 1-minute kline dump (stored as the venue's klines: docs/data.md#provenance) */
  format: TradeFormat | 'binance-klines'
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

function checkMarket(path: string, exchange: ExchangeId, marketType: MarketType) {
  if (!hasMarket(exchange, marketType)) fail(path, 0, `${exchange} has no ${marketType} market`)
}

function describeFrom(path: string, det: DetectedFormat, peek: { line: number; text: string }[], entryName: string | null, o: ImportOverrides): FileDescription {
  const header = det.hasHeader ? (peek[0]?.text ?? null) : null
  if (det.format === 'binance-klines') {
    // stored minute by minute: only 1-minute klines, as the file name says (the rows do not)
    const n = parseBinanceFileName(basename(path)) ?? (entryName ? parseBinanceFileName(entryName) : null)
    if (n?.kind !== 'klines') return fail(path, 0, 'cannot tell the kline interval: the file name is not SYMBOL-1m-DATE (only 1-minute klines are imported)')
    if (n.interval !== '1m') return fail(path, 0, `only 1-minute klines are imported; the file name says ${n.interval}`)
  }
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
    if (!nameInfo) return fail(path, 0, 'cannot infer the coin: file name is not SYMBOL-aggTrades|trades|1m-DATE; pass --coin')
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
