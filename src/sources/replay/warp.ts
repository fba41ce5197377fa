// The recording's own time line with its long silences cut out ("compressed" time). Pure.
//
// Lines closer than maxGapMs form a session (a segment). Between sessions the silence is removed entirely, so a
// recording stitched from several sessions (the fixture collage spans 2019-2026) plays as one. The LAST session
// keeps its recorded times (offset 0); each earlier one moves later by the silences after it. A timestamp t inside a
// payload (a trade time, a funding settlement hours back) moves with the session at or after it, the first one whose
// end is >= t: data looks back from the line that carried it, so it belongs to that line's session.

export interface Segment {
  /** first and last `at` of the session, recording time */
  start: number
  end: number
  /** compressed = recording time + offset */
  offset: number
}

export class TimeWarp {
  readonly segments: Segment[]

  /** `times`: every line's `at`, ascending; maxGapMs: longest silence kept */
  constructor(
    times: readonly number[],
    readonly maxGapMs: number,
  ) {
    if (times.length === 0) throw new RangeError('TimeWarp: no times')
    const segs: Array<{ start: number; end: number }> = [{ start: times[0]!, end: times[0]! }]
    for (let i = 1; i < times.length; i++) {
      const t = times[i]!
      const cur = segs[segs.length - 1]!
      if (t - cur.end > maxGapMs) segs.push({ start: t, end: t })
      else cur.end = Math.max(cur.end, t)
    }
    const out: Segment[] = new Array(segs.length)
    let offset = 0
    for (let k = segs.length - 1; k >= 0; k--) {
      out[k] = { ...segs[k]!, offset }
      if (k > 0) offset += segs[k]!.start - segs[k - 1]!.end
    }
    this.segments = out
  }

  /** compressed time of the first and the last line */
  get first(): number {
    return this.segments[0]!.start + this.segments[0]!.offset
  }

  get last(): number {
    const s = this.segments[this.segments.length - 1]!
    return s.end + s.offset
  }

  /** the session a recording-time timestamp belongs to: the first whose end is at or after it, else the last */
  segmentOf(t: number): Segment {
    const segs = this.segments
    let lo = 0
    let hi = segs.length - 1
    if (t > segs[hi]!.end) return segs[hi]!
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (segs[mid]!.end >= t) hi = mid
      else lo = mid + 1
    }
    return segs[lo]!
  }

  compress(t: number): number {
    return t + this.segmentOf(t).offset
  }

  /** recording time at compressed time c: in the session playing then (the later one where two touch) */
  decompress(c: number): number {
    const segs = this.segments
    let k = 0
    for (let lo = 0, hi = segs.length - 1; lo <= hi; ) {
      const mid = (lo + hi) >> 1
      if (segs[mid]!.start + segs[mid]!.offset <= c) {
        k = mid
        lo = mid + 1
      } else hi = mid - 1
    }
    return c - segs[k]!.offset
  }
}
