// One log line per finished request, at a level chosen from its outcome (errors at error, client errors at
// info, successes at debug). Nothing is built for a request whose line would not be written: pino-http makes a
// child logger with a serialized, redacted copy of every request up front, which was a fifth of the CPU time of
// a cheap analytics call (docs/performance.md). Secret-bearing headers never reach the log.
import type { IncomingHttpHeaders } from 'node:http'
import type { Request, RequestHandler, Response } from 'express'
import type { Logger } from 'pino'

export const REDACTED_HEADERS: readonly string[] = ['authorization', 'cookie', 'stripe-signature']

function redactHeaders(headers: IncomingHttpHeaders): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const k in headers) out[k] = REDACTED_HEADERS.includes(k) ? '[redacted]' : headers[k]
  return out
}

export interface RequestLogOptions {
  /** requests never logged on success (health checks, scrapes) */
  quietPaths?: readonly string[]
}

export function requestLog(logger: Logger, opts: RequestLogOptions = {}): RequestHandler {
  const quiet = new Set(opts.quietPaths ?? [])
  return (req, res, next) => {
    const start = performance.now()
    let done = false
    const finish = () => {
      if (done) return
      done = true
      const status = res.statusCode
      const aborted = !res.writableFinished
      const level = status >= 500 ? 'error' : status >= 400 || aborted ? 'info' : quiet.has(req.path) ? null : 'debug'
      if (level === null || !logger.isLevelEnabled(level)) return
      logger[level](
        {
          req: requestRecord(req, res),
          res: { statusCode: status },
          responseTime: Math.round(performance.now() - start),
          ...(aborted ? { aborted: true } : {}),
        },
        aborted ? 'request aborted' : status >= 500 ? 'request errored' : 'request completed',
      )
    }
    res.once('finish', finish)
    res.once('close', finish)
    next()
  }
}

function requestRecord(req: Request, res: Response) {
  return {
    id: res.getHeader('X-Request-Id') as string | undefined,
    method: req.method,
    url: req.originalUrl.slice(0, 2000),
    headers: redactHeaders(req.headers),
    remoteAddress: req.socket?.remoteAddress,
    remotePort: req.socket?.remotePort,
  }
}
