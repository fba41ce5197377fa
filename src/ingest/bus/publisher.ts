// An ingest node's side of the bus: live state as it arrives (only for venues it writes, so a standby adds no
// traffic), every store write (rows for the API nodes' hot series plus the kinds of data changed), and a status
// line per data tick (venues, leases, newest events, backfill progress).
import type { ExchangeId } from '../../domain/exchanges.js'
import type { Written } from '../ingest.js'
import type { MarketState } from '../../read/state.js'
import { dataMessages, type LiveEvent } from './messages.js'
import type { NatsBus } from './nats-bus.js'

export interface Publisher {
  live(e: LiveEvent): void
  written(w: Written): void
  status(): void
}

export function busPublisher(bus: NatsBus, market: MarketState, writes: (e: ExchangeId) => boolean, writing: () => ExchangeId[]): Publisher {
  // numbered whether or not NATS takes them: a follower that misses one reloads from the store
  let seq = 0
  return {
    live(e) {
      if (writes(e.exchange)) bus.publishLive(e)
    },
    written(w) {
      const floor = market.clock() - market.series.minuteRetentionMs
      for (const m of dataMessages(bus.node, w.kinds, w, floor)) void bus.publishData({ ...m, seq: ++seq })
    },
    status() {
      const lastEvent: Partial<Record<ExchangeId, number>> = {}
      for (const e of market.enabled) {
        const ts = market.lastEventAt(e)
        if (ts !== null) lastEvent[e] = ts
      }
      bus.publishStatus({ node: bus.node, ts: market.clock(), enabled: [...market.enabled], writing: writing(), lastEvent, backfill: market.backfill, dataSeq: seq })
    },
  }
}
