// GET /v1/funding/arbitrage (5 credits): every coin × pair of venues with a current funding rate: the long leg (lower
// 8 h rate) and the short leg, the funding differential per 8 h and per year, the price spread between the legs, the
// net APR after each venue's base-tier taker fees (open and close both legs over `holding_hours`), the legs' next
// funding times; best net APR first.
import { z } from 'zod'
import type { CoverageGap } from '../analytics/coverage.js'
import { FUNDING_MAX_SAMPLE_AGE_MS } from '../analytics/funding.js'
import { coinArbitrage, rankArbitrage, type ArbitrageLeg, type ArbitrageVenue, type FundingArbitrage } from '../analytics/funding-arbitrage.js'
import { coinParam, intParam } from '../domain/params.js'
import { EXCHANGES, exchangeById, type ExchangeInfo } from '../domain/exchanges.js'
import { MINUTE_MS } from '../domain/time.js'
import { CoverageRef } from '../graphql/schema/common.js'
import { builder } from '../graphql/builder.js'
import { coverageOf } from '../read/coverage.js'
import { loadAll, requestLoaders } from '../read/request-loaders.js'
import { lastTradeRows, noMarkTradeBars } from '../read/market-data.js'
import { tradablePriceSource } from '../domain/venue-prices.js'
import { FundingKindEnum } from '../graphql/schema/common.js'
import type { Coverage } from '../analytics/coverage.js'
import { coinsOf, defineEndpoint } from './define.js'

/** the default holding period over which the round-trip fees are spread (the snapshot's funding arbitrage holds 24 h too) */
const DEFAULT_HOLDING_HOURS = 24
const takerFee = (e: ExchangeInfo['id']) => exchangeById.get(e)!.takerFee

interface VenueNote {
  coin: string
  exchange: string
  reason: string
}

interface Payload {
  asOf: number
  holdingHours: number
  fees: readonly ExchangeInfo[]
  opportunities: FundingArbitrage[]
  missing: VenueNote[]
  coverage: Coverage
}

const LegRef = builder.objectRef<ArbitrageLeg>('ArbitrageLeg').implement({
  fields: (t) => ({
    exchange: t.exposeString('exchange'),
    rate: t.exposeFloat('rate', { description: 'the venue\'s current (predicted) funding rate per intervalHours' }),
    intervalHours: t.exposeFloat('intervalHours'),
    rate8h: t.exposeFloat('rate8h', { description: 'rate × 8 / intervalHours' }),
    price: t.exposeFloat('price', { nullable: true, description: 'the venue\'s tradable price: its mark, or its last trade where it has no mark of its own (priceSource)' }),
    nextFundingTime: t.field({ type: 'Timestamp', nullable: true, resolve: (l) => l.nextFundingTime }),
    takerFee: t.exposeFloat('takerFee', { description: 'base-tier taker fee, fraction (fees table)' }),
    quote: t.exposeString('quote', { description: 'currency of the price and notional: USDT (CEX perps) or USDC (Hyperliquid, dYdX)' }),
    priceSource: t.exposeString('priceSource', { nullable: true, description: 'mark, or last_trade (dYdX: no mark apart from its oracle); null without a price' }),
    fundingKind: t.field({ type: FundingKindEnum, description: 'predicted: the rate the next settlement will use, as it stands now', resolve: (l) => l.fundingKind }),
    priceOutlier: t.exposeBoolean('priceOutlier', { description: 'the price is more than 5 % from the median of the coin\'s venues: left out of priceSpreadBps' }),
  }),
})

const OpportunityRef = builder.objectRef<FundingArbitrage>('FundingArbitrage').implement({
  description: 'Long the lower-funding venue, short the higher (docs/methodology.md#funding-arbitrage)',
  fields: (t) => ({
    rank: t.exposeInt('rank'),
    coin: t.exposeString('coin'),
    long: t.field({ type: LegRef, resolve: (o) => o.long }),
    short: t.field({ type: LegRef, resolve: (o) => o.short }),
    differential8h: t.exposeFloat('differential8h', { description: 'short rate8h − long rate8h' }),
    differentialApr: t.exposeFloat('differentialApr', { description: 'differential8h × 3 × 365 (simple)' }),
    priceSpreadBps: t.exposeFloat('priceSpreadBps', { nullable: true, description: '(short price − long price) / mid × 1e4' }),
    feesRoundTrip: t.exposeFloat('feesRoundTrip', { description: '2 × (long taker fee + short taker fee)' }),
    feesApr: t.exposeFloat('feesApr', { description: 'feesRoundTrip × 8760 / holdingHours' }),
    netApr: t.exposeFloat('netApr', { description: 'differentialApr − feesApr' }),
    priceSpreadNote: t.exposeString('priceSpreadNote', { nullable: true, description: 'why priceSpreadBps is null' }),
    quotes: t.stringList({ description: 'quote currencies of the two legs, distinct', resolve: (o) => o.quotes }),
    mixedQuotes: t.exposeBoolean('mixedQuotes', { description: 'the legs are in USDT and USDC: part of priceSpreadBps is the USDT/USDC rate (not converted)' }),
  }),
})

