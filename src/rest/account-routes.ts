// The account routes' router, built from the table in account-table.ts: body parsing, the key check, the query
// parse and the envelope around each handler. No credits are charged here.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express'
import { authenticate } from '../accounts/authenticate.js'
import { parseParams } from '../domain/params.js'
import { ApiError, toApiError } from '../errors.js'
import { BODY_LIMIT_BYTES, WEBHOOK_BODY_LIMIT_BYTES } from '../http/body-limit.js'
import type { Services } from '../services.js'
import { ACCOUNT_ROUTES, expressPath, type AccountRoute } from './account-table.js'
import { restJson, sendData, sendProblem } from './envelope.js'
import { signupLimiter } from './rate-limit.js'
import { dbLimitStore, failoverStore } from './rate-limit-db-store.js'

export function accountRouter(services: Services): express.Router {
  const router = express.Router()
  const { db, config } = services

  const json = express.json({ limit: BODY_LIMIT_BYTES, strict: true, type: () => true })
  /** parse a JSON body whatever the content type says, with a problem+json answer when it is not JSON */
  const jsonBody = (req: Request, res: Response, next: NextFunction) =>
    json(req, res, (err?: unknown) => {
      if (!err) return next()
      const e = err as { type?: string; status?: number }
      if (e.type === 'entity.too.large') return sendProblem(res, new ApiError('payload_too_large', `The request body is larger than ${BODY_LIMIT_BYTES / 1024} kB.`, { limit_bytes: BODY_LIMIT_BYTES }), res.locals.requestId)
      return sendProblem(res, new ApiError('invalid_request', 'The request body must be a JSON object.'), res.locals.requestId)
    })
  const rawBody = express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT_BYTES })

  const handler =
    (r: AccountRoute) =>
    async (req: Request, res: Response) => {
      const requestId = res.locals.requestId as string
      try {
        const principal = r.auth ? await authenticate(db.sql, req.headers.authorization, services.clock()) : null
        const query = r.query ? parseParams(r.query, req.query as Record<string, unknown>, { coins: [], now: 0 }) : {}
        const out = await r.handle({ services, req, principal, query })
        sendData(res, out.status ?? 200, restJson(out.data), { requestId, creditsCharged: 0, creditsRemaining: out.credits ?? principal?.credits ?? null, asOf: services.clock() })
      } catch (e) {
        const err = toApiError(e)
        if (err.status >= 500) services.logger.error({ err: e, requestId }, 'account request failed')
        sendProblem(res, err, requestId)
      }
    }

  for (const r of ACCOUNT_ROUTES) {
    const before: RequestHandler[] = []
    if (r.limited) {
      // per address across nodes and restarts: Redis when configured (the store while it does not answer), else the store
      const local = dbLimitStore(db.sql, 'signup:')
      const shared = services.limits?.store('signup:')
      before.push(signupLimiter(config.SIGNUP_LIMIT, services.auth, shared ? failoverStore(shared, local) : local))
    }
    if (r.body === 'json') before.push(jsonBody)
    if (r.body === 'raw') before.push(rawBody)
    router[r.method](expressPath(r.path), ...before, handler(r))
  }
  return router
}
