// What a figure lacks because of where its bars came from (docs/methodology.md#provenance): minutes built from a
// venue's klines carry no taker split on most venues, no volume at price on any, and on some no trade count or quote
// volume. A figure leaves such minutes out of what it cannot compute from them — never inventing a split — and its
// coverage names each venue's minutes and their time ranges: `no_taker_split`, `kline_only`, `no_trade_count`,
// `no_quote_volume`. Pure; bars in, coverage gaps out.
import type { ExchangeId } from '../domain/exchanges.js'
import type { CoverageGap, WindowRange } from './coverage.js'

/** what a bar says of its provenance (1-minute bars and hourly rollups alike) */
export interface ProvenanceBar {
  exchange: ExchangeId
  /** bar open time */
  ts: number
  /** minutes of the bar without a taker split */
  noSplitMinutes: number
  /** minutes of the bar built from venue klines (no volume at price) */
  klineMinutes: number
  /** null: a minute of the bar has no trade count */
  trades: number | null
  /** null: a minute of the bar has no quote volume */
  quoteVolume: number | null
}

export type ProvenanceLack = 'no_taker_split' | 'kline_only' | 'no_trade_count' | 'no_quote_volume'

/** one venue's bars lacking something: how many minutes, and the time ranges of the bars holding them (merged where they touch) */
export interface LackRun {
  exchange: ExchangeId
  minutes: number
  ranges: WindowRange[]
}

/**
 * minutes of a bar lacking `what`; a bar without a trade count or quote volume counts its minutes from klines (an
 * hourly rollup does not keep which of them lack it: at most those)
 */
function lacking(b: ProvenanceBar, what: ProvenanceLack): number {
  switch (what) {
    case 'no_taker_split':
      return b.noSplitMinutes
    case 'kline_only':
      return b.klineMinutes
    case 'no_trade_count':
      return b.trades === null ? Math.max(1, b.klineMinutes) : 0
    case 'no_quote_volume':
      return b.quoteVolume === null ? Math.max(1, b.klineMinutes) : 0
  }
}

/** a bar's length: a minute, or an hour for rollups (then a range is the hour, which holds those minutes) */
export type BarLength<B> = number | ((b: B) => number)

/** per venue (in the order first met), the bars of [from, to) lacking `what`: their minutes and their ranges */
export function lackRuns<B extends ProvenanceBar>(bars: readonly B[], what: ProvenanceLack, barMs: BarLength<B>, window: WindowRange): LackRun[] {
  const length = typeof barMs === 'number' ? () => barMs : barMs
  const byVenue = new Map<ExchangeId, { minutes: number; bars: { from: number; to: number }[] }>()
  for (const b of bars) {
    if (b.ts < window.from || b.ts >= window.to) continue
    const n = lacking(b, what)
    if (n <= 0) continue
    let v = byVenue.get(b.exchange)
    if (!v) byVenue.set(b.exchange, (v = { minutes: 0, bars: [] }))
    v.minutes += n
    v.bars.push({ from: b.ts, to: b.ts + length(b) })
  }
  return [...byVenue].map(([exchange, v]) => {
    const ranges: WindowRange[] = []
    for (const r of v.bars.sort((a, c) => a.from - c.from)) {
      const last = ranges.at(-1)
      if (last && r.from <= last.to) last.to = Math.max(last.to, r.to)
      else ranges.push({ ...r })
    }
    return { exchange, minutes: v.minutes, ranges }
  })
}

/** how many ranges a reason names before it says how many more there are */
const NAMED_RANGES = 3
const iso = (ms: number) => new Date(ms).toISOString().replace(':00.000Z', 'Z')

const WHAT: Record<ProvenanceLack, (n: number) => string> = {
  no_taker_split: (n) => `${n === 1 ? '1 minute' : `${n} minutes`} without a taker split (venue klines that give none): left out of the taker buy and sell figures, never estimated`,
  kline_only: (n) => `${n === 1 ? '1 minute' : `${n} minutes`} built from venue klines, which have no volume at price: not in the profile`,
  no_trade_count: (n) => `${n === 1 ? '1 minute' : `${n} minutes`} from venue klines in bars without a trade count: the trade counts over them are null`,
  no_quote_volume: (n) => `${n === 1 ? '1 minute' : `${n} minutes`} from venue klines in bars without a quote volume: left out of the quote volume and VWAP`,
}

/** a coverage gap per venue lacking `what` in the window: its minutes and ranges in the reason */
export function lackGaps<B extends ProvenanceBar>(bars: readonly B[], what: ProvenanceLack, barMs: BarLength<B>, window: WindowRange): CoverageGap[] {
  return lackRuns(bars, what, barMs, window).map((r) => {
    const named = r.ranges.slice(0, NAMED_RANGES).map((x) => `${iso(x.from)} to ${iso(x.to)}`)
    const more = r.ranges.length > NAMED_RANGES ? ` and ${r.ranges.length - NAMED_RANGES} more ranges` : ''
    return { exchange: r.exchange, status: what, reason: `${WHAT[what](r.minutes)}: ${named.join(', ')}${more}` }
  })
}
