// Venue prices far off the others (a bad tick, a stale oracle, a recording that stitches different days): set aside
// and named, never averaged into a cross-venue figure. Methodology: docs/methodology.md#price-outliers.
import { EXCHANGE_IDS, type ExchangeId } from '../domain/exchanges.js'

/** a price further than this from the venues' median (as a fraction of it) is an outlier */
export const PRICE_OUTLIER_MAX_DEVIATION = 0.05
/** with fewer venues there is no majority to tell which price is off: nothing is set aside */
const PRICE_OUTLIER_MIN_VENUES = 3

export interface PriceOutlier {
  exchange: ExchangeId
  price: number
  /** (price / median − 1), fraction */
  deviation: number
}

export interface OutlierSplit<T> {
  kept: T[]
  outliers: PriceOutlier[]
  /** the median of every venue's price the test was made against; null with fewer than PRICE_OUTLIER_MIN_VENUES */
  median: number | null
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/**
 * one price per venue (positive, finite); those further than PRICE_OUTLIER_MAX_DEVIATION from the median are set aside.
 * With an even count the median can fall between two groups far apart: then every venue is set aside (no price to trust)
 */
export function splitOutliers<T extends { exchange: ExchangeId; price: number }>(rows: readonly T[]): OutlierSplit<T> {
  if (rows.length < PRICE_OUTLIER_MIN_VENUES) return { kept: [...rows], outliers: [], median: null }
  const m = median(rows.map((r) => r.price))
  const kept: T[] = []
  const outliers: PriceOutlier[] = []
  for (const r of rows) {
    const deviation = r.price / m - 1
    // compared as distances, so a gap of exactly the bound is not beyond it
    if (Math.abs(r.price - m) > PRICE_OUTLIER_MAX_DEVIATION * m) outliers.push({ exchange: r.exchange, price: r.price, deviation })
    else kept.push(r)
  }
  return { kept, outliers, median: m }
}

/** the sentence naming why a venue's price was set aside */
export const outlierReason = (o: PriceOutlier, median: number): string =>
  `price ${o.price} is ${(o.deviation * 100).toFixed(2)} % from the venues' median ${median} (beyond ±${PRICE_OUTLIER_MAX_DEVIATION * 100} %): set aside as an outlier`

/** a venue set aside in some buckets of a series (candles, minutes): how many, the first and last, the furthest price */
export interface OutlierRun {
  exchange: ExchangeId
  buckets: number
  firstTs: number
  lastTs: number
  /** the set-aside price furthest from its bucket's median */
  worst: PriceOutlier & { median: number; ts: number }
}

/** each venue set aside in at least one of the buckets given (in time order), canonical venue order */
export function outlierRuns(buckets: readonly { ts: number; outliers: readonly PriceOutlier[]; median: number | null }[]): OutlierRun[] {
  const runs = new Map<ExchangeId, OutlierRun>()
  for (const b of buckets)
    for (const o of b.outliers) {
      const worst = { ...o, median: b.median!, ts: b.ts }
      const run = runs.get(o.exchange)
      if (!run) runs.set(o.exchange, { exchange: o.exchange, buckets: 1, firstTs: b.ts, lastTs: b.ts, worst })
      else {
        run.buckets++
        run.firstTs = Math.min(run.firstTs, b.ts)
        run.lastTs = Math.max(run.lastTs, b.ts)
        if (Math.abs(o.deviation) > Math.abs(run.worst.deviation)) run.worst = worst
      }
    }
  return EXCHANGE_IDS.flatMap((e) => runs.get(e) ?? [])
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z')

/** why a venue is out of some buckets of a composite (`what`: "candles", "closes"), in a sentence */
export function outlierRunReason(run: OutlierRun, total: number, what: string): string {
  const w = run.worst
  const span = run.buckets === 1 ? `1 of ${total} ${what} (${iso(run.firstTs)})` : `${run.buckets} of ${total} ${what} (${iso(run.firstTs)} to ${iso(run.lastTs)})`
  return `close more than ${PRICE_OUTLIER_MAX_DEVIATION * 100} % from the median of the venues' closes in ${span}, furthest ${w.price} against ${w.median} (${(w.deviation * 100).toFixed(2)} %): left out of those ${what} as an outlier`
}
