// Historical trade-dump import: file formats -> TradeEvents. See src/market/import/README.md.
export { ImportFileError, type RowError } from './errors.js'
export {
  detectFormat,
  describeFile,
  readTradeBatches,
  readTradeFile,
  validateTradeFile,
  toMillis,
  type DetectedFormat,
  type FileDescription,
  type ImportOverrides,
  type ReadHooks,
  type TradeFormat,
  type ValidationResult,
} from './trades.js'
export { parseBinanceKlineCsv, readBinanceKlineFile, type Kline } from './klines.js'
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
