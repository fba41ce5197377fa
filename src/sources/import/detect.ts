// Which layout a trade dump has, from its file name and first lines.
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
import { basename } from 'node:path'
import type { MarketType } from '../../domain/exchanges.js'
import { ImportFileError } from './errors.js'
import { isDigitStart } from './fields.js'
import { TARDIS_VENUES, parseBinanceFileName, parseTardisFileName, type BinanceKind } from './symbols.js'

export type TradeFormat = 'binance-aggTrades' | 'binance-trades' | 'tardis-trades'

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
