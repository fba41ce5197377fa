// Import of historical trade files through the normal aggregation path (and of Binance 1-minute kline dumps, stored
// as the venue's klines: never over a minute folded from trades, docs/data.md#provenance). Every file is validated first
// (nothing is written when any row of any file is malformed); then each file's 1-minute bars, with their
// hourly rollups and the coin's registration, are written in ONE transaction, so a failure leaves nothing
// half-imported. A re-import replaces the same minutes with the same values (idempotent).
import type { Database } from '../../store/database.js'
import { MinuteAggregator } from '../../ingest/aggregate/index.js'
import { klineMinuteBar, type MinuteBar } from '../../domain/minute-bars.js'
import type { MarketState } from '../../read/state.js'
import { writeMinuteBars } from '../../store/market/candles.js'
import type { ImportOverrides } from './overrides.js'
import { describeFile } from './describe.js'
import { readBinanceKlineFile } from './klines.js'
import { readTradeBatches, validateTradeFile, type ValidationResult } from './trades.js'

export interface FileImport {
  file: string
  markets: string[]
  trades: number
  /** a kline file: its klines (trades is 0) */
  klines: number
  /** the 1-minute bars the store now holds from this file (a kline does not replace a minute folded from trades) */
  bars: number
  firstTs: number | null
  lastTs: number | null
  /** trades the aggregator dropped as duplicates (same trade id) */
  duplicates: number
}

export class ImportValidationError extends Error {
  constructor(readonly results: ValidationResult[]) {
    const bad = results.filter((r) => !r.ok)
    super(
      bad
        .map((r) => [`${r.file}: ${r.errorCount} problem(s)`, ...r.errors.map((e) => `  ${r.file}:${e.line}: ${e.message}`)].join('\n'))
        .join('\n') + '\nNothing was imported.',
    )
  }
}

export async function validateFiles(files: readonly string[], overrides: ImportOverrides): Promise<ValidationResult[]> {
  const results: ValidationResult[] = []
  for (const f of files) results.push(await validateTradeFile(f, overrides, { maxErrors: 20 }))
  if (results.some((r) => !r.ok)) throw new ImportValidationError(results)
  return results
}

export async function importFile(db: Database, market: MarketState, file: string, overrides: ImportOverrides, onBatch?: (trades: number) => void): Promise<FileImport> {
  const d = await describeFile(file, overrides)
  // grace is irrelevant here: everything is drained at the end; late trades within a file still fold correctly
  const agg = new MinuteAggregator({ graceMs: 60 * 60_000 })
  let trades = 0
  let klines = 0
  const bars: MinuteBar[] = []
  if (d.format === 'binance-klines') {
    // the venue's own candles: 'venue_kline' minutes, one per minute (the last of a repeated one)
    const byMinute = new Map((await readBinanceKlineFile(file)).map((k) => [k.ts, klineMinuteBar(d, k)]))
    klines = byMinute.size
    bars.push(...byMinute.values())
  } else {
    for await (const batch of readTradeBatches(file, overrides, { description: d })) {
      for (const t of batch) agg.add(t)
      trades += batch.length
      bars.push(...agg.drainClosed())
      onBatch?.(trades)
    }
    bars.push(...agg.drainAll())
  }
  const coins = [...new Set(bars.map((b) => b.coin))]
  const written = await db.sql.transaction(async (tx) => {
    if (coins.length) await tx.query(`INSERT INTO coin (symbol, source) SELECT unnest($1::text[]), 'import' ON CONFLICT (symbol) DO NOTHING`, [coins])
    return writeMinuteBars(tx, bars)
  })
  // this process's in-memory mirror of the store (another running service sees imported hours after a restart)
  market.series.apply(written, market.clock())
  market.reader.bump('candles')
  await market.refreshCoins()
  let firstTs: number | null = null
  let lastTs: number | null = null
  for (const b of bars) {
    if (firstTs === null || b.ts < firstTs) firstTs = b.ts
    if (lastTs === null || b.ts > lastTs) lastTs = b.ts
  }
  return {
    file,
    markets: [...new Set(bars.map((b) => `${b.exchange}:${b.coin}:${b.marketType}`))],
    trades,
    klines,
    bars: written.minuteBars.length,
    firstTs,
    lastTs,
    duplicates: agg.stats.duplicates,
  }
}
