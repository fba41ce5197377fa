// /v1/structure/spread (volume profile lives in signals.ts with the other signature models).
import { SPREAD_MAX_PRICE_AGE_MS, SPREAD_Z_WINDOW, type CoinSpread, type ExchangePrice } from '../../analytics/spread.js'
import { PRICE_OUTLIER_MAX_DEVIATION } from '../../analytics/price-outliers.js'
import type { ExchangeNote } from '../../read/coverage.js'
import { builder } from '../builder.js'
import type { Coverage } from '../../analytics/coverage.js'
import { CoverageRef, ExchangeNoteRef } from './common.js'

const ExchangePriceRef = builder.objectRef<ExchangePrice>('ExchangePrice').implement({
  fields: (t) => ({
    exchange: t.exposeString('exchange'),
    price: t.exposeFloat('price', { nullable: true, description: `the venue's tradable price (priceSource); null when older than ${SPREAD_MAX_PRICE_AGE_MS / 60_000} minutes by its own timestamp` }),
    quote: t.exposeString('quote', { description: 'currency of the price: USDT (CEX perps) or USDC (Hyperliquid, dYdX)' }),
    ts: t.field({ type: 'Timestamp', nullable: true, description: 'the venue\'s time for the price (the receive time for Hyperliquid\'s mark, whose payload carries none; the minute of the trade for a last trade)', resolve: (p) => p.ts }),
    priceSource: t.exposeString('priceSource', { nullable: true, description: 'mark, or last_trade for a venue without a mark of its own (dYdX: its only other price is its oracle, which nobody trades at)' }),
    outlier: t.exposeBoolean('outlier', { description: `set aside: further than ${PRICE_OUTLIER_MAX_DEVIATION * 100} % from the median of the venues' prices (docs/methodology.md#price-outliers)` }),
    outlierReason: t.exposeString('outlierReason', { nullable: true }),
  }),
})

export type SpreadOut = CoinSpread & { missing: ExchangeNote[]; coverage: Coverage }

export const SpreadRef = builder.objectRef<SpreadOut>('CoinSpread').implement({
  description: 'Cross-exchange perp price spread of one coin (docs/methodology.md#spread)',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    ts: t.field({ type: 'Timestamp', resolve: (s) => s.ts }),
    prices: t.field({ type: [ExchangePriceRef], description: 'each exchange with data for the coin', resolve: (s) => s.prices.filter((p) => p.ts !== null) }),
    spreadBps: t.exposeFloat('spreadBps', { nullable: true, description: '(max - min) / ((max + min) / 2) × 10 000 over the prices that are not outliers' }),
    cheapest: t.exposeString('cheapest', { nullable: true }),
    dearest: t.exposeString('dearest', { nullable: true }),
    quotes: t.stringList({ description: 'quote currencies of the prices in the spread', resolve: (s) => s.quotes }),
    mixedQuotes: t.exposeBoolean('mixedQuotes', { description: 'true when the spread compares USDT and USDC prices: part of it is the USDT/USDC rate (not converted)' }),
    quoteNote: t.string({ nullable: true, resolve: (s) => (s.mixedQuotes ? `compares ${s.quotes.join(' and ')} prices: part of the spread is the ${s.quotes.join('/')} exchange rate, not converted` : null) }),
    zScore: t.float({ nullable: true, description: `z-score of the spread against its 1-minute price history of the last 24 h (at least ${SPREAD_Z_WINDOW.minPoints} points)`, resolve: (s) => s.zScore.value }),
    historyPoints: t.int({ resolve: (s) => s.zScore.points }),
    note: t.string({ nullable: true, description: 'why spreadBps or zScore is null', resolve: (s) => s.reason ?? s.zScore.reason }),
    missing: t.field({ type: [ExchangeNoteRef], resolve: (s) => s.missing }),
    coverage: t.field({ type: CoverageRef, description: 'venues with a fresh price in the spread (an outlier is named with status outlier); the window is the z-score\'s 24 h of per-minute prices', resolve: (s) => s.coverage }),
    outliers: t.stringList({ description: 'venues whose price was set aside as an outlier, not in the spread', resolve: (s) => s.outliers }),
  }),
})

