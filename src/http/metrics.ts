// Prometheus metrics at /metrics (prom-client): process defaults, HTTP latency by route, credits charged, and
// per role (every series carries `role`): ingest lag per venue, events, bus publishes and failures, writer leases,
// backfill progress (node-metrics.ts registers those).
import type { Request, Response } from 'express'
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

export function createMetrics(role = 'all') {
  const registry = new Registry()
  registry.setDefaultLabels({ role })
  collectDefaultMetrics({ register: registry })
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  })
  const creditsCharged = new Counter({ name: 'credits_charged_total', help: 'Credits charged, by endpoint', labelNames: ['endpoint'] as const, registers: [registry] })
  const marketEvents = new Counter({ name: 'market_events_total', help: 'Normalized market events ingested', labelNames: ['exchange', 'type'] as const, registers: [registry] })

  /** one finished request: latency by route pattern and status, and the credits it charged */
  const observe = (req: Request, res: Response, seconds: number): void => {
    // the matched route pattern, never the raw URL (unbounded label values)
    const route = String((res.locals.route as string | undefined) ?? (req.route?.path as string | undefined) ?? (req.baseUrl || (res.statusCode === 404 ? 'unmatched' : req.path.split('/').slice(0, 3).join('/'))))
    httpDuration.observe({ method: req.method, route, status: String(res.statusCode) }, seconds)
    const charged = Number(res.getHeader('X-Credits-Charged') ?? 0)
    if (charged > 0) creditsCharged.inc({ endpoint: route }, charged)
  }
  return { registry, observe, marketEvents }
}
export type Metrics = ReturnType<typeof createMetrics>
