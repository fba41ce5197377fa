// Every normalized event of a replay moves onto the warped time line before it reaches the ingest pipeline.
import type { EventSink, FeedStateEvent, MarketEvent } from '../../domain/events.js'
import type { ReplayClock } from './clock.js'

/** how far ahead of the warped clock an event may be stamped (venue clocks run a little ahead of receipt) */
const FUTURE_SLACK_MS = 5_000

export class WarpingSink implements EventSink {
  constructor(
    private readonly target: EventSink,
    private readonly clock: ReplayClock,
  ) {}

  /** a connector reports its feed state as it changes: it changed now, on the warped line */
  feed(state: FeedStateEvent): void {
    const ts = this.clock.warpedNow()
    this.target.feed?.({ ...state, ts, ...(state.until === undefined ? {} : { until: ts + (state.until - state.ts) }) })
  }

  emit(e: MarketEvent): void {
    const now = this.clock.warpedNow()
    // an event belongs to the current pass unless that would put it in the future: then it came from an answer
    // recorded near the end of the previous pass (a REST poll made before this pass recorded its own)
    let pass = this.clock.position(now).pass
    let ts = this.clock.warped(e.ts, pass)
    while (pass > 0 && ts > now + FUTURE_SLACK_MS) ts = this.clock.warped(e.ts, --pass)
    const delta = ts - e.ts
    switch (e.type) {
      case 'trade':
        // a looped pass replays the same trades: ids stay unique per pass so none is taken for a duplicate
        this.target.emit({ ...e, ts, id: pass > 0 ? `${e.id}~${pass}` : e.id })
        return
      case 'ticker':
        // the next settlement keeps its distance from the event it came with
        this.target.emit({ ...e, ts, nextFundingTime: e.nextFundingTime === null ? null : e.nextFundingTime + delta })
        return
      default:
        this.target.emit({ ...e, ts })
    }
  }
}
