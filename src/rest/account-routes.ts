// Signup, keys, account and the billing webhook. No credits are charged here.
import express, { type NextFunction, type Request, type Response } from 'express'
import { createKey, getAccount, listKeys, revokeKey, signup, usage } from '../accounts/accounts.js'
import { authenticate, type Principal } from '../accounts/authenticate.js'
import { applyWebhookEvent, verifyWebhook } from '../accounts/billing.js'
import { ApiError, toApiError } from '../errors.js'
import { BODY_LIMIT_BYTES, WEBHOOK_BODY_LIMIT_BYTES } from '../http/body-limit.js'
import type { Services } from '../services.js'
import { sendData, sendProblem } from './envelope.js'
import { intParam, parseParams } from '../domain/params.js'
import { z } from 'zod'
import { signupLimiter } from './rate-limit.js'

const NO_PARAMS = z.object({})
const USAGE_PARAMS = z.object({ days: intParam({ min: 1, max: 90, default: 30, description: 'how many days back (1..90)' }) })

type Handler = (req: Request, res: Response, principal: Principal | null) => Promise<{ status?: number; data: unknown; credits?: number | null }>

export function accountRouter(services: Services): express.Router {
  const router = express.Router()
  const { db, config } = services

  const json = express.json({ limit: BODY_LIMIT_BYTES, strict: true, type: () => true })
  /** parse a JSON body whatever the content type says, with a problem+json answer when it is not JSON */
  const body = (req: Request, res: Response, next: NextFunction) =>
    json(req, res, (err?: unknown) => {
      if (!err) return next()
      const e = err as { type?: string; status?: number }
      if (e.type === 'entity.too.large') return sendProblem(res, new ApiError('payload_too_large', 'The request body is larger than 16 kB.'), res.locals.requestId)
      return sendProblem(res, new ApiError('invalid_request', 'The request body must be a JSON object.'), res.locals.requestId)
    })

  const route =
    (authRequired: boolean, fn: Handler) =>
    async (req: Request, res: Response) => {
      const requestId = res.locals.requestId as string
      try {
        const principal = authRequired ? await authenticate(db.sql, req.headers.authorization, services.clock()) : null
        const out = await fn(req, res, principal)
        sendData(res, out.status ?? 200, out.data, { requestId, creditsCharged: 0, creditsRemaining: out.credits ?? principal?.credits ?? null, asOf: services.clock() })
      } catch (e) {
        const err = toApiError(e)
        if (err.status >= 500) services.logger.error({ err: e, requestId }, 'account request failed')
        sendProblem(res, err, requestId)
      }
    }

  const objectBody = (req: Request): Record<string, unknown> => {
    const b: unknown = req.body
    if (!b || typeof b !== 'object' || Array.isArray(b)) throw new ApiError('invalid_request', 'The request body must be a JSON object.')
    return b as Record<string, unknown>
  }

  router.post(
    '/v1/auth/signup',
    signupLimiter(config.SIGNUP_LIMIT, services.auth),
    body,
    route(false, async (req) => {
      const out = await signup(db, objectBody(req).email, config.TRIAL_CREDITS)
      return { status: 201, data: { accountId: out.accountId, keyId: out.keyId, apiKey: out.apiKey, credits: out.credits }, credits: out.credits }
    }),
  )

  router.post(
    '/v1/auth/keys',
    body,
    route(true, async (req, _res, p) => ({ status: 201, data: await createKey(db, p!.accountId, objectBody(req).name) })),
  )
  router.get(
    '/v1/auth/keys',
    route(true, async (req, _res, p) => {
      parseParams(NO_PARAMS, req.query as Record<string, unknown>, { coins: [], now: 0 })
      return { data: await listKeys(db, p!.accountId) }
    }),
  )
  router.delete(
    '/v1/auth/keys/:keyId',
    route(true, async (req, _res, p) => {
      const revoked = await revokeKey(db, p!.accountId, String(req.params.keyId))
      services.auth.forgetKey(revoked.id)
      return { data: revoked }
    }),
  )

  router.get(
    '/v1/account',
    route(true, async (req, _res, p) => {
      parseParams(NO_PARAMS, req.query as Record<string, unknown>, { coins: [], now: 0 })
      const a = await getAccount(db, p!.accountId)
      return { data: a, credits: a.credits }
    }),
  )
  router.get(
    '/v1/account/usage',
    route(true, async (req, _res, p) => {
      const v = parseParams(USAGE_PARAMS, req.query as Record<string, unknown>, { coins: [], now: 0 })
      return { data: await usage(db, p!.accountId, v.days, new Date(services.clock())) }
    }),
  )

  router.post(
    '/v1/billing/webhook',
    express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT_BYTES }),
    route(false, async (req) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)
      const event = verifyWebhook(raw, req.header('stripe-signature'), config.STRIPE_WEBHOOK_SECRET, config.STRIPE_WEBHOOK_TOLERANCE, services.clock())
      const outcome = await applyWebhookEvent(db, event)
      return { data: { received: true, ...outcome }, credits: outcome.balance }
    }),
  )
  return router
}
