// OpenAPI 3.1 of the REST API: the analytics paths are generated from the endpoint registry by zod-to-openapi
// (parameters from each endpoint's zod object, costs as x-credits); response bodies from each stored operation's
// selection on the GraphQL schema (snake_cased), the one place their shape is written.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi'
import { z } from 'zod'
import {
  isEnumType, isListType, isNonNullType, isObjectType, isScalarType, Kind,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLOutputType, type SelectionSetNode,
} from 'graphql'
import { camelToSnake } from '../domain/case.js'
import { paramInfo } from '../domain/params.js'
import { PROBLEM_CODES } from '../errors.js'
import { ENDPOINTS, schema } from '../endpoints/index.js'
import type { Endpoint } from '../endpoints/define.js'
import { operationOf } from '../graphql/metering.js'
import type { Services } from '../services.js'
import { loadOperation } from './shim.js'

type JsonSchema = Record<string, unknown>

const SCALARS: Record<string, JsonSchema> = {
  Int: { type: 'integer' },
  Float: { type: 'number' },
  String: { type: 'string' },
  ID: { type: 'string' },
  Boolean: { type: 'boolean' },
  Timestamp: { type: 'integer', description: 'Unix epoch milliseconds' },
  JSON: {},
}

type Fragments = Map<string, SelectionSetNode>

/** the fields a selection picks, through fragment spreads and inline fragments */
function selectedFields(selection: SelectionSetNode, fragments: Fragments): FieldNode[] {
  return selection.selections.flatMap((sel) =>
    sel.kind === Kind.FIELD ? [sel] : sel.kind === Kind.INLINE_FRAGMENT ? selectedFields(sel.selectionSet, fragments) : selectedFields(fragments.get(sel.name.value)!, fragments),
  )
}

function outputSchema(type: GraphQLOutputType, selection: SelectionSetNode | undefined, fragments: Fragments, nullable = true): JsonSchema {
  if (isNonNullType(type)) return outputSchema(type.ofType, selection, fragments, false)
  const wrap = (s: JsonSchema): JsonSchema => (nullable ? { oneOf: [s, { type: 'null' }] } : s)
  if (isListType(type)) return wrap({ type: 'array', items: outputSchema(type.ofType, selection, fragments) })
  if (isScalarType(type)) return wrap(SCALARS[type.name] ?? {})
  if (isEnumType(type)) return wrap({ type: 'string', enum: type.getValues().map((v) => v.value as string) })
  if (isObjectType(type) && selection) {
    const fields = type.getFields()
    const properties: Record<string, JsonSchema> = {}
    const required: string[] = []
    for (const sel of selectedFields(selection, fragments)) {
      if (sel.name.value.startsWith('__')) continue
      const f = fields[sel.name.value]!
      const key = camelToSnake(sel.alias?.value ?? sel.name.value)
      properties[key] = { ...outputSchema(f.type, sel.selectionSet, fragments), ...(f.description ? { description: f.description } : {}) }
      required.push(key)
    }
    return wrap({ type: 'object', properties, required, additionalProperties: false })
  }
  return wrap({ type: 'object' })
}

function responseSchema(document: DocumentNode, field: string): JsonSchema {
  const op = operationOf(document)!
  const sel = op.selectionSet.selections.find((s) => s.kind === Kind.FIELD && s.name.value === field)
  const f = schema.getQueryType()!.getFields()[field]!
  const fragments: Fragments = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d.selectionSet]),
  )
  return outputSchema(f.type, sel?.kind === Kind.FIELD ? sel.selectionSet : undefined, fragments)
}

/** the endpoint's parameters, each described (zod-to-openapi puts the description on the parameter and its schema) */
function documentedParams(route: Endpoint): z.ZodObject {
  const shape = route.params.shape as Record<string, z.ZodType>
  return z.object(Object.fromEntries(Object.entries(shape).map(([name, schema]) => [name, schema.meta({ description: paramInfo(schema).description })])))
}

