// Historical trade dumps -> TradeEvents: streaming a file in batches, and the dry run that validates a whole file.
// The layouts are in detect.ts, what a file stands for in describe.ts, row parsing in row-parsers.ts.
import type { TradeEvent } from '../../domain/events.js'
import { describeFile, type FileDescription } from './describe.js'
import { ImportFileError, type RowError } from './errors.js'
import { checkOverrides, type ImportOverrides } from './overrides.js'
import { readBinanceKlineFile } from './klines.js'
import { binanceParser, tardisParser } from './row-parsers.js'
import { openSource, readLineChunks } from './source.js'

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
  if (d.format === 'binance-klines') throw new ImportFileError(path, 0, 'a kline file holds no trades (importFile stores it as the venue\'s klines)')
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
  /** valid trade rows (a kline file: klines) */
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
    // a kline dump is read whole (a month of 1m is 44,640 rows); the first malformed row stops it
    const batches = res.description.format === 'binance-klines' ? [await readBinanceKlineFile(path)] : readTradeBatches(path, overrides, { onError: addError, onSkip: () => res.skipped++, description: res.description })
    for await (const batch of batches) {
      res.rows += batch.length
      let lastMarket = ''
      for (const t of batch) {
        const ts = t.ts
        if (ts < min) min = ts
        if (ts > max) max = ts
        if (ts < prev) res.outOfOrder++
        prev = ts
        if (res.description.format === 'tardis-trades' && 'coin' in t) {
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
