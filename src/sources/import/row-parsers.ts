// One row of a trade dump -> a TradeEvent, an error message, or null to skip it (hot path: plain split + Number).
import type { TakerSide, TradeEvent } from '../../domain/events.js'
import { type ExchangeId, hasMarket, type MarketType } from '../../domain/exchanges.js'
import type { FileDescription } from './describe.js'
import { isDigitStart, num, parseBool, splitCsvLine, toMillis } from './fields.js'
import { contractSizeFor, type ImportOverrides } from './overrides.js'
import { TARDIS_VENUES, coinFromTardisSymbol } from './symbols.js'

/** a row parser returns an event, an error message, or null to skip the row */
type RowParser = (line: string, lineNo: number) => TradeEvent | string | null

function priceSizeError(price: number, size: number, rawP: string, rawS: string): string | null {
  if (!(price > 0) || !Number.isFinite(price)) return `bad price "${rawP}"`
  if (!(size > 0) || !Number.isFinite(size)) return `bad size "${rawS}" (must be a positive number)`
  return null
}

export function binanceParser(d: FileDescription): RowParser {
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

interface TardisMapping {
  exchange: ExchangeId
  coin: string
  marketType: MarketType
  mult: number
}

export function tardisParser(_d: FileDescription, o: ImportOverrides): RowParser {
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