const FeeRef = builder.objectRef<ExchangeInfo>('VenueFee').implement({
  description: 'A venue\'s base-tier perp taker fee and the public page it is read from',
  fields: (t) => ({ exchange: t.exposeString('id'), takerFee: t.exposeFloat('takerFee'), source: t.exposeString('takerFeeSource') }),
})

const VenueNoteRef = builder.objectRef<VenueNote>('CoinVenueNote').implement({
  fields: (t) => ({ coin: t.exposeString('coin'), exchange: t.exposeString('exchange'), reason: t.exposeString('reason') }),
})

const ArbitrageRef = builder.objectRef<Payload>('FundingArbitrageResult').implement({
  fields: (t) => ({
    asOf: t.field({ type: 'Timestamp', resolve: (p) => p.asOf }),
    holdingHours: t.exposeInt('holdingHours'),
    fees: t.field({ type: [FeeRef], resolve: (p) => p.fees }),
    opportunities: t.field({ type: [OpportunityRef], description: 'best net APR first', resolve: (p) => p.opportunities }),
    missing: t.field({ type: [VenueNoteRef], description: 'coin and venue pairs without a current rate, and why', resolve: (p) => p.missing }),
    coverage: t.field({ type: CoverageRef, description: 'venues with a current funding rate for some coin', resolve: (p) => p.coverage }),
  }),
})

export const fundingArbitrage = defineEndpoint({
  path: '/v1/funding/arbitrage',
  field: 'fundingArbitrage',
  operation: 'funding-arbitrage',
  cost: 5,
  summary: 'Funding arbitrage: every coin × venue pair, differential per 8 h and APR, price spread, net APR after taker fees; ranked',
  description: 'Every coin and pair of venues: long the lower funding, short the higher; differential (8h, APR), price spread, net APR after base-tier taker fees, next funding times; ranked.',
  params: z.object({
    coin: coinParam(false),
    holding_hours: intParam({ min: 1, max: 8760, default: DEFAULT_HOLDING_HOURS, description: 'hours the pair is held: the round-trip taker fees are spread over them' }),
  }),
  type: ArbitrageRef,
  resolve: async (v, ctx) => {
    const coins = coinsOf(v, ctx)
    const market = ctx.services.market
    const [tickers, bars] = await Promise.all([
      loadAll(requestLoaders(ctx).tickers, coins),
      // a venue without a mark of its own is priced by its last trade of the rate's age limit
      Promise.all(coins.map((coin) => noMarkTradeBars(market, coin, ctx.now - FUNDING_MAX_SAMPLE_AGE_MS, ctx.now + 1))),
    ])
    const rows: Omit<FundingArbitrage, 'rank'>[] = []
    const missing: VenueNote[] = []
    const used = new Set<ExchangeInfo['id']>()
    const gaps = new Map<string, CoverageGap>()
    coins.forEach((coin, i) => {
      const venues: ArbitrageVenue[] = []
      for (const e of EXCHANGES) {
        const tk = tickers[i]!.filter((x) => x.exchange === e.id && x.ts <= ctx.now).sort((a, b) => a.ts - b.ts).at(-1)
        const stale = !!tk && ctx.now - tk.ts > FUNDING_MAX_SAMPLE_AGE_MS
        const reason = !tk ? `no ${coin} perp ticker` : stale ? `latest ${coin} funding rate older than ${FUNDING_MAX_SAMPLE_AGE_MS / MINUTE_MS} minutes (stale feed)` : tk.fundingRate === null || !(tk.fundingIntervalHours! > 0) ? `no ${coin} funding rate` : null
        if (reason || !tk) {
          missing.push({ coin, exchange: e.id, reason: reason! })
          // a current ticker without a rate is no data, not a stale feed
          if (tk && !gaps.has(e.id)) gaps.set(e.id, { exchange: e.id, status: stale ? 'stale' : 'no_data', reason: reason! })
          continue
        }
        used.add(e.id)
        const source = tradablePriceSource(e.id)
        const price = source === 'mark' ? tk.markPrice : (lastTradeRows(bars[i]!).filter((r) => r.exchange === e.id && r.ts <= ctx.now).at(-1)?.price ?? null)
        venues.push({ exchange: e.id, rate: tk.fundingRate!, intervalHours: tk.fundingIntervalHours!, price, priceSource: source, nextFundingTime: tk.nextFundingTime, ts: tk.ts })
      }
      rows.push(...coinArbitrage(coin, venues, takerFee, v.holding_hours))
    })
    const coverage = coverageOf(ctx, { used, gaps: [...gaps.values()].filter((g) => !used.has(g.exchange)), noData: () => 'no current funding rate for any coin' })
    return { asOf: ctx.now, holdingHours: v.holding_hours, fees: EXCHANGES, opportunities: rankArbitrage(rows), missing, coverage }
  },
})
