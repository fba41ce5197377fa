// What the minute aggregator counts, and what became of one trade.

/** what happened to one trade */
export type FoldResult = 'accepted' | 'duplicate' | 'late_dropped' | 'resume_skipped' | 'invalid'

export interface AggregatorStats {
  /** trades folded into a bar */
  accepted: number
  /** trades ignored because their id was already folded */
  duplicates: number
  /** trades whose minute was already finalized (closed) and that were not known duplicates */
  lateDropped: number
  /** trades at or before a market's resume cursor (their minute is already in the store) */
  resumeSkipped: number
  /** trades with a non-finite or non-positive price or size, or a non-finite ts */
  invalid: number
  /** whole-minute bars accepted from a source (addBar) */
  sourceBars: number
  /** bars finalized so far (drained or waiting in the outbox), flat ones included */
  closedBars: number
  /** of which flat bars for quiet minutes */
  flatBars: number
  /** bars currently open (still accepting trades) */
  openBars: number
  /** closed bars waiting for drainClosed() */
  pendingBars: number
  markets: number
}

/** the counters the aggregator keeps itself (the rest are read off its state) */
export type AggregatorCounters = Omit<AggregatorStats, 'openBars' | 'pendingBars' | 'markets'>

export const emptyCounters = (): AggregatorCounters => ({
  accepted: 0,
  duplicates: 0,
  lateDropped: 0,
  resumeSkipped: 0,
  invalid: 0,
  sourceBars: 0,
  closedBars: 0,
  flatBars: 0,
})
