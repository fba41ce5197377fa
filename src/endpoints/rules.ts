// Rules across parameters that several endpoints share.
import type { z } from 'zod'
import { ruleIssue } from '../domain/params.js'
import { INTERVALS, intervalFitsLookback, type Interval, type Lookback } from '../domain/windows.js'
import type { ExchangeId } from '../domain/exchanges.js'
import { hasMarket } from '../domain/exchanges.js'

type Check = z.core.$RefinementCtx

/** spot exists on the CEXs only */
export function spotNeedsCex(v: { market_type: 'perp' | 'spot'; exchange?: ExchangeId }, ctx: Check) {
  if (v.market_type === 'spot' && v.exchange && !hasMarket(v.exchange, 'spot'))
    ctx.addIssue(ruleIssue('market_type', `${v.exchange} has no spot market; use market_type=perp, or a CEX (binance, bybit, okx) for spot.`, ['perp']))
}

/** a candle longer than the window is refused, naming the intervals that fit */
export function intervalWithinLookback(v: { interval: Interval; lookback: Lookback }, ctx: Check) {
  if (!intervalFitsLookback(v.interval, v.lookback))
    ctx.addIssue(
      ruleIssue(
        'interval',
        `interval ${v.interval} is longer than lookback ${v.lookback}; choose an interval of at most the lookback.`,
        INTERVALS.filter((i) => intervalFitsLookback(i, v.lookback)),
      ),
    )
}
