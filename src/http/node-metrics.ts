// The metrics of a node's role, read when Prometheus scrapes: ingest lag per venue (how old the newest event is),
// events ingested, bus messages published / failed / received, writer leases held, backfill progress, whether
// the bus and the shared limit store answer.
import { Counter, Gauge } from 'prom-client'
import type { MarketEvent } from '../domain/events.js'
import type { Services } from '../services.js'
import type { Metrics } from './metrics.js'

/** a counter that follows a running total kept elsewhere */
function followedCounter(metrics: Metrics, name: string, help: string, total: () => number): void {
  let seen = 0
  new Counter({
    name,
    help,
    registers: [metrics.registry],
    collect() {
      const now = total()
      if (now > seen) this.inc(now - seen)
      seen = now
    },
  })
}

/** register the role's metrics; returns the event counter to hand to the market runtime (ingest roles) */
export function registerNodeMetrics(metrics: Metrics, services: Services, writing: () => readonly string[] | null, follower: () => { gaps(): number } | null = () => null): (e: MarketEvent) => void {
  const { market, clock } = services
  const { registry } = metrics
  new Gauge({
    name: 'ingest_lag_seconds',
    help: 'Age of the newest market event per venue, seconds (the feed of an enabled venue)',
    labelNames: ['exchange'] as const,
    registers: [registry],
    collect() {
      this.reset()
      const now = clock()
      for (const e of market.enabled) {
        const last = market.lastEventAt(e)
        if (last !== null) this.set({ exchange: e }, Math.max(0, (now - last) / 1000))
      }
    },
  })
  new Gauge({
    name: 'backfill_percent',
    help: 'Share of the history backfill window that is complete',
    registers: [registry],
    collect() {
      this.set(market.backfillPercent())
    },
  })
  new Gauge({
    name: 'writer_leases',
    help: 'Venues whose writer lease this node holds (ingest on PostgreSQL)',
    labelNames: ['exchange'] as const,
    registers: [registry],
    collect() {
      this.reset()
      for (const e of writing() ?? []) this.set({ exchange: e }, 1)
    },
  })
  const bus = services.bus
  if (bus) {
    new Gauge({ name: 'bus_connected', help: '1 while connected to NATS', registers: [registry], collect() { this.set(bus.connected ? 1 : 0) } })
    followedCounter(metrics, 'bus_published_total', 'Messages published to the bus', () => bus.stats.published)
    followedCounter(metrics, 'bus_publish_failures_total', 'Bus publishes that failed or were not acknowledged', () => bus.stats.publishFailures)
    followedCounter(metrics, 'bus_received_total', 'Bus messages received (API nodes)', () => bus.stats.received)
    followedCounter(metrics, 'bus_streams_recreated_total', 'Times the streams were found lost by NATS (a restart) and made again, and the consumers with them', () => bus.stats.streamsRecreated)
    followedCounter(metrics, 'bus_data_gaps_total', 'API nodes: data messages of a writer that never arrived, each answered by reloading from the store', () => follower()?.gaps() ?? 0)
    if (services.config.ROLE === 'api')
      new Gauge({
        name: 'bus_lag_seconds',
        help: 'API nodes: how far the newest event seen over the bus trails the newest the store holds, per venue (over 15 s: /readyz answers 503)',
        labelNames: ['exchange'] as const,
        registers: [registry],
        collect() {
          this.reset()
          for (const [e, ms] of Object.entries(market.behindStore())) this.set({ exchange: e }, ms! / 1000)
        },
      })
  }
  // heavy calls (docs/operations.md#heavy-calls): the node's queue and what it refused
  const heavy = services.heavy
  new Gauge({ name: 'heavy_calls_running', help: 'Heavy calls running on this node', registers: [registry], collect() { this.set(heavy.stats().running) } })
  new Gauge({ name: 'heavy_calls_waiting', help: "Heavy calls waiting in this node's and its keys' queues", registers: [registry], collect() { this.set(heavy.stats().waiting) } })
  for (const scope of ['key', 'node'] as const)
    followedCounter(metrics, `heavy_calls_refused_${scope}_total`, `Heavy calls refused with 429 past the ${scope}'s queue`, () => heavy.stats().refused[scope])
  const limits = services.limits
  if (limits) {
    new Gauge({ name: 'limit_store_connected', help: '1 while the shared rate-limit store (Redis) is used; 0 while it is down and this node counts on its own', registers: [registry], collect() { this.set(limits.connected() ? 1 : 0) } })
    followedCounter(metrics, 'limit_store_outages_total', 'Redis outages noticed (the circuit opened)', () => limits.state().outages)
    followedCounter(metrics, 'limit_store_local_calls_total', 'Rate-limit counter calls answered by this node alone because Redis was down', () => limits.state().localCalls)
  }
  return (e) => metrics.marketEvents.inc({ exchange: e.exchange, type: e.type })
}
