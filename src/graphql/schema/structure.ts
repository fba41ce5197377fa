// /v1/structure/spread (volume profile lives in signals.ts with the other signature models).
import { buildSpread, SPREAD_MAX_PRICE_AGE_MS, SPREAD_Z_WINDOW, type CoinSpread, type ExchangePrice } from '../../analytics/spread.js'
import { coinsOf, parseRouteArgs, routeArgs } from '../args.js'
import { builder } from '../builder.js'
import { currentMarks, loadAll, markRows } from '../market-data.js'
import type { Coverage, CoverageGap } from '../../analytics/coverage.js'
import { MINUTE_MS } from '../../domain/time.js'
import { CoverageRef, coverageOf, ExchangeNoteRef, missingExchanges, rangesOf, type ExchangeNote } from './common.js'

const ExchangePriceRef = builder.objectRef<ExchangePrice>('ExchangePrice').implement({
  fields: (t) => ({
    exchange: t.exposeString('exchange'),
    price: t.exposeFloat('price', { nullable: true, description: `mark price; null when older than ${SPREAD_MAX_PRICE_AGE_MS / 60_000} minutes by its own timestamp` }),
    quote: t.exposeString('quote', { description: 'currency of the price: USDT (CEX perps) or USDC (Hyperliquid, dYdX)' }),
    ts: t.field({ type: 'Timestamp', nullable: true, description: 'the venue\'s time for the mark (the receive time for Hyperliquid and dYdX, whose payloads carry none)', resolve: (p) => p.ts }),
  }),
})

type SpreadOut = CoinSpread & { missing: ExchangeNote[]; coverage: Coverage }

const SpreadRef = builder.objectRef<SpreadOut>('CoinSpread').implement({
  description: 'Cross-exchange perp price spread of one coin (docs/methodology.md#spread)',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    ts: t.field({ type: 'Timestamp', resolve: (s) => s.ts }),
    prices: t.field({ type: [ExchangePriceRef], description: 'each exchange with data for the coin', resolve: (s) => s.prices.filter((p) => p.ts !== null) }),
    spreadBps: t.exposeFloat('spreadBps', { nullable: true, description: '(max - min) / ((max + min) / 2) × 10 000' }),
    cheapest: t.exposeString('cheapest', { nullable: true }),
    dearest: t.exposeString('dearest', { nullable: true }),
    quotes: t.stringList({ description: 'quote currencies of the prices in the spread', resolve: (s) => s.quotes }),
    mixedQuotes: t.exposeBoolean('mixedQuotes', { description: 'true when the spread compares USDT and USDC prices: part of it is the USDT/USDC rate (not converted)' }),
    quoteNote: t.string({ nullable: true, resolve: (s) => (s.mixedQuotes ? `compares ${s.quotes.join(' and ')} prices: part of the spread is the ${s.quotes.join('/')} exchange rate, not converted` : null) }),
    zScore: t.float({ nullable: true, description: `z-score of the spread against its 1-minute mark-price history of the last 24 h (at least ${SPREAD_Z_WINDOW.minPoints} points)`, resolve: (s) => s.zScore.value }),
    historyPoints: t.int({ resolve: (s) => s.zScore.points }),
    note: t.string({ nullable: true, description: 'why spreadBps or zScore is null', resolve: (s) => s.reason ?? s.zScore.reason }),
    missing: t.field({ type: [ExchangeNoteRef], resolve: (s) => s.missing }),
    coverage: t.field({ type: CoverageRef, description: 'venues with a fresh mark in the spread; the window is the z-score\'s 24 h of per-minute marks', resolve: (s) => s.coverage }),
  }),
})

builder.queryField('spread', (t) =>
  t.field({
    type: [SpreadRef],
    description: 'Cross-exchange price spread in bps with the cheapest and dearest venue and a z-score. Costs 3 credits (GET /v1/structure/spread).',
    args: routeArgs(t.arg, 'spread'),
    resolve: async (_r, args, ctx) => {
      const coins = coinsOf(parseRouteArgs('spread', args, ctx), ctx)
      const samples = await loadAll(ctx.loaders.oiSamples, coins)
      return coins.map((coin, i) => {
        const s = buildSpread({ coin, current: currentMarks(ctx.services.market, coin, samples[i]!), history: markRows(samples[i]!), now: ctx.now })
        const missing = missingExchanges('perp', s.prices.filter((p) => p.ts !== null).map((p) => p.exchange), () => `no ${coin} perp data`)
        const stale = `latest mark older than ${SPREAD_MAX_PRICE_AGE_MS / 60_000} minutes by its own timestamp (stale feed)`
        for (const p of s.prices) if (p.ts !== null && p.price === null) missing.push({ exchange: p.exchange, reason: stale })
        const used = s.prices.filter((p) => p.price !== null).map((p) => p.exchange)
        const gaps: CoverageGap[] = s.prices.filter((p) => p.ts !== null && p.price === null).map((p) => ({ exchange: p.exchange, status: 'stale', reason: stale }))
        const history = markRows(samples[i]!).filter((r) => r.price !== null && r.ts <= ctx.now && used.includes(r.exchange))
        const coverage = coverageOf(ctx, {
          used, gaps, noData: () => `no ${coin} perp mark`,
          requested: { from: ctx.now - SPREAD_Z_WINDOW.lookbackMs, to: ctx.now },
          ranges: rangesOf(history, MINUTE_MS),
          toleranceMs: SPREAD_MAX_PRICE_AGE_MS,
        })
        return { ...s, missing, coverage }
      })
    },
  }),
)
