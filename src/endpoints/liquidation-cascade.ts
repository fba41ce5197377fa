// GET /v1/signals/liquidation-cascade (5 credits): a simulated cascade from the current price to a trigger price,
// each venue liquidating its own positions (its own build-up and tiers) into the books, stalling at HVN zones.
import { z } from 'zod'
import type { Coverage, CoverageGap } from '../analytics/coverage.js'
import { simulateCascade } from '../analytics/liquidation-cascade.js'
import { outlierReason, splitOutliers } from '../analytics/price-outliers.js'
import { coinParam, exchangeParam, positiveParam } from '../domain/params.js'
import { unavailable } from '../errors.js'
import { CascadeRef } from '../graphql/schema/profile.js'
import { DAY_MS, HOUR_MS, floorTo } from '../domain/time.js'
import { EXCHANGE_IDS, type ExchangeId } from '../domain/exchanges.js'
import { coverageOf, missingExchanges, type CoverageContext } from '../read/coverage.js'
import { liquidationCoverage } from '../read/liquidation-coverage.js'
import { CASCADE_OI_HOURS, calibratedLiquidationMaps, oiHourRanges } from '../read/signal-inputs.js'
import { coinHvnZones } from '../read/volume-at-price.js'
import { loadAll, requestLoaders } from '../read/request-loaders.js'
import { defineEndpoint } from './define.js'

export const liquidationCascade = defineEndpoint({
  path: '/v1/signals/liquidation-cascade',
  field: 'liquidationCascade',
  operation: 'liquidation-cascade',
  cost: 5,
  summary: 'Simulated liquidation cascade from the current price to a trigger price (at most 5 phases; stalls at HVN zones)',
  description: 'Liquidation cascade simulation: at most 5 phases, stalling at HVN zones.',
  params: z.object({ coin: coinParam(true), trigger_price: positiveParam('price that starts the cascade (> 0)', 90_000), exchange: exchangeParam() }),
  type: CascadeRef,
  resolve: async ({ coin, exchange, trigger_price: triggerPrice }, ctx) => {
    const market = ctx.services.market
    const [tickers, books] = await Promise.all([loadAll(requestLoaders(ctx).tickers, [coin]), loadAll(requestLoaders(ctx).books, [coin])])
    const fresh = (ts: number) => ctx.now - ts <= 60_000
    const marks = tickers[0]!.filter((r) => (!exchange || r.exchange === exchange) && r.markPrice && fresh(r.ts))
    const bookList = books[0]!.filter((b) => (!exchange || b.exchange === exchange) && fresh(b.ts))
    if (!marks.length || !bookList.length)
      throw unavailable(`No live ${exchange ? `${exchange} ` : ''}market data for ${coin} (a current mark price and order book are needed). Nothing was charged.`)
    // a mark far off the other venues' (a bad tick, a stale oracle) is not averaged into the start
    const split = splitOutliers(marks.map((r) => ({ exchange: r.exchange, price: r.markPrice! })))
    if (!split.kept.length)
      throw unavailable(`The ${coin} marks disagree by more than 5 % with no majority (${split.outliers.map((o) => `${o.exchange} ${o.price}`).join(', ')}): no current price to start from. Nothing was charged.`)
    const startPrice = split.kept.reduce((s, r) => s + r.price, 0) / split.kept.length
    const outliers = split.outliers.map((o): CoverageGap => ({ exchange: o.exchange, status: 'outlier', reason: `mark left out of the start price: ${outlierReason(o, split.median!)}` }))
    // each venue's positions are liquidated by its own build-up and its own tiers: no netting across venues
    const venues = EXCHANGE_IDS.filter((e) => !exchange || e === exchange)
    // observed liquidations over the maps' own build-up window calibrate each venue's levels where it published enough
    const { window, maps, levels } = await calibratedLiquidationMaps(market, coin, venues, exchange, ctx.now)
    const zones = await coinHvnZones(market, { coin, marketType: 'perp', start: ctx.now - DAY_MS, end: ctx.now, exchange })
    const result = simulateCascade({
      currentPrice: startPrice,
      triggerPrice,
      liquidations: levels,
      book: { bids: bookList.flatMap((b) => b.bids), asks: bookList.flatMap((b) => b.asks) },
      hvnZones: zones,
      exchanges: venues,
    })
    const used = bookList.map((b) => b.exchange)
    const byExchange = maps.map((m) => ({
      exchange: m.exchange,
      liquidatedUsd: result.byExchange.find((b) => b.exchange === m.exchange)?.liquidatedUsd ?? 0,
      estimatedLiquidationsUsd: m.estimatedUsd,
      liquidationLevels: m.levels.length,
      tiers: m.tiers,
      calibration: m.calibration,
    }))
    const observed = maps.filter((m) => m.calibration.kind === 'observed').map((m) => m.exchange)
    return {
      ...result, coin, exchanges: used, byExchange,
      liquidationLevels: maps.reduce((s, m) => s + m.levels.length, 0),
      estimatedLiquidationsUsd: maps.reduce((s, m) => s + m.estimatedUsd, 0),
      asOf: ctx.now,
      calibration: {
        kind: observed.length ? ('observed' as const) : ('modelled' as const),
        exchanges: observed,
        orders: maps.reduce((s, m) => s + m.calibration.orders, 0),
        window,
        liquidationCoverage: (await liquidationCoverage(ctx, { window, coin, only: exchange })).liquidationCoverage,
      },
      missing: missingExchanges('perp', used, () => `no fresh ${coin} order book`, exchange),
      coverage: cascadeCoverage(ctx, coin, used, exchange, outliers),
    }
  },
})

function cascadeCoverage(ctx: CoverageContext, coin: string, booked: readonly ExchangeId[], only: ExchangeId | undefined, outliers: readonly CoverageGap[]): Coverage {
  const to = floorTo(ctx.now, HOUR_MS) + HOUR_MS
  const from = to - (CASCADE_OI_HOURS + 1) * HOUR_MS
  const ranges = oiHourRanges(ctx.services.market, coin, from, to, only)
  const gaps: CoverageGap[] = [...outliers]
  for (const e of booked) if (!ranges.has(e)) gaps.push({ exchange: e, status: 'no_data', reason: `no ${coin} open-interest history: none of its positions are modelled` })
  for (const e of ranges.keys()) if (!booked.includes(e)) gaps.push({ exchange: e, status: 'stale', reason: `no fresh ${coin} order book: its liquidity is not walked` })
  return coverageOf(ctx, { coin, used: booked, gaps, noData: () => `no ${coin} open-interest history or order book`, only, requested: { from, to }, ranges, toleranceMs: HOUR_MS })
}
