// Request bodies are capped before any route, limiter or authentication work: a declared Content-Length over the
// route's limit is refused at once, without reading the body. The parsers behind (express.json, express.raw,
// graphql-yoga's maxRequestBodySize) enforce the same limits while streaming, for chunked bodies.
import type { RequestHandler } from 'express'
import { ApiError } from '../errors.js'
import { sendProblem } from '../rest/envelope.js'

/** every route but the payment webhook (whose provider's events are larger) */
export const BODY_LIMIT_BYTES = 16 * 1024
export const WEBHOOK_BODY_LIMIT_BYTES = 256 * 1024
/** /graphql: the explorer sends its whole default document (every stored operation) with each run */
export const GRAPHQL_BODY_LIMIT_BYTES = 64 * 1024
const WEBHOOK_PATH = '/v1/billing/webhook'

const bodyLimitFor = (path: string) =>
  path === WEBHOOK_PATH || path === `${WEBHOOK_PATH}/` ? WEBHOOK_BODY_LIMIT_BYTES : path === '/graphql' || path === '/graphql/' ? GRAPHQL_BODY_LIMIT_BYTES : BODY_LIMIT_BYTES

const kb = (n: number) => `${n / 1024} kB`

export function bodyLimit(): RequestHandler {
  return (req, res, next) => {
    const declared = req.headers['content-length']
    if (declared === undefined) return next()
    const limit = bodyLimitFor(req.path)
    if (!/^\d+$/.test(declared) || Number(declared) <= limit) return next()
    // the body is never read: the connection cannot be reused for another request
    res.set('Connection', 'close')
    sendProblem(res, new ApiError('payload_too_large', `The request body is larger than ${kb(limit)}.`, { limit_bytes: limit }), res.locals.requestId as string)
  }
}
