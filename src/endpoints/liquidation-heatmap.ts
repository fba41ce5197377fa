// GET /v1/liquidations/heatmap (10 credits): estimated liquidation levels over price × time. For each time bucket,
// each venue's liquidation map as it stood at the bucket's end (from its own OI build-up of the week before and its
// own leverage tiers), scaled by that venue's calibration against the liquidations it published in the window, and
// folded into price bins; with the model's and the observed liquidations per bucket and their fit
// (docs/methodology.md#liquidation-heatmap).
import { z } from 'zod'
import type { Coverage } from '../analytics/coverage.js'
import { calibrateVenue, hourlyPairs, type VenueCalibration } from '../analytics/liquidation-calibration.js'
import { binLevels, correlation, priceEdges } from '../analytics/liquidation-heatmap.js'
import type { LiquidationLevel } from '../analytics/liquidation-map.js'
import { POSITION_HORIZON_HOURS } from '../analytics/leverage-tiers.js'
import { EXCHANGE_IDS } from '../domain/exchanges.js'
import { LIQUIDATION_FEEDS } from '../domain/liquidations.js'
import { coinParam, enumParam, exchangeParam, intParam, ruleIssue } from '../domain/params.js'
import { limitParam, seriesRules, windowParams } from '../domain/series.js'
import { HOUR_MS } from '../domain/time.js'
import { HourlyInterval } from '../domain/windows.js'
import { HeatmapRef } from '../graphql/schema/liquidation-heatmap.js'
import { coverageOf, missingExchanges, rangesOf } from '../read/coverage.js'
import { liquidationCoverage } from '../read/liquidation-coverage.js'
import { hourlyBuildUp, venueClasses } from '../read/signal-inputs.js'
import { defineEndpoint } from './define.js'
import { MODEL_HOUR_ROWS, venuesOf, windowRows } from './work.js'
import { seriesWindow } from './series-kit.js'

/** buckets × bins of one page: the answer's size, and the work of writing it, stay bounded (docs/operations.md#caps-and-bounds) */
export const MAX_CELLS = 100_000

const params = z
  .object({
    coin: coinParam(true),
    exchange: exchangeParam('one exchange; omitted = every venue, summed'),
    interval: enumParam(HourlyInterval, { description: 'time bucket: 1h, 4h or 1d (the build-up is hourly)', default: '1h' }),
    bins: intParam({ min: 10, max: 200, default: 50, description: 'price bins' }),
    range_pct: intParam({ min: 5, max: 50, default: 20, description: 'the price axis spans ± this % around the latest price' }),
    ...windowParams(),
    limit: limitParam(`buckets (at most ${MAX_CELLS.toLocaleString('en-US')} / bins)`),
  })
  .superRefine(seriesRules)
  .superRefine((v, ctx) => {
    if (v.limit * v.bins > MAX_CELLS) ctx.addIssue(ruleIssue('limit', `a page holds at most ${MAX_CELLS.toLocaleString('en-US')} cells (limit × bins): with bins=${v.bins}, limit may be at most ${Math.floor(MAX_CELLS / v.bins)}; meta.next pages on.`))
  })

