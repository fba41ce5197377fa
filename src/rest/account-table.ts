// The account routes, once: signup, keys, account, usage and the billing webhook. Each entry is the method and
// path, whether it needs a key, how its body is read, its query parameters, its OpenAPI description and its
// handler. The router (account-routes.ts), the OpenAPI document (openapi.ts) and the app's 405 and CORS tables
// (server.ts) are all derived from this list. No credits are charged here.
import type { Request } from 'express'
import { z } from 'zod'
import { createKey, getAccount, listKeys, revokeKey, signup, usage } from '../accounts/accounts.js'
import type { Principal } from '../accounts/authenticate.js'
import { createAlert, deleteAlert, DELIVERY_COST, listAlerts } from '../accounts/alerts.js'
import { assertDeliverable } from '../accounts/webhook-address.js'
import { applyWebhookEvent, verifyWebhook } from '../accounts/billing.js'
import { ALERT_CONDITION_TYPES, parseAlertBody } from '../domain/alerts.js'
import { intParam, paramInfo } from '../domain/params.js'
import { ApiError } from '../errors.js'
import type { Services } from '../services.js'
import { envelope, json, problem, type JsonSchema } from './openapi-parts.js'

export interface AccountCall<Q> {
  services: Services
  req: Request
  /** the key's account (routes with auth), else null */
  principal: Principal | null
  /** the parsed query */
  query: Q
}

export interface AccountRoute<Q extends z.ZodObject = z.ZodObject> {
  method: 'get' | 'post' | 'delete'
  /** OpenAPI form: path parameters as {name} */
  path: string
  /** needs a key (Authorization: Bearer) */
  auth: boolean
  /** json: a JSON object whatever the content type says; raw: the bytes (the webhook signature covers them) */
  body?: 'json' | 'raw'
  /** signup's per-address limiter */
  limited?: boolean
  /** query parameters: anything else is refused (GET routes) */
  query?: Q
  /** the OpenAPI operation */
  doc: JsonSchema
  handle(c: AccountCall<z.output<Q>>): Promise<{ status?: number; data: unknown; credits?: number | null }>
}

const route = <Q extends z.ZodObject>(r: AccountRoute<Q>): AccountRoute => r as unknown as AccountRoute

const USAGE_QUERY = z.object({ days: intParam({ min: 1, max: 90, default: 30, description: 'how many days back (1..90)' }) })

/** a query's OpenAPI parameters from its zod object (the numbers and integers the account routes take) */
function queryParameters(query: z.ZodObject): JsonSchema[] {
  return Object.entries(query.shape as Record<string, z.ZodType>).map(([name, schema]) => {
    const p = paramInfo(schema)
    const type = p.kind === 'int' ? 'integer' : p.kind === 'number' ? 'number' : 'string'
    return { name, in: 'query', required: p.required, description: p.description, schema: { type, minimum: p.min, maximum: p.max, default: p.default }, example: p.example }
  })
}

const objectBody = (req: Request): Record<string, unknown> => {
  const b: unknown = req.body
  if (!b || typeof b !== 'object' || Array.isArray(b)) throw new ApiError('invalid_request', 'The request body must be a JSON object.')
  return b as Record<string, unknown>
}

