// One log line per finished request, at a level chosen from its outcome (errors at error, client errors at
// info, successes at debug). Nothing is built for a request whose line would not be written: pino-http makes a
// child logger with a serialized, redacted copy of every request up front, which was a fifth of the CPU time of
// a cheap analytics call (docs/performance.md). Secret-bearing headers never reach the log.
import type { IncomingHttpHeaders } from 'node:http'
import type { Request, Response } from 'express'
import type { Logger } from 'pino'

const REDACTED_HEADERS: readonly string[] = ['authorization', 'cookie', 'stripe-signature']

function redactHeaders(headers: IncomingHttpHeaders): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const k in headers) out[k] = REDACTED_HEADERS.includes(k) ? '[redacted]' : headers[k]
  return out
}

/** log a request that finished (or was aborted) after `seconds`; successes of `quiet` requests are not logged */
export function logRequest(logger: Logger, req: Request, res: Response, seconds: number, quiet = false): void {
  const status = res.statusCode
  const aborted = !res.writableFinished
  const level = status >= 500 ? 'error' : status >= 400 || aborted ? 'info' : quiet ? null : 'debug'
  if (level === null || !logger.isLevelEnabled(level)) return
  logger[level](
    {
      req: {
        id: res.getHeader('X-Request-Id') as string | undefined,
        method: req.method,
        url: req.originalUrl.slice(0, 2000),
        headers: redactHeaders(req.headers),
        remoteAddress: req.socket?.remoteAddress,
        remotePort: req.socket?.remotePort,
      },
      res: { statusCode: status },
      responseTime: Math.round(seconds * 1000),
      ...(aborted ? { aborted: true } : {}),
    },
    aborted ? 'request aborted' : status >= 500 ? 'request errored' : 'request completed',
  )
}