/**
 * What a parameter's schema says beyond its type, as clients read it: the coins offered right now (they change
 * with imports; the dashboard builds its coin list from this), timestamps as epoch milliseconds, nothing else.
 */
function schemaNote(route: Endpoint, parameter: { name: string; schema?: Record<string, unknown> }, coins: readonly string[]) {
  const info = paramInfo((route.params.shape as Record<string, z.ZodType>)[parameter.name]!)
  const schema = parameter.schema ?? {}
  delete schema.description
  if (info.kind === 'coin') Object.assign(schema, { examples: coins.slice(0, 3), description: `one of ${coins.join(', ')} (case-insensitive)` })
  if (info.kind === 'timestamp') schema.description = 'Unix epoch milliseconds'
}

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } }) as never
const envelope = (data: JsonSchema) => ({
  type: 'object',
  required: ['data', 'meta'],
  properties: { data, meta: { $ref: '#/components/schemas/Meta' } },
})

export function openApiDocument(services: Pick<Services, 'market'>): JsonSchema {
  const coins = services.market.coins()
  const registry = new OpenAPIRegistry()
  for (const route of ENDPOINTS) {
    const document = loadOperation(route, schema)
    registry.registerPath({
      method: 'get',
      path: route.path,
      operationId: route.field,
      summary: route.summary,
      description: `${route.summary}. Costs ${route.cost} credit${route.cost > 1 ? 's' : ''}, charged only on a 2xx answer.${document ? '' : ' Not available in this deployment yet (503).'}`,
      'x-credits': route.cost,
      security: [{ bearerAuth: [] }],
      request: { query: documentedParams(route) },
      responses: {
        '200': {
          description: 'Success',
          headers: {
            'X-Credits-Charged': { schema: { type: 'integer' } },
            'X-Credits-Remaining': { schema: { type: 'integer' } },
            'X-Request-Id': { schema: { type: 'string' } },
          },
          content: { 'application/json': { schema: envelope(document ? responseSchema(document, route.field) : {}) as never } },
        },
        '400': problem('invalid_parameter: the body names the parameter and, for enumerations, the allowed values'),
        '401': problem('unauthorized: missing, malformed, unknown or revoked key'),
        '402': problem('insufficient_credits: with credits_required and credits_remaining'),
        '429': problem('rate_limited: with Retry-After, RateLimit and RateLimit-Policy headers, and X-Credits-Remaining for a valid key'),
        '503': problem('unavailable: the store is unreachable or slower than its bound (with Retry-After), or the data is not collected here'),
      },
    })
  }
  const generated = new OpenApiGeneratorV31(registry.definitions).generateDocument({ openapi: '3.1.0', info: { title: '', version: '' } })
  const paths: Record<string, unknown> = { ...generated.paths }
  for (const route of ENDPOINTS) {
    const get = (paths[route.path] as { get: { parameters?: { name: string; schema?: Record<string, unknown> }[] } }).get
    for (const p of get.parameters ?? []) schemaNote(route, p, coins)
  }
  Object.assign(paths, accountPaths())
  return {
    openapi: '3.1.0',
    info: {
      title: 'Cross-exchange perpetual-futures analytics',
      version: '1.0.0',
      description: 'Z-scores, percentiles, ratios and classifications from market data of binance, bybit, okx (CEX), hyperliquid and dydx (DEX). Each analytics call costs a fixed number of credits (x-credits).',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' } },
      schemas: {
        Meta: {
          type: 'object',
          required: ['request_id', 'credits_charged', 'credits_remaining', 'as_of'],
          properties: {
            request_id: { type: 'string' },
            credits_charged: { type: 'integer', minimum: 0 },
            credits_remaining: { type: ['integer', 'null'] },
            as_of: { type: 'integer', description: 'Unix ms the data is as of' },
          },
        },
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'detail', 'code'],
          properties: {
            type: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            code: { type: 'string', enum: [...PROBLEM_CODES] },
            parameter: { type: 'string' },
            allowed: { type: 'array', items: { type: ['string', 'number'] } },
            credits_required: { type: 'integer' },
            credits_remaining: { type: 'integer' },
            request_id: { type: 'string' },
          },
        },
        Key: {
          type: 'object',
          required: ['id', 'name', 'prefix', 'created_at', 'last_used_at', 'revoked_at'],
          properties: {
            id: { type: 'string', format: 'uuid' },
            name: { type: 'string' },
            prefix: { type: 'string' },
            created_at: { type: 'integer' },
            last_used_at: { type: ['integer', 'null'] },
            revoked_at: { type: ['integer', 'null'] },
          },
        },
      },
    },
  }
}