export const liquidationHeatmap = defineEndpoint({
  path: '/v1/liquidations/heatmap',
  field: 'liquidationHeatmap',
  operation: 'liquidation-heatmap',
  cost: 10,
  summary: 'Estimated liquidation levels over price × time from OI build-up and leverage tiers, calibrated against observed liquidations (fit reported)',
  description: 'Estimated liquidation USD per time bucket and price bin, from each venue\'s OI build-up and leverage tiers, calibrated against the observed liquidations, with the fit.',
  params,
  // each venue's liquidation map over the window's hours and the position horizon of build-up before them
  work: (v, now) => (windowRows(v, now, HOUR_MS) + POSITION_HORIZON_HOURS) * venuesOf(v) * MODEL_HOUR_ROWS,
  type: HeatmapRef,
  resolve: async (v, ctx) => {
    const w = seriesWindow(v, ctx.now)
    const { coin, exchange } = v
    const market = ctx.services.market
    const slots: number[] = []
    for (let s = w.first; s < w.end; s += w.intervalMs) slots.push(s)
    const venues = EXCHANGE_IDS.filter((e) => !exchange || e === exchange)
    const minutes = await market.reader.liquidationMinutes([coin], w.first, w.end, exchange)
    const slotOf = (ts: number) => Math.floor((ts - w.first) / w.intervalMs)
    // the levels are binned for this page's buckets only: the work follows the page, not the window
    const pageSlots = w.slots
    // each venue's map on the analytics threads (src/read/analytics-pool.ts): a year of build-up is seconds of CPU
    const per = await Promise.all(venues.map(async (e) => {
      // a position horizon of build-up before the window: its first hour sweeps the positions open then
      const bu = hourlyBuildUp(market, coin, e, w.first - POSITION_HORIZON_HOURS * HOUR_MS, w.end)
      // the map at each of the page's bucket ends: after the last hour that starts before it (one pass, slots ascend)
      const at: number[] = []
      let i = -1
      for (const s of pageSlots) {
        while (i + 1 < bu.length && bu[i + 1]!.ts < s + w.intervalMs) i++
        at.push(i)
      }
      const { classes } = venueClasses(market, coin, e, ctx.now, bu.at(-1)?.point.price)
      const trace = await ctx.services.analytics.liquidationMap({ series: bu.map((p) => p.point), classes, horizonMs: POSITION_HORIZON_HOURS * HOUR_MS, snapshotAt: [...new Set(at.filter((i) => i >= 0))] })
      const modelled = slots.map(() => 0)
      bu.forEach((p, i) => {
        const k = slotOf(p.ts)
        if (p.ts >= w.first && k < slots.length) modelled[k]! += trace.swept[i]!
      })
      const observed = slots.map(() => 0)
      let orders = 0
      const mine = minutes.filter((m) => m.exchange === e)
      for (const m of mine) {
        observed[slotOf(m.ts)]! += m.longUsd + m.shortUsd
        orders += m.longCount + m.shortCount
      }
      const feed = LIQUIDATION_FEEDS[e]
      const hourly = hourlyPairs(bu.map((p, i) => ({ ts: p.ts, sweptUsd: trace.swept[i]! })), mine.map((m) => ({ ts: m.ts, usd: m.longUsd + m.shortUsd })), w.first, w.end)
      const calibration: VenueCalibration = calibrateVenue({
        published: feed.published, completeness: feed.completeness, note: feed.note, orders,
        observedUsd: observed.reduce((s, x) => s + x, 0), modelledUsd: modelled.reduce((s, x) => s + x, 0), hourly,
        warmedUp: bu.length > 0 && bu[0]!.ts <= w.first - POSITION_HORIZON_HOURS * HOUR_MS + HOUR_MS,
      })
      const levels = at.map((i): LiquidationLevel[] => (i < 0 ? [] : trace.snapshots.get(i)!.map((l) => ({ ...l, notionalUsd: l.notionalUsd * calibration.factor }))))
      return { exchange: e, hours: bu.length, lastPrice: bu.at(-1)?.point.price, levels, modelled, observed, calibration, firstTs: bu[0]?.ts }
    }))
    const prices = per.map((p) => p.lastPrice).filter((p): p is number => p !== undefined)
    const center = prices.length ? prices.reduce((s, p) => s + p, 0) / prices.length : null
    const edges = center === null ? [] : priceEdges(center, v.range_pct / 100, v.bins)
    const published = per.filter((p) => LIQUIDATION_FEEDS[p.exchange].published)
    const sumAt = (rows: typeof per, pick: (p: (typeof per)[number]) => number[], k: number, scaled: boolean) => rows.reduce((s, p) => s + pick(p)[k]! * (scaled ? p.calibration.factor : 1), 0)
    // the model's and the observed USD of every bucket of the window (the fit); levels binned for the page's
    const fitted = slots.map((ts, k) => ({ ts, modelledUsd: sumAt(published, (p) => p.modelled, k, true), observedUsd: sumAt(published, (p) => p.observed, k, false) }))
    const buckets = pageSlots.map((ts, j) => {
      const b = binLevels(per.flatMap((p) => p.levels[j]!), edges)
      const total = b.longUsd.reduce((s, x) => s + x, 0) + b.shortUsd.reduce((s, x) => s + x, 0) + b.outsideUsd
      const { modelledUsd, observedUsd } = fitted[slotOf(ts)]!
      return { ts, ...b, totalUsd: total, modelledUsd, observedUsd }
    })
    const calibrated = per.filter((p) => p.calibration.kind === 'observed').map((p) => p.exchange)
    const fit = {
      kind: calibrated.length ? ('observed' as const) : ('modelled' as const),
      exchanges: calibrated,
      buckets: slots.length,
      observedUsd: fitted.reduce((s, b) => s + b.observedUsd, 0),
      modelledUsd: published.reduce((s, p) => s + p.calibration.modelledUsd, 0),
      calibratedUsd: fitted.reduce((s, b) => s + b.modelledUsd, 0),
      correlation: correlation(fitted.map((b) => b.modelledUsd), fitted.map((b) => b.observedUsd)),
    }
    const used = per.filter((p) => p.hours > 0).map((p) => p.exchange)
    const ranges = rangesOf(per.filter((p) => p.hours > 0).map((p) => ({ exchange: p.exchange, ts: Math.max(w.first, p.firstTs!) })), (r) => w.end - r.ts)
    const noData = () => `no ${coin} open-interest history in the window`
    const coverage: Coverage = coverageOf(ctx, { coin, used, noData, only: exchange, requested: { from: w.first, to: w.end }, ranges, toleranceMs: HOUR_MS })
    // the observed side: which venues' published liquidations are complete over the window, a lower bound, or none
    const observedCoverage = (await liquidationCoverage(ctx, { window: { from: w.first, to: w.end }, coin, only: exchange })).liquidationCoverage
    return {
      coin, interval: v.interval, exchange: exchange ?? null, start: w.start, end: w.end, asOf: Math.min(w.end, ctx.now), next: w.next,
      priceBins: edges.slice(0, -1).map((low, i) => ({ low, high: edges[i + 1]! })),
      buckets,
      fit,
      exchanges: per.map((p) => ({ exchange: p.exchange, calibration: p.calibration })),
      missing: missingExchanges('perp', used, noData, exchange),
      coverage,
      liquidationCoverage: observedCoverage,
    }
  },
})
