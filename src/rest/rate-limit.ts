// Rate limits via express-rate-limit: per API key (RATE_LIMIT_RPS per second; 0 = off), and per client
// address for failed authentications (AUTH_FAILURE_LIMIT per minute), a guard against key guessing.
// Counters are in process, or shared by every API node in Redis when REDIS_URL is set (rate-limit-store.ts).
import { createHash } from 'node:crypto'
import type { Request, RequestHandler, Response } from 'express'
import { ipKeyGenerator, MemoryStore, rateLimit, type Store } from 'express-rate-limit'
import { bearerToken, isWellFormedKey } from '../accounts/api-keys.js'
import type { AuthCache } from '../accounts/auth-cache.js'
import { ApiError } from '../errors.js'
import { sendProblem } from './envelope.js'

const clientIp = (req: Request) => ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown')

const secondsUntil = (reset: Date | undefined) => Math.max(1, Math.ceil(((reset?.getTime() ?? Date.now() + 1000) - Date.now()) / 1000))

/**
 * A 429 like every other answer: problem+json with Retry-After, and — when the caller's key is valid — the same
 * X-Credits-Charged / X-Credits-Remaining headers a 200 carries (the key lookup is the short-lived cached one).
 */
async function sendRateLimited(auth: AuthCache, req: Request, res: Response, detail: string, retryAfter: number): Promise<void> {
  res.set('X-Credits-Charged', '0')
  if (bearerToken(req.headers.authorization)) {
    const principal = await auth.authenticate(req.headers.authorization).catch(() => null)
    if (principal) res.set('X-Credits-Remaining', String(principal.credits))
  }
  sendProblem(res, new ApiError('rate_limited', `${detail}; retry after ${retryAfter} s.`, { retry_after: retryAfter }), res.locals.requestId as string)
}

/** keyed by the presented key (hashed, so secrets never sit in the limiter's store), else by client address */
export function perKeyLimiter(perSecond: number, auth: AuthCache, store?: Store): RequestHandler {
  if (perSecond <= 0) return (_req, _res, next) => next()
  const what = `Rate limit of ${perSecond} requests per second per API key exceeded`
  return rateLimit({
    // a shared store that does not answer lets the request through (fail open)
    ...(store ? { store, passOnStoreError: true } : {}),
    windowMs: 1000,
    limit: Math.max(1, Math.round(perSecond)),
    // RateLimit-Policy and RateLimit on every answer, Retry-After on a 429 (set by the library)
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    keyGenerator: (req) => {
      const token = bearerToken(req.headers.authorization)
      return token ? `k:${createHash('sha256').update(token).digest('base64url')}` : `ip:${clientIp(req)}`
    },
    handler: (req, res) => {
      const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime
      return sendRateLimited(auth, req, res, what, secondsUntil(reset))
    },
  })
}

export interface AuthFailureGuard {
  /** in front of the authenticated routes: refuses an address over its failure budget, unless the key is valid */
  gate: RequestHandler
  /** the same for a route with its own credential: `valid` says whether the request carries it */
  gateFor(valid: (req: Request) => boolean): RequestHandler
  /** called once per finished request: a 401 answered counts one failure for its address */
  observe(req: Request, res: Response): void
}

/**
 * Failed authentications per client address, counted when a 401 is answered (never when a request arrives, so
 * any number of requests in flight costs nothing). An address over the budget is refused with 429 before any
 * store work when it presents no well-formed key; a well-formed key is looked up (the cached lookup every
 * analytics call makes) and a valid one always passes — other clients behind the same address cannot lock it
 * out — while an invalid one gets 429 instead of 401 until the window ends.
 */
export function authFailureGuard(perMinute: number, auth: AuthCache, shared?: Store): AuthFailureGuard {
  if (perMinute <= 0) return { gate: (_req, _res, next) => next(), gateFor: () => (_req, _res, next) => next(), observe: () => {} }
  const windowMs = 60_000
  const counters: Store = shared ?? new MemoryStore()
  void counters.init?.({ windowMs } as never)
  // a shared store that does not answer counts nothing (fail open, like the per-key limiter)
  const store = {
    get: (key: string) => Promise.resolve(counters.get?.(key)).catch(() => undefined),
    increment: (key: string) => Promise.resolve(counters.increment(key)).catch(() => undefined),
  }
  const keyOf = (req: Request) => `authfail:${clientIp(req)}`
  const what = `Too many requests with an invalid API key from this address (limit ${perMinute} per minute)`

  const refuse = (req: Request, res: Response, resetTime: Date) => {
    const retryAfter = secondsUntil(resetTime)
    // the same RateLimit fields express-rate-limit writes (IETF draft 7), for this policy
    res.set('RateLimit-Policy', `${perMinute};w=${windowMs / 1000}`)
    res.set('RateLimit', `limit=${perMinute}, remaining=0, reset=${retryAfter}`)
    return sendRateLimited(auth, req, res, what, retryAfter)
  }

  const gate: RequestHandler = (req, res, next) => {
    void (async () => {
      const seen = await store.get(keyOf(req))
      if (!seen || seen.totalHits < perMinute) return next()
      const token = bearerToken(req.headers.authorization)
      if (!token || !isWellFormedKey(token)) return refuse(req, res, seen.resetTime!)
      try {
        await auth.authenticate(req.headers.authorization)
        return next()
      } catch (e) {
        // a store failure is the route's to answer (503); only a refused key is held back here
        if (e instanceof ApiError && e.code === 'unauthorized') return refuse(req, res, seen.resetTime!)
        return next()
      }
    })().catch(next)
  }

  const gateFor = (valid: (req: Request) => boolean): RequestHandler => (req, res, next) => {
    void store.get(keyOf(req)).then((seen) => (!seen || seen.totalHits < perMinute || valid(req) ? next() : refuse(req, res, seen.resetTime!)), next)
  }

  return {
    gate,
    gateFor,
    observe(req, res) {
      if (res.statusCode === 401) void store.increment(keyOf(req))
    },
  }
}

/**
 * Signups per client address per hour (the trial-credit guard). Counted when a signup arrives and given back when
 * it fails, so parallel attempts cannot slip past the count; the address is the socket's unless TRUST_PROXY names
 * the proxy in front, so a forged X-Forwarded-For changes nothing. The counts live in `store` (Redis, and the
 * store when Redis does not answer; the store alone without Redis): one count per address across nodes and restarts.
 */
export function signupLimiter(perHour: number, auth: AuthCache, store: Store): RequestHandler {
  if (perHour <= 0) return (_req, _res, next) => next()
  return rateLimit({
    store,
    windowMs: 3_600_000,
    limit: perHour,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    skipFailedRequests: true,
    keyGenerator: (req) => `signup:${clientIp(req)}`,
    handler: (req, res) => {
      const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime
      return sendRateLimited(auth, req, res, `At most ${perHour} signups per hour from one address`, secondsUntil(reset))
    },
  })
}
