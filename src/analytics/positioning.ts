// Long/short positioning per venue (docs/methodology.md#positioning): the ratios the CEXs publish, as they published
// them. A series point is the interval's last sample; `latest` is the window's last sample. Nothing is estimated or
// combined across venues (each venue counts something else).

export type PositioningKindName = 'account' | 'top_position'

export interface PositioningSample {
  exchange: string
  kind: PositioningKindName
  ts: number
  longShare: number
  shortShare: number
  ratio: number
}

export interface PositioningPoint {
  /** interval start (series points) or the sample's own time (latest) */
  ts: number
  /** when the venue stamped the sample */
  sampledAt: number
  longShare: number
  shortShare: number
  ratio: number
}

export interface PositioningSeries {
  latest: PositioningPoint | null
  points: PositioningPoint[]
}

export interface VenuePositioning {
  exchange: string
  /** null: the venue does not publish this kind */
  account: PositioningSeries | null
  topPosition: PositioningSeries | null
}

/**
 * Per venue and kind, the last sample of each interval slot [t, t + intervalMs) with from ≤ t < to, and the
 * window's last sample. `venues` lists each venue with the kinds it publishes (a published kind without samples
 * is an empty series, an unpublished one null).
 */
export function buildPositioning(input: { samples: readonly PositioningSample[]; venues: readonly { exchange: string; kinds: readonly PositioningKindName[] }[]; intervalMs: number; from: number; to: number }): VenuePositioning[] {
  const { intervalMs, from, to } = input
  const series = (exchange: string, kind: PositioningKindName): PositioningSeries => {
    const last = new Map<number, PositioningSample>()
    let latest: PositioningSample | null = null
    for (const s of input.samples) {
      if (s.exchange !== exchange || s.kind !== kind || s.ts < from || s.ts >= to) continue
      const slot = Math.floor(s.ts / intervalMs) * intervalMs
      const cur = last.get(slot)
      if (!cur || s.ts >= cur.ts) last.set(slot, s)
      if (!latest || s.ts >= latest.ts) latest = s
    }
    const point = (ts: number, s: PositioningSample): PositioningPoint => ({ ts, sampledAt: s.ts, longShare: s.longShare, shortShare: s.shortShare, ratio: s.ratio })
    return {
      latest: latest && point(latest.ts, latest),
      points: [...last].sort((a, b) => a[0] - b[0]).map(([ts, s]) => point(ts, s)),
    }
  }
  return input.venues.map((v) => ({
    exchange: v.exchange,
    account: v.kinds.includes('account') ? series(v.exchange, 'account') : null,
    topPosition: v.kinds.includes('top_position') ? series(v.exchange, 'top_position') : null,
  }))
}
