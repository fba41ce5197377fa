// The HTTP application: REST (/v1), GraphQL (/graphql), OpenAPI, health and metrics on one Express app.
import compression from 'compression'
import express, { type NextFunction, type Request, type Response } from 'express'
import helmet from 'helmet'
import { dashboardRouter } from './dashboard/router.js'
import { ApiError, toApiError } from './errors.js'
import { graphiqlDefaultQuery, graphiqlDefaultVariables } from './dashboard/explorer.js'
import { COST_TABLE, ENDPOINTS as ROUTES, schema } from './endpoints/index.js'
import { createGraphQL } from './graphql/yoga.js'
import { bodyLimit } from './http/body-limit.js'
import { corsByPath } from './http/cors.js'
import { createMetrics, type Metrics } from './http/metrics.js'
import { opsRouter } from './http/ops-routes.js'
import { requestFront } from './http/request-front.js'
import { recordHeaders } from './http/security-headers.js'
import { accountRouter } from './rest/account-routes.js'
import { accountBrowserPaths, accountMethods } from './rest/account-table.js'
import { sendProblem } from './rest/envelope.js'
import { openApiDocument } from './rest/openapi.js'
import { authFailureGuard, perKeyLimiter } from './rest/rate-limit.js'
import { alertEngine } from './push/alerts.js'
import { signalSource } from './push/signals.js'
import { stopTickViews } from './read/tick-views.js'
import { STREAM_PATH, streamRoute } from './push/stream-route.js'
import { analyticsRouter } from './rest/shim.js'
import type { Services } from './services.js'

/** every method each known path answers, for 405s */
const KNOWN: [RegExp, string[]][] = [
  ...ROUTES.map((r): [RegExp, string[]] => [new RegExp(`^${r.path}/?$`), ['GET']]),
  ...accountMethods(),
  [new RegExp(`^${STREAM_PATH}/?$`), ['GET']],
  [/^\/dashboard\/?$/, ['GET']],
]

/** the /v1 paths a browser may call with GET (analytics and the caller's own account, keys and usage) */
const CORS_GET_PATHS = [...ROUTES.map((r) => r.path), STREAM_PATH, ...accountBrowserPaths()]

/** what each app runs on timers that read the store, stopped by stopApp */
const timed = new WeakMap<express.Express, () => Promise<void>>()

/**
 * Stop what the app runs on timers against the store (the alert engine, the push signals, the all-coins views),
 * waiting for the rounds under way: called once it serves no more requests and before the store closes.
 */
export const stopApp = (app: express.Express): Promise<void> => timed.get(app)?.() ?? Promise.resolve()

export function createApp(services: Services, metrics: Metrics = createMetrics()) {
  const { config } = services
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  // X-Forwarded-For is believed only from the proxies TRUST_PROXY names (default none: the socket's address)
  app.set('trust proxy', config.TRUST_PROXY.length ? config.TRUST_PROXY : false)
  app.set('query parser', 'simple')
  // REDIS_URL: the counters are shared by every API node
  const authFailures = authFailureGuard(config.AUTH_FAILURE_LIMIT, services.auth, services.limits?.store('authfail:'))

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
      onFinish: authFailures.observe,
    }),
  )
  app.use(bodyLimit())
  // answers over 1 KB are gzip/deflate/br-compressed when the caller accepts it (docs/contract.md#compression)
  // (event streams are never compressed: compression buffers, and each event must leave as it happens)
  app.use(compression({ threshold: 1024, filter: (req, res) => !String(res.getHeader('Content-Type') ?? '').startsWith('text/event-stream') && compression.filter(req, res) }))
  // preflights are answered here, before any limiter or key check (a browser sends no Authorization on them)
  app.use(corsByPath(config.CORS_ORIGINS, CORS_GET_PATHS, '/graphql'))

  // the metered analytics routes first: they are the hot path, and no other route shares their paths
  app.use(['/v1', '/graphql'], authFailures.gate, perKeyLimiter(config.RATE_LIMIT_RPS, services.auth, services.limits?.store('key:')))
  const signals = signalSource(services, schema)
  const alerts = alertEngine(services, signals)
  // the alert engine reads the signals' values: it stops first
  timed.set(app, async () => {
    await alerts.stop()
    await signals.stop()
    await stopTickViews(services.market)
    // the analytics threads: a call under way has had its answer by now
    await services.analytics.close()
    // the charges answered so far written, the unused leases handed back to their accounts
    await services.charges.close()
  })
  app.use(streamRoute(services))
  app.use(analyticsRouter(services, schema))
  app.use(accountRouter(services))
  app.use(opsRouter(services, metrics, authFailures.gateFor))
  const openapi = JSON.stringify(openApiDocument(services))
  app.get('/openapi.json', (_req, res) => res.type('json').end(openapi))
  app.use(dashboardRouter())

  const yoga = createGraphQL(services, schema, { costs: COST_TABLE, explorer: { query: graphiqlDefaultQuery(schema), variables: graphiqlDefaultVariables() } })
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
