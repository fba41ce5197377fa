// /healthz and /metrics: the operator's endpoints, outside /v1 and without an API key.
import { timingSafeEqual, createHash } from 'node:crypto'
import net from 'node:net'
import type { Request, RequestHandler, Response } from 'express'
import express from 'express'
import { bearerToken } from '../accounts/api-keys.js'
import { TICKER_STALE_MS } from '../analytics/ticker.js'
import { ApiError } from '../errors.js'
import { sendProblem } from '../rest/envelope.js'
import type { Services } from '../services.js'
import type { StoreCheck } from '../store/database.js'
import type { Metrics } from './metrics.js'

/** /healthz answers within this, whatever the store does */
const HEALTH_TIMEOUT_MS = 800
/** an API node whose bus trails the store by more than this is not ready: the age at which a ticker counts as stale */
export const BUS_STALE_MS = TICKER_STALE_MS

const LOOPBACK = new net.BlockList()
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4')
LOOPBACK.addAddress('::1', 'ipv6')

/** the client address (req.ip: the socket's, or the last untrusted hop when TRUST_PROXY names the proxy) is loopback */
function isLoopback(address: string | undefined): boolean {
  if (!address) return false
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address
  if (net.isIPv4(v4)) return LOOPBACK.check(v4, 'ipv4')
  return net.isIPv6(address) && LOOPBACK.check(address, 'ipv6')
}

const digest = (s: string) => createHash('sha256').update(s).digest()
const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b))

/** may this request read /metrics? With METRICS_TOKEN: the bearer token; without: loopback clients only */
function metricsAllowed(req: Request, token: string | undefined): boolean {
  if (!token) return isLoopback(req.ip)
  const given = bearerToken(req.headers.authorization)
  return given !== null && sameSecret(given, token)
}

/** why the store cannot serve, in a sentence for the operator */
const storeReason = (s: StoreCheck) =>
  !s.reachable
    ? `the store did not answer within ${HEALTH_TIMEOUT_MS} ms`
    : "the store answers but holds none of the service's tables: it was re-created or emptied under the running service; restart the service to migrate it"

export function opsRouter(services: Services, metrics: Metrics, gateFor: (valid: (req: Request) => boolean) => RequestHandler): express.Router {
  const router = express.Router()
  const token = services.config.METRICS_TOKEN

  router.get('/healthz', async (_req, res) => {
    const store = await services.db.check(HEALTH_TIMEOUT_MS)
    const ok = store.reachable && store.tables
    const b = services.market.backfill
    const backfill = b && {
      percent: Math.round(services.market.backfillPercent() * 10) / 10,
      done: b.done,
      complete_from: b.completeFrom,
      window_from: b.windowFrom,
      window_to: b.windowTo,
      chunks: b.chunks,
      chunks_done: b.chunksDone,
    }
    // live venues: the history backfill per venue and kind (pages done and left, span covered, holes, budget waits)
    const history = services.market.historyStatus?.() ?? null
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'unavailable', store: services.db.kind, ...(ok ? {} : { reason: storeReason(store) }), backfill, history })
  })

  // readiness for a load balancer or supervisor: ready when the store answers and, with a bus configured, the bus
  // is connected and (API nodes) what it brought is not staler than the store by more than BUS_STALE_MS; backfill
  // progress, venues, leases and the shared limit store are reported, not required (without Redis the node serves
  // on its own counters: `degraded` says so)
  router.get('/readyz', async (_req, res) => {
    const { market, config, bus, limits } = services
    const now = services.clock()
    const checked = await services.db.check(HEALTH_TIMEOUT_MS)
    const store = checked.reachable
    const busUp = bus ? bus.connected : null
    const lag = bus && config.ROLE === 'api' ? market.behindStore() : {}
    const behind = Object.entries(lag).filter(([, ms]) => ms! > BUS_STALE_MS).map(([e]) => e)
    const ready = checked.tables && busUp !== false && behind.length === 0
    const limitStore = limits?.state() ?? null
    const venues = Object.fromEntries([...market.enabled].map((e) => [e, market.status(e, now)]))
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'not_ready',
      role: config.ROLE,
      store: { kind: services.db.kind, reachable: store, tables: checked.tables, ...(checked.tables ? {} : { reason: storeReason(checked) }) },
      bus: bus ? { connected: busUp, prefix: bus.prefix, ...(config.ROLE === 'api' ? { lag_ms: lag, stale_after_ms: BUS_STALE_MS, behind } : {}) } : null,
      limit_store: limitStore && { connected: limitStore.connected, down_since: limitStore.downSince, counters: limitStore.connected ? 'shared' : 'this node' },
      degraded: limitStore && !limitStore.connected ? ['limit_store'] : [],
      backfill_percent: Math.round(market.backfillPercent() * 10) / 10,
      history: market.historyStatus?.() ?? null,
      venues,
      venues_up: Object.values(venues).filter((s) => s === 'operational').length,
      writing: services.writing?.() ?? null,
    })
  })

  const guard: RequestHandler = (req: Request, res: Response, next) => {
    if (metricsAllowed(req, token)) return next()
    if (token) res.set('WWW-Authenticate', 'Bearer realm="metrics"')
    const detail = token
      ? '/metrics requires "Authorization: Bearer <METRICS_TOKEN>".'
      : '/metrics answers loopback clients only; set METRICS_TOKEN on the service to scrape it from elsewhere with that bearer token.'
    sendProblem(res, new ApiError('unauthorized', detail), res.locals.requestId as string)
  }
  router.get('/metrics', gateFor((req) => metricsAllowed(req, token)), guard, async (_req, res) => {
    res.set('Content-Type', metrics.registry.contentType).end(await metrics.registry.metrics())
  })
  return router
}
