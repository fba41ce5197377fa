// Historical trade-dump import: file formats -> TradeEvents. See docs/import.md.
export { ImportFileError, type RowError } from './errors.js'
export { detectFormat, type DetectedFormat, type TradeFormat } from './detect.js'
export { describeFile, type FileDescription } from './describe.js'
export { toMillis } from './fields.js'
export type { ImportOverrides } from './overrides.js'
export { readTradeBatches, readTradeFile, validateTradeFile, type ReadHooks, type ValidationResult } from './trades.js'
export { parseBinanceKlineCsv, readBinanceKlineFile } from './klines.js'
export {
  OKX_SWAP_CONTRACT_SIZES,
  TARDIS_VENUES,
  USD_QUOTES,
  coinFromBinanceSymbol,
  coinFromConcatSymbol,
  coinFromTardisSymbol,
  parseBinanceFileName,
  parseTardisFileName,
} from './symbols.js'
