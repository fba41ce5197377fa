// GET /v1/markets/coins (1 credit): every supported coin and, per venue and market type the venue lists, the venue's
// own instrument name, the quote currency, the contract size, the funding interval and whether the market is live
// here. The worked example of docs/architecture.md "Adding an endpoint": this file, one line in ./index.ts and
// schema/operations/v1/coins.graphql. Field meanings: docs/contract.md#coins.
import { z } from 'zod'
import { EXCHANGES, type ExchangeId, type ExchangeInfo, type MarketType } from '../domain/exchanges.js'
import { coinParam, exchangeParam } from '../domain/params.js'
import { builder } from '../graphql/builder.js'
import { venueGaps } from '../read/coverage.js'
import { loadAll, requestLoaders } from '../read/request-loaders.js'
import { OKX_SWAP_CONTRACT_SIZES } from '../sources/import/symbols.js'
import { marketId } from '../read/live.js'
import { defineEndpoint } from './define.js'

type ListingStatus = 'listed' | 'no_data' | 'down' | 'degraded' | 'delisted'

interface CoinMarket {
  exchange: ExchangeId
  marketType: MarketType
  instrument: string
  quoteCurrency: string
  contractSize: number | null
  fundingIntervalHours: number | null
  status: ListingStatus
  note: string | null
}

interface CoinListing {
  coin: string
  markets: CoinMarket[]
  /** COINS=all: when the coin left the universe (listed on fewer than 2 venues); null while listed */
  delistedAt: number | null
}

/**
 * The venue's own symbol of the markets the connectors follow (the USDT-settled linear perp and the USDT spot pair on
 * the CEXes, the USDC perp on the DEXes), as each venue names it: Binance and Bybit BTCUSDT, OKX BTC-USDT-SWAP and
 * BTC-USDT, Hyperliquid the coin's name, dYdX BTC-USD (the recorded venue payloads in the exchange fixtures).
 */
const INSTRUMENT: Record<ExchangeId, Partial<Record<MarketType, (coin: string) => string>>> = {
  binance: { perp: (c) => `${c}USDT`, spot: (c) => `${c}USDT` },
  bybit: { perp: (c) => `${c}USDT`, spot: (c) => `${c}USDT` },
  okx: { perp: (c) => `${c}-USDT-SWAP`, spot: (c) => `${c}-USDT` },
  hyperliquid: { perp: (c) => c },
  dydx: { perp: (c) => `${c}-USD` },
}

/**
 * Coins per unit of the venue's size field. Spot and the linear perps of Binance, Bybit, Hyperliquid and dYdX are
 * sized in coins (1); OKX swaps in contracts of ctVal coins, known here for the coins in OKX_SWAP_CONTRACT_SIZES
 * only: any other is null, never a guess.
 */
function contractSize(e: ExchangeId, coin: string, mt: MarketType): { size: number | null; note: string | null } {
  if (mt === 'spot' || e !== 'okx') return { size: 1, note: null }
  const size = OKX_SWAP_CONTRACT_SIZES[coin]
  return size === undefined ? { size: null, note: `OKX's contract value (ctVal) of ${coin}-USDT-SWAP is not known to this deployment` } : { size, note: null }
}

const ListingStatusEnum = builder.enumType('ListingStatus', {
  description: 'listed: the market delivers data here; else why it does not (no_data, the venue feed down or degraded, or the coin delisted from the universe)',
  values: ['listed', 'no_data', 'down', 'degraded', 'delisted'] as const,
})

const CoinMarketRef = builder.objectRef<CoinMarket>('CoinMarket').implement({
  description: "One venue's market of a coin (docs/contract.md#coins)",
  fields: (t) => ({
    exchange: t.exposeString('exchange'),
    marketType: t.exposeString('marketType'),
    instrument: t.exposeString('instrument', { description: "the venue's own symbol, e.g. BTCUSDT, BTC-USDT-SWAP, BTC, BTC-USD" }),
    quoteCurrency: t.exposeString('quoteCurrency', { description: 'the currency prices are quoted (and perps settled) in' }),
    contractSize: t.exposeFloat('contractSize', { nullable: true, description: "coins per unit of the venue's size field (OKX swaps: ctVal); null when not known" }),
    fundingIntervalHours: t.exposeFloat('fundingIntervalHours', { nullable: true, description: "perps: hours between funding settlements, as the market's ticker states it, else the venue's default; null for spot" }),
    status: t.field({ type: ListingStatusEnum, resolve: (m) => m.status }),
    note: t.exposeString('note', { nullable: true, description: 'why a figure is null or a default, and why a market is not listed' }),
  }),
})

