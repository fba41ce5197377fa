// One build, three ways to run (ROLE): `all` — source, ingest, store writes and the API in one process (the
// default, on the embedded store); `ingest` — source, aggregation, store writes and bus publishing, with only the
// operator's routes over HTTP; `api` — HTTP and GraphQL, following the ingest nodes over the bus (no source).
import os from 'node:os'
import express from 'express'
import type { BackfillProgress } from './ingest/backfill.js'
import { followBus, type Follower } from './ingest/bus/follower.js'
import { eventKey } from './read/stream/hub.js'
import { startMarketRuntime, type MarketRuntime } from './sources/runtime.js'
import { createMetrics, type Metrics } from './http/metrics.js'
import { registerNodeMetrics } from './http/node-metrics.js'
import { opsRouter } from './http/ops-routes.js'
import { stopApp } from './server.js'
import { toApiError } from './errors.js'
import type { Services } from './services.js'

export interface RunningRole {
  metrics: Metrics
  runtime: MarketRuntime | null
  follower: Follower | null
  /** stop the source (writing what is pending) or the follower, then the bus and the limit store */
  stop(): Promise<void>
}

export async function startRole(services: Services, opts: { onProgress?: (p: BackfillProgress) => void } = {}): Promise<RunningRole> {
  const { config, logger } = services
  const node = `${config.ROLE}@${os.hostname()}:${process.pid}`
  // the bus and Redis clients are loaded only when configured: a single process on the embedded store starts without them
  if (config.NATS_URL) {
    const { NatsBus } = await import('./ingest/bus/nats-bus.js')
    const bus = new NatsBus(config.NATS_URL, config.BUS_PREFIX, logger.child({ component: 'bus' }), node, services.clock)
    services.bus = bus
    // push events go through the bus's stream, whose sequence numbers are their ids on every node
    const hub = services.market.stream
    hub.forward = (e) => bus.publishPush(e, eventKey(e))
    if (config.ROLE !== 'ingest') void bus.followPush((e) => hub.append(e)).catch((err: unknown) => logger.error({ err }, 'push channels could not follow the bus'))
  }
  if (config.REDIS_URL && config.ROLE !== 'ingest') services.limits = (await import('./rest/rate-limit-store.js')).redisLimitStores(config.REDIS_URL, logger, config.BUS_PREFIX, services.clock, config.REDIS_COMMAND_TIMEOUT_MS)
  // a node with Redis configured starts on the shared counters (stream caps included) when Redis answers within its connect timeout
  await services.limits?.ready?.(2_000)
  const metrics = createMetrics(config.ROLE)
  let runtime: MarketRuntime | null = null
  let follower: Follower | null = null
  const onEvent = registerNodeMetrics(metrics, services, () => runtime?.leases?.writing() ?? null, () => follower)
  if (config.ROLE === 'api') follower = followBus(services.bus!, services.market, services.db, logger.child({ component: 'follower' }))
  else runtime = await startMarketRuntime(services, { onProgress: opts.onProgress, onEvent })
  const leases = runtime?.leases
  services.writing = leases ? () => leases.writing() : null
  return {
    metrics,
    runtime,
    follower,
    async stop() {
      follower?.stop()
      try {
        await runtime?.stop()
      } finally {
        await services.bus?.close()
        await services.limits?.close()
      }
    },
  }
}

/**
 * The rest of a shutdown once HTTP serves no more requests, in the order that leaves nothing reading a closed store:
 * the app's timers (alerts, push signals, views; the rounds under way finish), then the source (writing what is
 * pending), then the hot series left for the next start, then the store.
 */
export async function stopNode(services: Services, app: express.Express, running: Pick<RunningRole, 'stop'>): Promise<boolean> {
  const { logger } = services
  await stopApp(app)
  logger.info('flushing market data')
  try {
    await running.stop()
  } catch (err) {
    // the store refused the last write (unreachable, or re-created empty under the service): say so and close anyway
    logger.error({ err, reason: toApiError(err).detail }, 'the final flush failed: the market data pending at shutdown was not written')
    await services.db.close().catch(() => {})
    return false
  }
  // everything is written: the hot series now mirror the store as it closes, and the next start takes them from here
  await services.market.leaveSeries().catch((err: unknown) => logger.warn({ err }, 'the hot series could not be left for the next start'))
  await services.db.close()
  return true
}

/** an ingest node's HTTP: only /healthz, /readyz and /metrics */
export function createOpsApp(services: Services, metrics: Metrics): express.Express {
  const app = express()
  app.disable('x-powered-by')
  app.use(opsRouter(services, metrics, () => (_req, _res, next) => next()))
  app.use((_req, res) => res.status(404).json({ status: 404, detail: 'An ingest node answers /healthz, /readyz and /metrics only.' }))
  return app
}
