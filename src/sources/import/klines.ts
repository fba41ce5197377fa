// Binance kline CSV dump (data.binance.vision .../klines/SYMBOL/1m/SYMBOL-1m-DATE.zip), also the REST /klines
// array order. Used to reconcile imported trades against Binance's own candles.
//
//   open_time,open,high,low,close,volume,close_time,quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore
//
// Futures files carry that header row (newer ones), spot files have none. open_time/close_time are ms, or µs in
// spot files from 2025 on (detected per value: >= 1e14 -> µs, floored to ms). `count` is the number of RAW trades,
// not aggTrades (an aggTrade covers last_trade_id - first_trade_id + 1 raw trades).
import type { Kline } from '../../domain/minute-bars.js'
import { ImportFileError } from './errors.js'
import { readSourceText } from './source.js'
import { toMillis } from './fields.js'

/** every field is in a Binance kline row */
type DumpKline = Required<Kline>

const num = (s: string | undefined) => (s === undefined || s.length === 0 ? NaN : Number(s))

/** Parse kline CSV text (with or without header). Throws ImportFileError(file, line) on the first malformed row. */
export function parseBinanceKlineCsv(text: string, file = '<klines>'): DumpKline[] {
  const out: DumpKline[] = []
  const lines = text.replace(/^\uFEFF/, '').split('\n')
  let seenData = false
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1
    const line = lines[i]!.replace(/\r$/, '')
    if (line.trim() === '') continue
    const f = line.split(',')
    const c = f[0]!.trim().charCodeAt(0)
    if (!(c >= 48 && c <= 57)) {
      if (!seenData && f[0]!.trim().toLowerCase() === 'open_time') {
        seenData = true
        continue
      }
      throw new ImportFileError(file, lineNo, `bad open_time "${f[0]}"`)
    }
    seenData = true
    if (f.length !== 12) throw new ImportFileError(file, lineNo, `expected 12 columns, got ${f.length}`)
    const ts = toMillis(f[0]!.trim())
    if (ts !== ts) throw new ImportFileError(file, lineNo, `bad open_time "${f[0]}"`)
    const [open, high, low, close, volume] = [num(f[1]), num(f[2]), num(f[3]), num(f[4]), num(f[5])]
    for (const [name, v, raw] of [['open', open, f[1]], ['high', high, f[2]], ['low', low, f[3]], ['close', close, f[4]]] as const) {
      if (!(v > 0) || !Number.isFinite(v)) throw new ImportFileError(file, lineNo, `bad ${name} "${raw}"`)
    }
    const quoteVolume = num(f[7])
    const trades = num(f[8])
    const buyVolume = num(f[9])
    for (const [name, v, raw] of [['volume', volume, f[5]], ['quote_volume', quoteVolume, f[7]], ['taker_buy_volume', buyVolume, f[9]]] as const) {
      if (!(v >= 0) || !Number.isFinite(v)) throw new ImportFileError(file, lineNo, `bad ${name} "${raw}"`)
    }
    if (!Number.isInteger(trades) || trades < 0) throw new ImportFileError(file, lineNo, `bad count "${f[8]}"`)
    if (high < low) throw new ImportFileError(file, lineNo, `high ${high} < low ${low}`)
    out.push({ ts, open, high, low, close, volume, buyVolume, quoteVolume, trades })
  }
  return out
}

/** Read a kline dump (.csv, .csv.gz or the archive's .zip). Kline files are small (a month of 1m = 44,640 rows). */
export async function readBinanceKlineFile(path: string): Promise<DumpKline[]> {
  let text: string
  try {
    text = await readSourceText(path)
  } catch (e) {
    if (e instanceof ImportFileError) throw e
    throw new ImportFileError(path, 0, `cannot read: ${(e as Error).message}`)
  }
  return parseBinanceKlineCsv(text, path)
}
