// Historical trade-dump import: file formats -> TradeEvents. See docs/import.md.
export { ImportFileError } from './errors.js'
export { describeFile } from './describe.js'
export type { ImportOverrides } from './overrides.js'
export { readTradeBatches, readTradeFile, validateTradeFile } from './trades.js'
export { parseBinanceKlineCsv, readBinanceKlineFile } from './klines.js'
export {
  OKX_SWAP_CONTRACT_SIZES,
  coinFromBinanceSymbol,
  coinFromConcatSymbol,
  coinFromTardisSymbol,
  parseBinanceFileName,
  parseTardisFileName,
} from './symbols.js'
