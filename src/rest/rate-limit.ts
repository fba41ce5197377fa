// Rate limits via express-rate-limit: per API key (RATE_LIMIT_RPS per second; 0 = off), and per client
// IP for failed authentications (AUTH_FAILURE_LIMIT per minute) so keys cannot be brute-forced.
// Counters are in process: behind a load balancer each node limits its own share (docs/operations.md).
import { createHash } from 'node:crypto'
import type { Request, RequestHandler, Response } from 'express'
import { ipKeyGenerator, rateLimit } from 'express-rate-limit'
import { bearerToken } from '../accounts/api-keys.js'
import { ApiError } from '../errors.js'
import { sendProblem } from './envelope.js'

const reject = (what: string) => (req: Request, res: Response) => {
  const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime
  const retryAfter = Math.max(1, Math.ceil(((reset?.getTime() ?? Date.now() + 1000) - Date.now()) / 1000))
  sendProblem(res, new ApiError('rate_limited', `${what}; retry after ${retryAfter} s.`, { retry_after: retryAfter }), res.locals.requestId as string)
}

const clientIp = (req: Request) => ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown')

/** keyed by the presented key (hashed, so secrets never sit in the limiter's store), else by client IP */
export function perKeyLimiter(perSecond: number): RequestHandler {
  if (perSecond <= 0) return (_req, _res, next) => next()
  return rateLimit({
    windowMs: 1000,
    limit: Math.max(1, Math.round(perSecond)),
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    keyGenerator: (req) => {
      const token = bearerToken(req.headers.authorization)
      return token ? `k:${createHash('sha256').update(token).digest('base64url')}` : `ip:${clientIp(req)}`
    },
    handler: reject(`Rate limit of ${perSecond} requests per second per API key exceeded`),
  })
}

/** counts only responses that were 401: a client guessing keys is stopped, honest clients never notice */
export function authFailureLimiter(perMinute: number): RequestHandler {
  if (perMinute <= 0) return (_req, _res, next) => next()
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    standardHeaders: false,
    legacyHeaders: false,
    keyGenerator: (req) => `authfail:${clientIp(req)}`,
    requestWasSuccessful: (_req, res) => res.statusCode !== 401,
    skipSuccessfulRequests: true,
    handler: reject(`Too many requests with an invalid API key from this address (limit ${perMinute} per minute)`),
  })
}