const CoinListingRef = builder.objectRef<CoinListing>('CoinListing').implement({
  description: 'A supported coin and its markets on each venue',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    markets: t.field({ type: [CoinMarketRef], description: 'per venue (canonical order), perp before spot', resolve: (c) => c.markets }),
    delistedAt: t.field({
      type: 'Timestamp',
      nullable: true,
      description: 'COINS=all: when the coin left the universe (a linear USDT/USDC perp on fewer than 2 venues at a daily refresh); its history stays. Null while listed (docs/connectors.md#the-universe)',
      resolve: (c) => c.delistedAt,
    }),
  }),
})

export const coins = defineEndpoint({
  path: '/v1/markets/coins',
  field: 'coins',
  operation: 'coins',
  cost: 1,
  summary: "Supported coins with each venue's instrument, quote currency, contract size, funding interval and listing status",
  description: "Every supported coin with, per venue, the venue's instrument name, quote currency, contract size, funding interval and listing status.",
  params: z.object({ coin: coinParam(false), exchange: exchangeParam() }),
  type: [CoinListingRef],
  resolve: async (v, ctx) => {
    const market = ctx.services.market
    // every known coin, delisted ones too (they say so): the listing is where a coin's state is read
    const coins = [...(v.coin ? [v.coin] : market.coins())].sort()
    // perps: the live ticker, else a stored one of the last minutes (another process ingests); spot: the live cache
    const perpTickers = await loadAll(requestLoaders(ctx).tickers, coins)
    const venues = EXCHANGES.filter((e) => !v.exchange || e.id === v.exchange)
    const row = (coin: string, i: number, e: ExchangeInfo, mt: MarketType): CoinMarket => {
      const ticker = mt === 'perp' ? perpTickers[i]!.filter((r) => r.exchange === e.id).sort((a, b) => b.ts - a.ts)[0] : market.live.tickers.get(marketId(e.id, coin, mt))
      const size = contractSize(e.id, coin, mt)
      const notes = size.note ? [size.note] : []
      let fundingIntervalHours: number | null = null
      if (mt === 'perp') {
        fundingIntervalHours = ticker?.fundingIntervalHours ?? null
        if (fundingIntervalHours === null) {
          fundingIntervalHours = e.fundingIntervalHours
          notes.push(`funding interval: ${e.name}'s default (no ticker states it)`)
        }
      }
      let status: ListingStatus = 'listed'
      const gone = market.delisting(coin)
      if (gone) {
        status = 'delisted'
        notes.push(`${coin} left the universe on ${new Date(gone.at).toISOString()}: listed on ${gone.venues.length ? gone.venues.join(', ') : 'no venue'} then, fewer than 2; its history is kept`)
      } else if (!ticker) {
        const gap = venueGaps(market, ctx.now, mt, [], () => `no ${coin} ${mt} data from ${e.name}: not followed here, or not listed by the venue`, e.id)[0]!
        status = gap.status as Exclude<ListingStatus, 'listed'>
        notes.push(gap.reason)
      }
      return {
        exchange: e.id, marketType: mt, instrument: INSTRUMENT[e.id][mt]!(coin), quoteCurrency: mt === 'perp' ? e.quote : 'USDT',
        contractSize: size.size, fundingIntervalHours, status, note: notes.length ? notes.join('; ') : null,
      }
    }
    return coins.map((coin, i) => ({ coin, markets: venues.flatMap((e) => e.marketTypes.map((mt) => row(coin, i, e, mt))), delistedAt: market.delisting(coin)?.at ?? null }))
  },
})
