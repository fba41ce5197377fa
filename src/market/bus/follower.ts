// An API node follows the ingest nodes: live tickers, open interest and books from the bus into its LiveMarket;
// every store write's rows into its hot series and its data version into the read memo (so the caches drop);
// venues and backfill progress from the ingest nodes' status. When the bus was cut off (or is down) the series
// are reloaded from the store, which stays the truth.
import type { Logger } from 'pino'
import type { ExchangeId } from '../../domain/exchanges.js'
import type { Database } from '../../store/database.js'
import type { DataKind } from '../reader.js'
import { DATA_TICK_MS, type MarketState } from '../state.js'
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
  stop(): void
}

export function followBus(bus: NatsBus, market: MarketState, db: Database, logger: Logger): Follower {
  const statuses = new Map<string, StatusMessage>()
  let queue: DataMessage[] | null = null
  let resyncing: Promise<void> = Promise.resolve()
  let applied = 0
  // the push channels come over the bus (numbered by its stream), not from the live state this node mirrors
  market.live.listener = null

  const apply = (m: DataMessage) => {
    market.series.apply({ minuteBars: m.minuteBars.map(toMinuteBar), hourBars: m.hourBars.map(toMinuteBar), samples: m.samples }, market.clock())
    for (const k of m.kinds) market.reader.bump(k, m.from?.[k] ?? Number.NEGATIVE_INFINITY)
    applied++
  }

  const resync = () => {
    resyncing = resyncing.then(async () => {
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

  const onStatus = (s: StatusMessage) => {
    statuses.set(s.node, s)
    const all = [...statuses.values()]
    market.enabled.clear()
    for (const st of all) for (const e of st.enabled) market.enabled.add(e)
    for (const [e, ts] of Object.entries(s.lastEvent)) market.touch(e as ExchangeId, ts)
    // the backfill this deployment runs: reported by the node running it (the newest report wins)
    const b = all.filter((st) => st.backfill).sort((x, y) => y.ts - x.ts)[0]?.backfill
    if (b) market.backfill = b
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
    .follow({ live: onLive, status: onStatus, data: (m) => (queue ? queue.push(m) : apply(m)), resync })
    .catch((err: unknown) => logger.error({ err }, 'bus follower could not start'))

  // coins imported elsewhere become valid parameters; the exchange rows (last events) follow the store; with the
  // bus down, the series follow the store too
  let ticks = 0
  const timer = setInterval(() => {
    ticks++
    if (ticks % 15 === 0) market.refreshCoins().catch(() => {})
    if (ticks % 5 === 0) market.refreshExchanges().catch(() => {})
    if (!bus.connected && (ticks * DATA_TICK_MS) % RELOAD_WHILE_DOWN_MS === 0) resync()
  }, DATA_TICK_MS)
  timer.unref()

  return {
    statuses: () => [...statuses.values()],
    applied: () => applied,
    stop: () => clearInterval(timer),
  }
}