const keyRef = { $ref: '#/components/schemas/Key' }
const conditionSchema: JsonSchema = { type: 'object', required: ['type'], properties: { type: { type: 'string', enum: [...ALERT_CONDITION_TYPES] }, value: { type: 'number' }, pair: { type: 'string' }, timeframe: { type: 'string' }, band: { type: 'number' } } }
const alertSchema: JsonSchema = {
  type: 'object',
  required: ['alert_id', 'name', 'coin', 'condition', 'url', 'status', 'status_reason', 'condition_true', 'last_fired_at', 'created_at', 'last_delivery'],
  properties: {
    alert_id: { type: 'string' }, name: { type: 'string' }, coin: { type: 'string' },
    condition: conditionSchema,
    url: { type: 'string' },
    status: { type: 'string', enum: ['active', 'disabled'] },
    status_reason: { type: ['string', 'null'], description: 'why the rule is disabled, or why its last delivery was not sent' },
    condition_true: { type: ['boolean', 'null'], description: 'the condition at its last evaluation (null: not evaluated yet)' },
    last_fired_at: { type: ['integer', 'null'] },
    created_at: { type: 'integer' },
    last_delivery: {
      type: ['object', 'null'],
      properties: { event_id: { type: 'string' }, status: { type: 'string', enum: ['pending', 'delivered', 'failed', 'unpaid'] }, attempts: { type: 'integer' }, last_error: { type: ['string', 'null'] }, created_at: { type: 'integer' }, delivered_at: { type: ['integer', 'null'] } },
    },
  },
}
const alertSecured = { security: [{ bearerAuth: [] }], 'x-credits': 0, 'x-credits-per-delivery': DELIVERY_COST }
const secured = { security: [{ bearerAuth: [] }], 'x-credits': 0 }
const NO_PARAMS = z.object({})

