// /v1/signals/divergence and /v1/signals/snapshot (cascade and volume profile are in profile.ts).
import type { CoinDivergence, DivergenceLeg, DivergenceSignal } from '../../analytics/divergence.js'
import type { Coverage } from '../../analytics/coverage.js'
import { CoverageRef } from './common.js'
import type { ArbitrageOpportunity, Snapshot, SnapshotCoin, SnapshotDivergence } from '../../analytics/snapshot.js'
import { REGIMES, type Regime } from '../../analytics/regime.js'
import { builder } from '../builder.js'

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

export const CoinDivergenceRef = builder.objectRef<CoinDivergence & { coverage: Coverage }>('CoinDivergence').implement({
  description: '4 divergence pairs on 2 timeframes for one coin (docs/methodology.md#divergence)',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    asOf: t.field({ type: 'Timestamp', nullable: true, resolve: (d) => d.asOf }),
    pairs: t.field({ type: [SignalRef], resolve: (d) => d.pairs }),
    active: t.field({ type: [SignalRef], description: 'the active ones', resolve: (d) => d.pairs.filter((p) => p.active) }),
    coverage: t.field({ type: CoverageRef, description: 'venues in any leg of the current windows; the window is the history the 4h z-scores need', resolve: (d) => d.coverage }),
  }),
})

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
    longPriceSource: t.exposeString('longPriceSource', { nullable: true, description: 'price arbitrage: what the long leg was priced at, ask (the book\'s best), else mark, or last_trade on a venue without a mark of its own (dYdX); null for funding' }),
    shortPriceSource: t.exposeString('shortPriceSource', { nullable: true, description: 'price arbitrage: bid (the book\'s best), else mark or last_trade; null for funding' }),
  }),
})

const RegimeDistributionRef = builder.objectRef<Record<Regime, number>>('RegimeDistribution').implement({
  description: 'how many coins are in each regime',
  fields: (t) => Object.fromEntries(REGIMES.map((r) => [r.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()), t.int({ resolve: (d) => d[r] })])) as never,
})

export interface SnapshotResult extends Snapshot {
  /** the venues the snapshot covers and the history its statistics read */
  coverage: Coverage
  /** when this snapshot was computed, Unix ms */
  computedAt: number
  /** the newest data it includes */
  asOf: number
  /** series version it was computed from */
  version: number
}

export const SnapshotRef = builder.objectRef<SnapshotResult>('Snapshot').implement({
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

/** the venues of any leg, against the history the 4h z-scores read (each venue's span from its hourly perp closes) */
