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
import { EXAMPLE_END_MS, paramInfo } from '../domain/params.js'
import { HOUR_MS, floorTo } from '../domain/time.js'
import { PROBLEM_CODES } from '../errors.js'
import { ENDPOINTS, schema } from '../endpoints/index.js'
import type { Endpoint } from '../endpoints/define.js'
import { operationOf } from '../graphql/metering.js'
import type { Services } from '../services.js'
import { accountPaths } from './account-table.js'
import { STREAM_CHANNELS } from '../read/stream/hub.js'
import { STREAM_PATH } from '../graphql/stream-meter.js'
import { envelope, problem, type JsonSchema } from './openapi-parts.js'
import { loadOperation } from './shim.js'

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
  const out = outputSchema(f.type, sel?.kind === Kind.FIELD ? sel.selectionSet : undefined, fragments)
  // a paged answer's cursor is sent in meta.next, not in the data (rest/shim.ts)
  if (out.properties && typeof out.properties === 'object' && 'next' in out.properties) {
    delete (out.properties as Record<string, unknown>).next
    out.required = (out.required as string[]).filter((k) => k !== 'next')
  }
  return out
}

/** the endpoint's parameters, each described, with its example (zod-to-openapi puts the description on the parameter and its schema) */
function documentedParams(route: Endpoint): z.ZodObject {
  const shape = route.params.shape as Record<string, z.ZodType>
  return z.object(
    Object.fromEntries(Object.entries(shape).map(([name, schema]) => {
      const info = paramInfo(schema)
      return [name, schema.meta({ description: info.description, param: { example: info.example } })]
    })),
  )
}

/**
 * What a parameter's schema says beyond its type, as clients read it: the coins offered right now (they change
 * with imports; the dashboard builds its coin list from this), timestamps as epoch milliseconds, nothing else.
 */
function schemaNote(route: Endpoint, parameter: { name: string; schema?: Record<string, unknown>; example?: unknown }, coins: readonly string[], now: number) {
  const info = paramInfo((route.params.shape as Record<string, z.ZodType>)[parameter.name]!)
  const schema = parameter.schema ?? {}
  delete schema.description
  if (info.kind === 'coin') {
    Object.assign(schema, { examples: coins.slice(0, 3), description: `one of ${coins.join(', ')} (case-insensitive)` })
    // the helper's example, unless this deployment's coins do not include it
    if (!coins.includes(String(parameter.example)) && coins.length) parameter.example = coins[0]
  }
  if (info.kind === 'timestamp') {
    schema.description = 'Unix epoch milliseconds'
    // the helpers' example window, moved to end at the current hour, so it stays a window the service takes
    parameter.example = floorTo(now, HOUR_MS) - (EXAMPLE_END_MS - Number(info.example))
  }
}


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
        '429': problem('rate_limited: over the key\'s requests per second (Retry-After, RateLimit and RateLimit-Policy headers, and X-Credits-Remaining for a valid key), or a heavy call past its key\'s or the node\'s queue (Retry-After, scope, limit; nothing charged)'),
        '503': problem('unavailable: the store is unreachable or slower than its bound (with Retry-After), or the data is not collected here'),
      },
    })
  }
  const generated = new OpenApiGeneratorV31(registry.definitions).generateDocument({ openapi: '3.1.0', info: { title: '', version: '' } })
  const paths: Record<string, unknown> = { ...generated.paths }
  for (const route of ENDPOINTS) {
    const get = (paths[route.path] as { get: { parameters?: { name: string; schema?: Record<string, unknown>; example?: unknown }[] } }).get
    for (const p of get.parameters ?? []) schemaNote(route, p, coins, services.market.clock())
  }
  paths[STREAM_PATH] = { get: streamDoc() }
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
            next: { type: ['string', 'null'], description: 'paged endpoints only: pass it back as `cursor` (same parameters) for the next page; null on the last page' },
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

/** GET /v1/stream: metered by the minute, not by the call (x-credits 0, so clients that price calls do not treat it as one) */
function streamDoc() {
  return {
    operationId: 'stream',
    summary: 'Server-Sent Events: live push channels (1 credit per channel per minute connected)',
    description:
      'An event stream (text/event-stream). Each event has `id` (resume with the Last-Event-ID header: the newest retained events after it, at most 1,000 and 256 KiB of frames, after a `replay_truncated` event when older ones are left out), `event` (the channel) and `data` (JSON, REST field names). Comment lines are heartbeats. 1 credit per channel is taken as each minute starts; a minute the account cannot pay ends the stream with an `end` event, and so does a reader leaving more than 1 MiB unread (`slow_reader`). At most 10 streams per API key and 20 per account. See docs/streaming.md.',
    security: [{ bearerAuth: [] }],
    'x-credits': 0,
    'x-credits-per-minute-per-channel': 1,
    parameters: [
      { name: 'channels', in: 'query', required: false, description: 'comma-separated; default ticker', schema: { type: 'string', examples: ['ticker,liquidations'] }, example: 'ticker,liquidations', 'x-allowed': [...STREAM_CHANNELS] },
      { name: 'coin', in: 'query', required: false, description: 'comma-separated base-asset symbols; omitted = every coin', schema: { type: 'string' }, example: 'BTC,ETH' },
      { name: 'Last-Event-ID', in: 'header', required: false, description: 'the id of the last event received: the newest retained events after it come first (at most 1,000, and 256 KiB of frames)', schema: { type: 'string' }, example: '1842' },
      { name: 'last_event_id', in: 'query', required: false, description: 'the same, for clients that cannot set headers', schema: { type: 'string' }, example: '1842' },
    ],
    responses: {
      '200': { description: 'The event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
      '400': { description: 'invalid_parameter (channels, coin, Last-Event-ID)', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
      '401': { description: 'unauthorized', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
      '402': { description: 'insufficient_credits: the first minute cannot be paid', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
      '429': { description: 'rate_limited: the key (10) or its account (20) has as many streams open as it may (scope, limit, open), with Retry-After; or the address is over its failed-authentication budget', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
    },
  }
}
