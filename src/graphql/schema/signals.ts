// /v1/signals/divergence and /v1/signals/snapshot (cascade and volume profile are in profile.ts).
import { divergenceLookbackMinutes, type CoinDivergence, type DivergenceLeg, type DivergenceSignal } from '../../analytics/divergence.js'
import type { Coverage } from '../../analytics/coverage.js'
import { HOUR_MS, MINUTE_MS, floorTo } from '../../domain/time.js'
import type { ExchangeId } from '../../domain/exchanges.js'
import type { RequestContext } from '../context.js'
import { CoverageRef, coverageOf, rangesOf } from './common.js'
import type { ArbitrageOpportunity, SnapshotCoin, SnapshotDivergence } from '../../analytics/snapshot.js'
import { REGIMES, type Regime } from '../../analytics/regime.js'
import { coinsOf, parseRouteArgs, routeArgs } from '../args.js'
import { builder } from '../builder.js'
import { coinDivergence } from '../signal-inputs.js'
import { getSnapshot, type SnapshotResult } from '../snapshot.js'

const LegRef = builder.objectRef<DivergenceLeg>('DivergenceLeg').implement({
  fields: (t) => ({
    series: t.exposeString('series'),
    change: t.exposeFloat('change', { nullable: true, description: 'log change (price, OI), difference (funding) or net taker flow (CVD) over the window' }),
    z: t.exposeFloat('z', { nullable: true, description: 'the change standardized against the series\' own history of window changes' }),
    exchanges: t.stringList({ description: 'venues whose data entered the current window\'s change (OI and funding: measured over the same venues at both ends of each step)', resolve: (l) => l.exchanges }),
  }),
})

const SignalRef = builder.objectRef<DivergenceSignal>('DivergenceSignal').implement({
  fields: (t) => ({
    pair: t.exposeString('pair', { description: 'oi_price, cvd_price, funding_price or spot_perp_cvd' }),
    timeframe: t.exposeString('timeframe', { description: '1h or 4h' }),
    direction: t.exposeString('direction', { description: 'bullish, bearish or none' }),
    zScore: t.exposeFloat('zScore', { nullable: true, description: 'z of the quadrant statistic (divergence) against its own history' }),
    active: t.exposeBoolean('active', { description: '|z_score| >= 2 and a direction' }),
    divergence: t.exposeFloat('divergence', { nullable: true, description: 'z_a + z_b when both legs move the same way, else z_a - z_b' }),
    statistic: t.exposeString('statistic', { nullable: true, description: 'sum or difference: which combination divergence is' }),
    legs: t.field({ type: [LegRef], resolve: (s) => s.legs }),
    points: t.exposeInt('points', { description: 'history windows behind the z-score' }),
    note: t.exposeString('reason', { nullable: true }),
  }),
})

const CoinDivergenceRef = builder.objectRef<CoinDivergence & { coverage: Coverage }>('CoinDivergence').implement({
  description: '4 divergence pairs on 2 timeframes for one coin (docs/methodology.md#divergence)',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    asOf: t.field({ type: 'Timestamp', nullable: true, resolve: (d) => d.asOf }),
    pairs: t.field({ type: [SignalRef], resolve: (d) => d.pairs }),
    active: t.field({ type: [SignalRef], description: 'the active ones', resolve: (d) => d.pairs.filter((p) => p.active) }),
    coverage: t.field({ type: CoverageRef, description: 'venues in any leg of the current windows; the window is the history the 4h z-scores need', resolve: (d) => d.coverage }),
  }),
})

builder.queryField('divergence', (t) =>
  t.field({
    type: [CoinDivergenceRef],
    description: 'OI/price, CVD/price, funding/price and spot/perp CVD divergences on 1h and 4h. Costs 5 credits (GET /v1/signals/divergence).',
    args: routeArgs(t.arg, 'divergence'),
    resolve: (_r, args, ctx) =>
      coinsOf(parseRouteArgs('divergence', args, ctx), ctx).map((coin) => {
        const d = coinDivergence(ctx.services.market, coin, ctx.now)
        return { ...d, coverage: divergenceCoverage(ctx, coin, d) }
      }),
  }),
)

const ComponentsRef = builder.objectRef<SnapshotCoin['components']>('ScoreComponents').implement({
  description: 'each component\'s contribution in score points (they sum to the score)',
  fields: (t) => ({
    funding: t.exposeFloat('funding'),
    spread: t.exposeFloat('spread'),
    oi: t.exposeFloat('oi'),
    divergence: t.exposeFloat('divergence'),
    momentum: t.exposeFloat('momentum'),
  }),
})

