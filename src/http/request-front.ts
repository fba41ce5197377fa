// Everything every request gets before routing, in one middleware with one completion listener: its request id,
// the security headers, and — when it finishes — its log line and its latency metric. (Separate middlewares
// with a listener each were a measurable share of a cheap analytics call; docs/performance.md.)
import { randomUUID } from 'node:crypto'
import type { Request, RequestHandler, Response } from 'express'
import type { Logger } from 'pino'
import type { Metrics } from './metrics.js'
import { logRequest } from './request-log.js'

const VALID_ID = /^[A-Za-z0-9._:-]{8,64}$/

export interface FrontOptions {
  logger: Logger
  metrics: Metrics
  /** the security headers for a request (recorded once per policy, see security-headers.ts) */
  headersFor(req: Request): ReadonlyArray<readonly [string, string]>
  /** paths whose successes are never logged (health checks, scrapes) */
  quietPaths?: readonly string[]
  /** also called when a request finishes (the failed-authentication counter), from the same listener */
  onFinish?: (req: Request, res: Response) => void
}

export function requestFront(opts: FrontOptions): RequestHandler {
  const quiet = new Set(opts.quietPaths ?? [])
  return (req, res, next) => {
    const start = performance.now()
    // every response carries X-Request-Id: the caller's own (when sane) or a new UUID
    const given = req.headers['x-request-id']
    const id = typeof given === 'string' && VALID_ID.test(given) ? given : randomUUID()
    res.locals.requestId = id
    res.setHeader('X-Request-Id', id)
    for (const [name, value] of opts.headersFor(req)) res.setHeader(name, value)
    let done = false
    const finish = () => {
      if (done) return
      done = true
      const seconds = (performance.now() - start) / 1000
      opts.metrics.observe(req, res, seconds)
      opts.onFinish?.(req, res)
      logRequest(opts.logger, req, res, seconds, quiet.has(req.path))
    }
    res.once('finish', finish)
    res.once('close', finish)
    next()
  }
}
