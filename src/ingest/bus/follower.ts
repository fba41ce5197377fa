// An API node follows the ingest nodes: live tickers, open interest and books from the bus into its LiveMarket;
// every store write's rows into its hot series and its data version into the read memo (so the caches drop);
// venues and backfill progress from the ingest nodes' status. When the bus was cut off (or is down), or a writer's
// numbered data message never arrived, the series are reloaded from the store, which stays the truth.
import type { Logger } from 'pino'
import type { ExchangeId } from '../../domain/exchanges.js'
import type { Database } from '../../store/database.js'
import type { DataKind } from '../../read/reader.js'
import { DATA_TICK_MS, type MarketState } from '../../read/state.js'
import { toMinuteBar, type DataMessage, type LiveEvent, type StatusMessage } from './messages.js'
import type { NatsBus } from './nats-bus.js'

// every kind: a resync may have missed any write (liquidations and feed uptime too, which the store alone holds)
const ALL_KINDS: DataKind[] = ['candles', 'samples', 'funding', 'books', 'trades', 'liquidations', 'positioning', 'feeds']
/** while the bus is down, the series are reloaded from the store this often */
const RELOAD_WHILE_DOWN_MS = 30_000

export interface Follower {
  /** the newest ingest status per node (for /readyz) */
  statuses(): StatusMessage[]
  /** store writes applied from the bus */
  applied(): number
  /** reloads from the store after a gap in a writer's numbering (a data message lost) */
  gaps(): number
  /** resolves once every reload asked for so far has finished */
  settled(): Promise<void>
  stop(): void
}

export function followBus(bus: NatsBus, market: MarketState, db: Database, logger: Logger): Follower {
  const statuses = new Map<string, StatusMessage>()
  let queue: DataMessage[] | null = null
  let resyncing: Promise<void> = Promise.resolve()
  let resyncQueued = false
  let applied = 0
  let gaps = 0
  /** per writer node: the newest data message number this node has (applied, or covered by a reload) */
  const seen = new Map<string, number>()
  /** per writer node: the number a status said was sent, checked at the node's next status */
  const owed = new Map<string, number>()
  // the push channels come over the bus (numbered by its stream), not from the live state this node mirrors
  market.live.listener = null

  const apply = (m: DataMessage) => {
    market.series.apply({ minuteBars: m.minuteBars.map(toMinuteBar), hourBars: m.hourBars.map(toMinuteBar), samples: m.samples }, market.clock())
    for (const k of m.kinds) market.reader.bump(k, m.from?.[k] ?? Number.NEGATIVE_INFINITY)
    applied++
  }

  const resync = () => {
    // a reload already waiting to start will read everything this one would
    if (resyncQueued) return
    resyncQueued = true
    resyncing = resyncing.then(async () => {
      resyncQueued = false
      // every write a status reported before this reload starts is in what it reads
      for (const s of statuses.values()) if (s.dataSeq !== undefined) seen.set(s.node, Math.max(seen.get(s.node) ?? 0, s.dataSeq))
      owed.clear()
      // messages arriving while the series reload wait, then apply over the fresh copy (applying is idempotent)
      queue = []
      try {
        await market.series.load(db, market.clock())
        await market.refreshCoins()
        await market.refreshExchanges()
      } catch (err) {
        logger.warn({ err }, 'bus follower: reloading from the store failed; will retry')
      } finally {
        const waiting = queue
        queue = null
        for (const m of waiting) apply(m)
        for (const k of ALL_KINDS) market.reader.bump(k)
      }
    })
  }

  /** a writer's data messages are numbered: one skipped was lost (NATS down, or its stream gone), so reload */
  const gap = (why: string, node: string) => {
    gaps++
    logger.warn({ node }, `bus follower: ${why}; reloading from the store`)
    resync()
  }

  const onData = (m: DataMessage) => {
    if (m.seq !== undefined) {
      const had = seen.get(m.node)
      if (had !== undefined && m.seq > had + 1) gap(`data messages ${had + 1}-${m.seq - 1} of a writer never arrived`, m.node)
      seen.set(m.node, Math.max(had ?? 0, m.seq))
    }
    if (queue) queue.push(m)
    else apply(m)
  }

  const onStatus = (s: StatusMessage) => {
    statuses.set(s.node, s)
    const all = [...statuses.values()]
    market.enabled.clear()
    for (const st of all) for (const e of st.enabled) market.enabled.add(e)
    for (const [e, ts] of Object.entries(s.lastEvent)) market.touch(e as ExchangeId, ts)
    // the backfill this deployment runs: reported by the node running it (the newest report wins)
    const b = all.filter((st) => st.backfill).sort((x, y) => y.ts - x.ts)[0]?.backfill
    if (b) market.backfill = b
    // the node's last data message may be its last for a while: a status interval later it must have arrived
    if (s.dataSeq === undefined || s.dataSeq === 0) return
    const had = seen.get(s.node) ?? 0
    if (had >= s.dataSeq) return void owed.delete(s.node)
    const due = owed.get(s.node)
    if (due !== undefined && had < due) gap(`data message ${due} of a writer never arrived`, s.node)
    else owed.set(s.node, s.dataSeq)
  }

  const onLive = (e: LiveEvent) => {
    market.touch(e.exchange, e.ts)
    if (e.type === 'ticker') market.live.onTicker(e)
    else if (e.type === 'open_interest') market.live.onOpenInterest(e)
    else {
      market.live.onBook(e)
      market.live.dirtyBooks.clear() // an API node never writes books
    }
  }

  void bus
    .follow({ live: onLive, status: onStatus, data: onData, resync })
    .catch((err: unknown) => logger.error({ err }, 'bus follower could not start'))

  // coins imported elsewhere become valid parameters; the exchange rows (the newest events the writers stored) follow
  // the store every tick, for /readyz to see how far this node's bus lags behind; with the bus down, the series
  // follow the store too
  let ticks = 0
  const timer = setInterval(() => {
    ticks++
    if (ticks % 15 === 0) market.refreshCoins().catch(() => {})
    market.refreshExchanges().catch(() => {})
    if (!bus.connected && (ticks * DATA_TICK_MS) % RELOAD_WHILE_DOWN_MS === 0) resync()
  }, DATA_TICK_MS)
  timer.unref()

  return {
    statuses: () => [...statuses.values()],
    applied: () => applied,
    gaps: () => gaps,
    settled: async () => {
      for (let p = resyncing; ; p = resyncing) {
        await p
        if (p === resyncing) return
      }
    },
    stop: () => clearInterval(timer),
  }
}
