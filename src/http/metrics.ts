// Prometheus metrics at /metrics (prom-client): process defaults, HTTP latency by route, credits charged.
import type { RequestHandler } from 'express'
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

export function createMetrics() {
  const registry = new Registry()
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

  const middleware: RequestHandler = (req, res, next) => {
    const end = httpDuration.startTimer()
    res.on('finish', () => {
      // the matched route pattern, never the raw URL (unbounded label values)
      const route = (req.route?.path as string | undefined) ?? (req.baseUrl || (res.statusCode === 404 ? 'unmatched' : req.path.split('/').slice(0, 3).join('/')))
      end({ method: req.method, route: String(route), status: String(res.statusCode) })
      const charged = Number(res.getHeader('X-Credits-Charged') ?? 0)
      if (charged > 0) creditsCharged.inc({ endpoint: String(route) }, charged)
    })
    next()
  }
  return { registry, middleware, marketEvents }
}
export type Metrics = ReturnType<typeof createMetrics>