function accountPaths(): Record<string, unknown> {
  const json = (s: JsonSchema) => ({ content: { 'application/json': { schema: s } } })
  const keyRef = { $ref: '#/components/schemas/Key' }
  const secured = { security: [{ bearerAuth: [] }], 'x-credits': 0 }
  return {
    '/v1/auth/signup': {
      post: {
        operationId: 'signup', summary: 'Create an account with trial credits and a first key (no key needed)', security: [], 'x-credits': 0,
        requestBody: { required: true, ...json({ type: 'object', required: ['email'], properties: { email: { type: 'string', format: 'email' } } }) },
        responses: {
          '201': { description: 'Created', ...json(envelope({ type: 'object', required: ['account_id', 'key_id', 'api_key', 'credits'], properties: { account_id: { type: 'string' }, key_id: { type: 'string' }, api_key: { type: 'string' }, credits: { type: 'integer' } } })) },
          '400': problem('invalid_parameter (email)'),
          '409': problem('conflict: the email is taken'),
        },
      },
    },
    '/v1/auth/keys': {
      post: {
        operationId: 'createKey', summary: 'Create a key (the secret is in the answer, once)', ...secured,
        requestBody: { required: true, ...json({ type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 100 } } }) },
        responses: { '201': { description: 'Created', ...json(envelope({ allOf: [keyRef, { type: 'object', required: ['api_key'], properties: { api_key: { type: 'string' } } }] })) }, '400': problem('invalid_parameter (name)'), '401': problem('unauthorized') },
      },
      get: { operationId: 'listKeys', summary: 'The caller\'s keys, never their secrets', ...secured, responses: { '200': { description: 'OK', ...json(envelope({ type: 'array', items: keyRef })) }, '401': problem('unauthorized') } },
    },
    '/v1/auth/keys/{key_id}': {
      delete: {
        operationId: 'revokeKey', summary: 'Revoke one of the caller\'s keys', ...secured,
        parameters: [{ name: 'key_id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'Revoked', ...json(envelope(keyRef)) }, '401': problem('unauthorized'), '404': problem('not_found: no such key on this account'), '409': problem('conflict: the account\'s last active key') },
      },
    },
    '/v1/account': {
      get: {
        operationId: 'account', summary: 'The caller\'s account and balance', ...secured,
        responses: { '200': { description: 'OK', ...json(envelope({ type: 'object', required: ['account_id', 'email', 'credits', 'created_at'], properties: { account_id: { type: 'string' }, email: { type: 'string' }, credits: { type: 'integer' }, created_at: { type: 'integer' } } })) }, '401': problem('unauthorized') },
      },
    },
    '/v1/account/usage': {
      get: {
        operationId: 'usage', summary: 'Credits per endpoint and per day, and recent calls', ...secured,
        parameters: [{ name: 'days', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 90, default: 30 } }],
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
    },
    '/v1/billing/webhook': {
      post: {
        operationId: 'billingWebhook', summary: 'Payment provider webhook (Stripe signing scheme; no key)', security: [], 'x-credits': 0,
        parameters: [{ name: 'Stripe-Signature', in: 'header', required: true, schema: { type: 'string' } }],
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
    },
  }
}