const SnapshotCoinRef = builder.objectRef<SnapshotCoin>('SnapshotCoin').implement({
  fields: (t) => ({
    rank: t.exposeInt('rank'),
    coin: t.exposeString('coin'),
    score: t.exposeFloat('score', { description: '0..100 composite (docs/methodology.md#snapshot)' }),
    price: t.exposeFloat('price', { nullable: true }),
    regime: t.exposeString('regime', { nullable: true }),
    regimeExchanges: t.stringList({ description: 'venues whose closes or open interest entered the regime\'s window', resolve: (c) => c.regimeExchanges }),
    fundingZ: t.exposeFloat('fundingZ', { nullable: true }),
    spreadZ: t.exposeFloat('spreadZ', { nullable: true }),
    oiChange24hPct: t.exposeFloat('oiChange24hPct', { nullable: true }),
    priceChange24hPct: t.exposeFloat('priceChange24hPct', { nullable: true }),
    activeDivergences: t.exposeInt('activeDivergences'),
    components: t.field({ type: ComponentsRef, resolve: (c) => c.components }),
  }),
})

const SnapshotDivergenceRef = builder.objectRef<SnapshotDivergence>('SnapshotDivergence').implement({
  fields: (t) => ({
    coin: t.exposeString('coin'),
    pair: t.exposeString('pair'),
    timeframe: t.exposeString('timeframe'),
    direction: t.exposeString('direction'),
    zScore: t.exposeFloat('zScore'),
  }),
})

const ArbitrageRef = builder.objectRef<ArbitrageOpportunity>('Arbitrage').implement({
  fields: (t) => ({
    type: t.exposeString('type', { description: 'price (buy on one venue, sell on another) or funding (long the low-funding venue, short the high)' }),
    coin: t.exposeString('coin'),
    longExchange: t.exposeString('longExchange'),
    shortExchange: t.exposeString('shortExchange'),
    grossBps: t.exposeFloat('grossBps'),
    feesBps: t.exposeFloat('feesBps', { description: 'typical taker fees of both venues' }),
    netBps: t.exposeFloat('netBps'),
    holdingHours: t.exposeFloat('holdingHours', { nullable: true }),
  }),
})

const RegimeDistributionRef = builder.objectRef<Record<Regime, number>>('RegimeDistribution').implement({
  description: 'how many coins are in each regime',
  fields: (t) => Object.fromEntries(REGIMES.map((r) => [r.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()), t.int({ resolve: (d) => d[r] })])) as never,
})

const SnapshotRef = builder.objectRef<SnapshotResult>('Snapshot').implement({
  description: 'All coins ranked, active divergences, regime distribution and top arbitrage (docs/methodology.md#snapshot)',
  fields: (t) => ({
    computedAt: t.field({ type: 'Timestamp', description: 'when this snapshot was computed (it is refreshed when the data is)', resolve: (s) => s.computedAt }),
    asOf: t.field({ type: 'Timestamp', resolve: (s) => s.asOf }),
    coins: t.field({ type: [SnapshotCoinRef], description: 'every coin, best score first', resolve: (s) => s.coins }),
    divergences: t.field({ type: [SnapshotDivergenceRef], description: 'active divergences only', resolve: (s) => s.divergences }),
    regimeDistribution: t.field({ type: RegimeDistributionRef, resolve: (s) => s.regimeDistribution }),
    topArbitrage: t.field({ type: [ArbitrageRef], description: 'net of typical taker fees, best first', resolve: (s) => s.topArbitrage }),
    coverage: t.field({ type: CoverageRef, description: 'venues with a fresh ticker for some coin; the window is the history the 4h divergence z-scores read', resolve: (s) => s.coverage }),
  }),
})

builder.queryField('snapshot', (t) =>
  t.field({
    type: SnapshotRef,
    description: 'Full market snapshot. Costs 10 credits (GET /v1/signals/snapshot).',
    args: routeArgs(t.arg, 'snapshot'),
    resolve: (_r, args, ctx) => {
      parseRouteArgs('snapshot', args, ctx)
      return getSnapshot(ctx.services)
    },
  }),
)

/** the venues of any leg, against the history the 4h z-scores read (each venue's span from its hourly perp closes) */
function divergenceCoverage(ctx: RequestContext, coin: string, d: CoinDivergence): Coverage {
  const used = new Set<ExchangeId>(d.pairs.flatMap((p) => p.legs.flatMap((l) => l.exchanges as ExchangeId[])))
  const from = floorTo(ctx.now, MINUTE_MS) - divergenceLookbackMinutes('4h') * MINUTE_MS
  const closes = ctx.services.market.series.hours.perpCloses(coin, from, ctx.now).filter((c) => used.has(c.exchange))
  const ranges = rangesOf(closes.map((c) => ({ exchange: c.exchange, ts: floorTo(c.ts, HOUR_MS) })), HOUR_MS)
  return coverageOf(ctx, { used, noData: () => `no ${coin} perp data`, requested: { from, to: ctx.now }, ranges, toleranceMs: HOUR_MS })
}