export const ACCOUNT_ROUTES: readonly AccountRoute[] = [
  route({
    method: 'post',
    path: '/v1/auth/signup',
    auth: false,
    limited: true,
    body: 'json',
    doc: {
      operationId: 'signup', summary: 'Create an account with trial credits and a first key (no key needed)', security: [], 'x-credits': 0,
      requestBody: { required: true, ...json({ type: 'object', required: ['email'], properties: { email: { type: 'string', format: 'email' } } }) },
      responses: {
        '201': { description: 'Created', ...json(envelope({ type: 'object', required: ['account_id', 'key_id', 'api_key', 'credits'], properties: { account_id: { type: 'string' }, key_id: { type: 'string' }, api_key: { type: 'string' }, credits: { type: 'integer' } } })) },
        '400': problem('invalid_parameter (email)'),
        '409': problem('conflict: the email is taken'),
      },
    },
    handle: async ({ services: { db, config }, req }) => {
      const out = await signup(db, objectBody(req).email, config.TRIAL_CREDITS)
      return { status: 201, data: { accountId: out.accountId, keyId: out.keyId, apiKey: out.apiKey, credits: out.credits }, credits: out.credits }
    },
  }),
  route({
    method: 'post',
    path: '/v1/auth/keys',
    auth: true,
    body: 'json',
    doc: {
      operationId: 'createKey', summary: 'Create a key (the secret is in the answer, once)', ...secured,
      requestBody: { required: true, ...json({ type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 100 } } }) },
      responses: { '201': { description: 'Created', ...json(envelope({ allOf: [keyRef, { type: 'object', required: ['api_key'], properties: { api_key: { type: 'string' } } }] })) }, '400': problem('invalid_parameter (name)'), '401': problem('unauthorized') },
    },
    handle: async ({ services, req, principal }) => ({ status: 201, data: await createKey(services.db, principal!.accountId, objectBody(req).name) }),
  }),
  route({
    method: 'get',
    path: '/v1/auth/keys',
    auth: true,
    query: NO_PARAMS,
    doc: { operationId: 'listKeys', summary: 'The caller\'s keys, never their secrets', ...secured, responses: { '200': { description: 'OK', ...json(envelope({ type: 'array', items: keyRef })) }, '401': problem('unauthorized') } },
    handle: async ({ services, principal }) => ({ data: await listKeys(services.db, principal!.accountId) }),
  }),
  route({
    method: 'delete',
    path: '/v1/auth/keys/{key_id}',
    auth: true,
    doc: {
      operationId: 'revokeKey', summary: 'Revoke one of the caller\'s keys', ...secured,
      parameters: [{ name: 'key_id', in: 'path', required: true, schema: { type: 'string' }, example: '0f6c3a52-8d1e-4b7a-9c2f-5e4d3b2a1c90' }],
      responses: { '200': { description: 'Revoked', ...json(envelope(keyRef)) }, '401': problem('unauthorized'), '404': problem('not_found: no such key on this account'), '409': problem('conflict: the account\'s last active key') },
    },
    handle: async ({ services, req, principal }) => {
      const revoked = await revokeKey(services.db, principal!.accountId, String(req.params.key_id))
      services.auth.forgetKey(revoked.id)
      return { data: revoked }
    },
  }),
  route({
    method: 'get',
    path: '/v1/account',
    auth: true,
    query: NO_PARAMS,
    doc: {
      operationId: 'account', summary: 'The caller\'s account and balance', ...secured,
      responses: { '200': { description: 'OK', ...json(envelope({ type: 'object', required: ['account_id', 'email', 'credits', 'created_at'], properties: { account_id: { type: 'string' }, email: { type: 'string' }, credits: { type: 'integer' }, created_at: { type: 'integer' } } })) }, '401': problem('unauthorized') },
    },
    handle: async ({ services, principal }) => {
      const a = await getAccount(services.db, principal!.accountId)
      return { data: a, credits: a.credits }
    },
  }),
  route({
    method: 'get',
    path: '/v1/account/usage',
    auth: true,
    query: USAGE_QUERY,
    doc: {
      operationId: 'usage', summary: 'Credits per endpoint and per day, and recent calls', ...secured,
      parameters: queryParameters(USAGE_QUERY),
      responses: {
        '200': {
          description: 'OK',
          ...json(envelope({
            type: 'object',
            required: ['days', 'since', 'total_credits', 'calls', 'by_endpoint', 'by_day', 'recent'],
            properties: {
              days: { type: 'integer' },
              since: { type: 'integer' },
              total_credits: { type: 'integer' },
              calls: { type: 'integer' },
              by_endpoint: { type: 'array', items: { type: 'object', required: ['endpoint', 'calls', 'credits'], properties: { endpoint: { type: 'string' }, calls: { type: 'integer' }, credits: { type: 'integer' } } } },
              by_day: { type: 'array', items: { type: 'object', required: ['day', 'calls', 'credits'], properties: { day: { type: 'integer', description: 'UTC day start, Unix ms' }, calls: { type: 'integer' }, credits: { type: 'integer' } } } },
              recent: {
                type: 'array',
                items: { type: 'object', required: ['ts', 'endpoint', 'credits', 'request_id', 'key_id'], properties: { ts: { type: 'integer' }, endpoint: { type: 'string' }, credits: { type: 'integer' }, request_id: { type: ['string', 'null'] }, key_id: { type: ['string', 'null'] } } },
              },
            },
          })),
        },
        '400': problem('invalid_parameter (days)'),
        '401': problem('unauthorized'),
      },
    },
    handle: async ({ services, principal, query }) => ({ data: await usage(services.db, principal!.accountId, query.days, new Date(services.clock())) }),
  }),
  route({
    method: 'post',
    path: '/v1/alerts',
    auth: true,
    body: 'json',
    doc: {
      operationId: 'createAlert', summary: `Create an alert rule (free; ${DELIVERY_COST} credits per delivery); the signing secret is in the answer, once`, ...alertSecured,
      requestBody: {
        required: true,
        ...json({ type: 'object', required: ['coin', 'condition', 'url'], properties: { coin: { type: 'string' }, condition: conditionSchema, url: { type: 'string', format: 'uri' }, name: { type: 'string', maxLength: 100 } } }),
      },
      responses: {
        '201': { description: 'Created', ...json(envelope({ allOf: [alertSchema, { type: 'object', required: ['secret'], properties: { secret: { type: 'string' } } }] })) },
        '400': problem('invalid_parameter (coin, condition.type, condition.value, condition.pair, condition.timeframe, condition.band, url, name)'),
        '401': problem('unauthorized'),
        '409': problem('conflict: the account holds 100 rules'),
      },
    },
    handle: async ({ services, req, principal }) => {
      const input = parseAlertBody(objectBody(req), services.market.coins())
      assertDeliverable(input.url, services.config.ALERT_ALLOW_LOOPBACK)
      return { status: 201, data: await createAlert(services.db, principal!, input) }
    },
  }),
  route({
    method: 'get',
    path: '/v1/alerts',
    auth: true,
    query: NO_PARAMS,
    doc: { operationId: 'listAlerts', summary: "The caller's alert rules with their last delivery (never their secrets)", ...alertSecured, responses: { '200': { description: 'OK', ...json(envelope({ type: 'array', items: alertSchema })) }, '401': problem('unauthorized') } },
    handle: async ({ services, principal }) => ({ data: await listAlerts(services.db, principal!.accountId) }),
  }),
  route({
    method: 'delete',
    path: '/v1/alerts/{alert_id}',
    auth: true,
    doc: {
      operationId: 'deleteAlert', summary: 'Remove one of the caller\'s alert rules (pending deliveries go with it)', ...alertSecured,
      parameters: [{ name: 'alert_id', in: 'path', required: true, schema: { type: 'string' }, example: '7b2e9d4c-1a3f-4e6b-8c5d-2f9a0e1b3c47' }],
      responses: { '200': { description: 'Removed', ...json(envelope(alertSchema)) }, '401': problem('unauthorized'), '404': problem('not_found: no such alert on this account') },
    },
    handle: async ({ services, req, principal }) => ({ data: await deleteAlert(services.db, principal!.accountId, String(req.params.alert_id)) }),
  }),
  route({
    method: 'post',
    path: '/v1/billing/webhook',
    auth: false,
    body: 'raw',
    doc: {
      operationId: 'billingWebhook', summary: 'Payment provider webhook (Stripe signing scheme; no key)', security: [], 'x-credits': 0,
      parameters: [{ name: 'Stripe-Signature', in: 'header', required: true, schema: { type: 'string' }, example: 't=1772452800,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd' }],
      requestBody: { required: true, ...json({ type: 'object' }) },
      responses: {
        '200': {
          description: 'Received (applied, duplicate or ignored)',
          ...json(envelope({
            type: 'object',
            required: ['received', 'event_id', 'type', 'outcome', 'account_id', 'credits_added', 'balance'],
            properties: {
              received: { type: 'boolean' },
              event_id: { type: 'string' },
              type: { type: 'string' },
              outcome: { type: 'string', enum: ['applied', 'duplicate', 'ignored'] },
              account_id: { type: ['string', 'null'] },
              credits_added: { type: 'integer' },
              balance: { type: ['integer', 'null'] },
            },
          })),
        }, '400': problem('bad or stale signature, or invalid metadata'), '503': problem('webhook secret not configured') },
    },
    handle: async ({ services: { db, config, clock }, req }) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)
      const event = verifyWebhook(raw, req.header('stripe-signature'), config.STRIPE_WEBHOOK_SECRET, config.STRIPE_WEBHOOK_TOLERANCE, clock())
      const outcome = await applyWebhookEvent(db, event)
      return { data: { received: true, ...outcome }, credits: outcome.balance }
    },
  }),
]

/** the Express form of a path: {key_id} → :key_id */
export const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1')

/** the account paths with their methods (upper case, sorted), for 405 answers */
export function accountMethods(): [RegExp, string[]][] {
  const by = new Map<string, string[]>()
  for (const r of ACCOUNT_ROUTES) by.set(r.path, [...(by.get(r.path) ?? []), r.method.toUpperCase()])
  return [...by].map(([p, methods]) => [new RegExp(`^${p.replace(/\{\w+\}/g, '[^/]+')}/?$`), methods.sort()])
}

/** the account GETs a browser may make with the caller's key (CORS) */
export const accountBrowserPaths = (): string[] => ACCOUNT_ROUTES.filter((r) => r.method === 'get' && r.auth).map((r) => r.path)

/** the OpenAPI paths of the account routes, in table order */
export function accountPaths(): Record<string, Record<string, JsonSchema>> {
  const paths: Record<string, Record<string, JsonSchema>> = {}
  for (const r of ACCOUNT_ROUTES) (paths[r.path] ??= {})[r.method] = r.doc
  return paths
}
