// The replay clock: where in the recording the replay stands at a wall-clock time, and how recorded times map to
// the warped times the service stores (docs/recordings.md "Time").
//
// warped(t, pass) = compressed(t) + shift + pass * period, with shift a whole number of minutes so the last session's
// minute boundaries stay the venue's own (a 1-minute candle holds exactly the trades of the venue's minute).
// The warped clock runs `speed` times as fast as the wall clock until it reaches it, then with it:
//   warpedNow = min(wall, warpedStart + (wall - wallStart) * speed)
// so warped timestamps are never in the future, and the first pass ends at "now" when its last line plays.
import { MINUTE_MS } from '../../domain/time.js'
import type { TimeWarp } from './warp.js'

export interface ReplayClockOptions {
  warp: TimeWarp
  /** wall clock, Unix ms */
  wall: () => number
  /** >= 1 */
  speed: number
  loop: boolean
}

export interface ReplayPosition {
  /** 0 for the first pass */
  pass: number
  /** compressed recording time within the pass */
  compressed: number
}

export class ReplayClock {
  readonly warp: TimeWarp
  readonly speed: number
  readonly loop: boolean
  /** warped = compressed + shift (+ pass * period); a whole number of minutes */
  readonly shift: number
  /** one pass, a whole number of minutes longer than the recording */
  readonly period: number
  readonly wallStart: number
  readonly warpedStart: number
  private readonly wall: () => number

  constructor(opts: ReplayClockOptions) {
    if (!(opts.speed >= 1)) throw new RangeError('replay speed must be >= 1')
    this.warp = opts.warp
    this.wall = opts.wall
    this.speed = opts.speed
    this.loop = opts.loop
    const first = opts.warp.first
    const last = opts.warp.last
    const duration = last - first
    this.period = Math.max(MINUTE_MS, Math.ceil((duration + 1) / MINUTE_MS) * MINUTE_MS)
    const t0 = opts.wall()
    this.wallStart = t0
    if (opts.speed === 1) {
      // at 1x the warped clock is the wall clock; the first line waits (under a minute) for its second of the minute
      this.shift = Math.ceil((t0 - first) / MINUTE_MS) * MINUTE_MS
      this.warpedStart = t0
    } else {
      // faster: start at once, in the past, and catch the wall clock up by the end of the first pass (within a minute)
      this.shift = Math.floor((t0 + duration / opts.speed - last) / MINUTE_MS) * MINUTE_MS
      this.warpedStart = Math.min(t0, first + this.shift)
    }
  }

  warpedNow(): number {
    const wall = this.wall()
    return Math.min(wall, this.warpedStart + (wall - this.wallStart) * this.speed)
  }

  /** the wall time at which the warped clock reaches `warped` */
  wallAt(warped: number): number {
    return Math.max(warped, this.wallStart + (warped - this.warpedStart) / this.speed)
  }

  position(warpedNow = this.warpedNow()): ReplayPosition {
    const u = warpedNow - this.shift
    const pass = this.loop ? Math.max(0, Math.floor((u - this.warp.first) / this.period)) : 0
    return { pass, compressed: u - pass * this.period }
  }

  /** recording time now: what the connectors' and CCXT's clocks read during the replay */
  recordingNow(): number {
    return this.warp.decompress(this.position().compressed)
  }

  /** a recorded timestamp as the service stores it, in the given pass */
  warped(t: number, pass: number): number {
    return this.warp.compress(t) + this.shift + pass * this.period
  }

  /** warped time of a compressed time in a pass */
  warpedOfCompressed(compressed: number, pass: number): number {
    return compressed + this.shift + pass * this.period
  }

  /** a single pass has played its last line */
  ended(): boolean {
    return !this.loop && this.position().compressed > this.warp.last
  }
}
