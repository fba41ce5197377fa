// The HTTP application: REST (/v1), GraphQL (/graphql), OpenAPI, health and metrics on one Express app.
import express, { type NextFunction, type Request, type Response } from 'express'
import helmet from 'helmet'
import { dashboardRouter } from './dashboard/router.js'
import { ApiError, toApiError } from './errors.js'
import { schema } from './graphql/schema/index.js'
import { createGraphQL } from './graphql/yoga.js'
import { createMetrics, type Metrics } from './http/metrics.js'
import { requestFront } from './http/request-front.js'
import { recordHeaders } from './http/security-headers.js'
import { accountRouter } from './rest/account-routes.js'
import { sendProblem } from './rest/envelope.js'
import { openApiDocument } from './rest/openapi.js'
import { authFailureLimiter, perKeyLimiter } from './rest/rate-limit.js'
import { ROUTES } from './rest/routes.js'
import { analyticsRouter } from './rest/shim.js'
import type { Services } from './services.js'

/** every method each known path answers, for 405s */
const KNOWN: [RegExp, string[]][] = [
  ...ROUTES.map((r): [RegExp, string[]] => [new RegExp(`^${r.path}/?$`), ['GET']]),
  [/^\/v1\/auth\/signup\/?$/, ['POST']],
  [/^\/v1\/auth\/keys\/?$/, ['GET', 'POST']],
  [/^\/v1\/auth\/keys\/[^/]+\/?$/, ['DELETE']],
  [/^\/v1\/account\/?$/, ['GET']],
  [/^\/v1\/account\/usage\/?$/, ['GET']],
  [/^\/v1\/billing\/webhook\/?$/, ['POST']],
  [/^\/dashboard\/?$/, ['GET']],
]

export function createApp(services: Services, metrics: Metrics = createMetrics()) {
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  app.set('trust proxy', 'loopback')
  app.set('query parser', 'simple')

  // GraphiQL (and the dashboard) run inline scripts from our own origin; everything else gets helmet's strict defaults
  const strict = recordHeaders(helmet())
  const explorer = recordHeaders(
    helmet({
      contentSecurityPolicy: {
        directives: { 'script-src': ["'self'", "'unsafe-inline'", "'unsafe-eval'", 'blob:'], 'worker-src': ["'self'", 'blob:'], 'img-src': ["'self'", 'data:', 'blob:'] },
      },
    }),
  )
  app.use(
    requestFront({
      logger: services.logger,
      metrics,
      headersFor: (req) => (req.path === '/graphql' || req.path.startsWith('/dashboard') ? explorer : strict),
      quietPaths: ['/healthz', '/metrics'],
    }),
  )

  // the metered analytics routes first: they are the hot path, and no other route shares their paths
  app.use(['/v1', '/graphql'], authFailureLimiter(services.config.AUTH_FAILURE_LIMIT), perKeyLimiter(services.config.RATE_LIMIT_RPS))
  app.use(analyticsRouter(services, schema))
  app.use(accountRouter(services))

  app.get('/healthz', async (_req, res) => {
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
    try {
      await services.db.sql.query('SELECT 1')
      res.json({ status: 'ok', store: services.db.kind, backfill })
    } catch {
      res.status(503).json({ status: 'unavailable', store: services.db.kind, backfill })
    }
  })
  app.get('/metrics', async (_req, res) => {
    res.set('Content-Type', metrics.registry.contentType).end(await metrics.registry.metrics())
  })
  const openapi = JSON.stringify(openApiDocument(services))
  app.get('/openapi.json', (_req, res) => res.type('json').end(openapi))
  app.use(dashboardRouter())

  const yoga = createGraphQL(services, schema)
  app.use('/graphql', yoga as never)

  app.use((req: Request, res: Response) => {
    const known = KNOWN.find(([re]) => re.test(req.path))
    if (known) {
      res.set('Allow', known[1].join(', '))
      return sendProblem(res, new ApiError('method_not_allowed', `${req.method} is not supported on ${req.path}; use ${known[1].join(' or ')}.`), res.locals.requestId)
    }
    sendProblem(res, new ApiError('not_found', `No endpoint at ${req.method} ${req.path.slice(0, 200)}. See /openapi.json for the API.`), res.locals.requestId)
  })
  // last resort: malformed requests that failed inside Express itself (e.g. bad URI encoding)
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = (err as { status?: number }).status
    const apiErr = status && status >= 400 && status < 500 ? new ApiError(status === 413 ? 'payload_too_large' : 'invalid_request', 'The request could not be read.') : toApiError(err)
    if (apiErr.status >= 500) services.logger.error({ err, requestId: res.locals.requestId, path: req.path }, 'unhandled error')
    if (!res.headersSent) sendProblem(res, apiErr, res.locals.requestId ?? 'unknown')
  })
  return app
}

/** malformed requests Node rejects before Express sees them (oversized headers, bad HTTP) still get problem+json */
export function answerClientErrors(server: import('node:http').Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy()
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW'
    const status = tooLarge ? 431 : 400
    const body = JSON.stringify({
      type: 'urn:perp-analytics:problem:invalid_request',
      title: tooLarge ? 'Request header fields too large' : 'Bad request',
      status,
      detail: tooLarge ? 'The request line or headers are larger than the server accepts (16 kB).' : 'The HTTP request could not be parsed.',
      code: 'invalid_request',
    })
    socket.end(`HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
  })
}
