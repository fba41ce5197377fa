// Query parameters as zod schemas: each endpoint's parameters are one z.object of these (REST names), from which the
// REST parser, the GraphQL arguments and the OpenAPI document are all derived. A parameter's kind decides how a REST
// string becomes a value (case-folding, numbers) and the wording of its invalid_parameter error.
import { z } from 'zod'
import { invalidParameter, type ApiError } from '../errors.js'
import { CURSOR_TEXT, sealCursor, type CursorScope } from './cursor.js'
import { EXCHANGE_IDS } from './exchanges.js'
import { ExchangeName, MarketTypeName } from './markets.js'
import { Lookback } from './windows.js'

type ParamKind = 'enum' | 'coin' | 'exchange' | 'int' | 'number' | 'timestamp' | 'cursor'

export interface ParamInfo {
  kind: ParamKind
  description: string
  required: boolean
  /** enum and exchange: the domain enum the values come from (GraphQL maps it to one enum type) */
  enumOf?: z.ZodEnum
  values?: readonly string[]
  min?: number
  max?: number
  default?: string | number
  /** a value the parameter takes, for OpenAPI (every parameter carries one) */
  example: string | number
}

/** what a parse checks against: the coin universe right now (imports can add coins) and the request's clock */
export interface ParamEnv {
  coins: readonly string[]
  now: number
  /** paged endpoints: what their cursors are sealed with; without it no cursor is accepted */
  cursors?: CursorScope
}

const INFO = new WeakMap<z.ZodType, ParamInfo>()
export const paramInfo = (schema: z.ZodType): ParamInfo => {
  const info = INFO.get(schema)
  if (!info) throw new Error('not a parameter schema: build it with the src/domain/params.ts helpers')
  return info
}
const param = <T extends z.ZodType>(schema: T, info: ParamInfo): T => (INFO.set(schema, info), schema)

// the environment of the parse in progress (parses are synchronous, so one slot suffices)
let scope: ParamEnv | null = null
// the cursor scope each parse's values were checked under, for the resolver that pages on from them
const CURSOR_SCOPES = new WeakMap<object, CursorScope>()

/** a window end and start for parameters' examples: 2026-03-02 12:00 UTC and the day before */
export const EXAMPLE_END_MS = 1_772_452_800_000
export const EXAMPLE_START_MS = EXAMPLE_END_MS - 86_400_000

// from 2009 (before any crypto exchange) to one day ahead of now
export const EARLIEST_MS = 1_230_768_000_000
export const AHEAD_MS = 86_400_000

/** one of a domain enum's values, with a default (the example unless another is given) */
export const enumParam = <E extends z.ZodEnum>(e: E, o: { description: string; default: z.output<E>; example?: z.output<E> }) =>
  param(e.default(o.default as never) as z.ZodDefault<E>, {
    kind: 'enum', enumOf: e, values: e.options as readonly string[], description: o.description, required: false, default: o.default as string, example: (o.example ?? o.default) as string,
  })

/** one of a domain enum's values, or absent (the endpoint decides what absent means, e.g. when another parameter stands in) */
export const optionalEnumParam = <E extends z.ZodEnum>(e: E, description: string, example: z.output<E> = e.options[0] as z.output<E>) =>
  param(e.optional(), { kind: 'enum', enumOf: e, values: e.options as readonly string[], description, required: false, example: example as string })

export const exchangeParam = (description = 'one exchange; omitted = all exchanges') =>
  param(ExchangeName.optional(), { kind: 'exchange', enumOf: ExchangeName, values: EXCHANGE_IDS, description, required: false, example: 'binance' })

const knownCoin = () => z.string().refine((c) => scope !== null && scope.coins.includes(c))
export function coinParam(required: true, description?: string): z.ZodType<string>
export function coinParam(required: false, description?: string): z.ZodOptional<z.ZodType<string>>
export function coinParam(required: boolean, description = 'base-asset symbol, e.g. BTC (case-insensitive)'): z.ZodType<string> | z.ZodOptional<z.ZodType<string>> {
  // BTC is in every default universe; OpenAPI names the coins offered right now beside it (src/rest/openapi.ts)
  return required
    ? param(knownCoin(), { kind: 'coin', description, required, example: 'BTC' })
    : param(knownCoin().optional(), { kind: 'coin', description: `${description}; omitted = all coins`, required, example: 'BTC' })
}

export const intParam = (o: { min: number; max: number; default: number; description: string; example?: number }) =>
  param(z.number().int().min(o.min).max(o.max).default(o.default), { kind: 'int', description: o.description, required: false, min: o.min, max: o.max, default: o.default, example: o.example ?? o.default })

/** an optional number ≥ 0 (a threshold; absent = none) */
export const nonNegativeParam = (description: string, example: number, max = 1e15) =>
  param(z.number().min(0).max(max).optional(), { kind: 'number', description, required: false, min: 0, max, example })

export const positiveParam = (description: string, example: number) => param(z.number().positive(), { kind: 'number', description, required: true, example })

export const timestampParam = (description: string, example: number) =>
  param(z.number().int().refine((t) => t >= EARLIEST_MS && (scope === null || t <= scope.now + AHEAD_MS)).optional(), { kind: 'timestamp', description, required: false, example })

// what meta.next looks like: base64url of [window start, window end, next slot], a dot, its code (here made with a
// stand-in code: the service's own is secret, so this example pages nothing)
const CURSOR_EXAMPLE = sealCursor({ s: EXAMPLE_START_MS, e: EXAMPLE_END_MS, f: EXAMPLE_END_MS - 4 * 3_600_000 }, { mac: () => 'x'.repeat(22), endpoint: '' }, {})

/** an opaque paging cursor (meta.next of the previous page); the endpoint's rules check its code and its window */
export const cursorParam = (description = 'meta.next of the previous page, passed back unchanged with the same parameters') =>
  param(z.string().refine((s) => CURSOR_TEXT.test(s)).optional(), { kind: 'cursor', description, required: false, example: CURSOR_EXAMPLE })

/** the cursor scope values were parsed under (during a parse: the parse's own); null where none was given */
export const cursorScopeOf = (values: object): CursorScope | null => CURSOR_SCOPES.get(values) ?? scope?.cursors ?? null

/** the clock of the parse in progress (for rules across parameters that depend on now); outside a parse, the wall clock */
export const parsingNow = (): number => scope?.now ?? Date.now()

const INT = /^[+]?\d{1,15}$/
// a plain decimal (no hex, no exponent tricks beyond e-notation, no Infinity/NaN)
const DECIMAL = /^[+]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?$/
const clip = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s)

/** allowed values, for the error body and the OpenAPI enum */
function allowedValues(info: ParamInfo, env: ParamEnv): readonly string[] | undefined {
  if (info.kind === 'coin') return env.coins
  return info.values
}

/** a REST string (or a GraphQL value) as the value the schema checks; what cannot be read is left for it to refuse */
function normalize(info: ParamInfo, raw: unknown): unknown {
  if (typeof raw === 'string') {
    const s = raw.trim()
    switch (info.kind) {
      case 'enum':
      case 'exchange':
        return info.values!.find((a) => a === s || a === s.toLowerCase()) ?? raw
      case 'coin':
        return s.toUpperCase()
      case 'int':
      case 'timestamp':
        return INT.test(s) ? Number(s) : raw
      case 'number':
        return DECIMAL.test(s) ? Number(s) : raw
      case 'cursor':
        return s
    }
  }
  return raw
}

function valueError(name: string, info: ParamInfo, raw: unknown, env: ParamEnv): ApiError {
  if (raw === undefined) return invalidParameter(name, `${name} is required: ${info.description}`, allowedValues(info, env))
  const shown = clip(String(raw))
  switch (info.kind) {
    case 'enum':
      return invalidParameter(name, `${name} must be one of: ${info.values!.join(', ')}.`, info.values)
    case 'coin':
      return invalidParameter(name, `Unknown coin "${shown}". Supported coins: ${env.coins.join(', ')}.`, env.coins)
    case 'exchange':
      return invalidParameter(name, `Unknown exchange "${shown}". Supported exchanges: ${EXCHANGE_IDS.join(', ')}.`, EXCHANGE_IDS)
    case 'int':
      return invalidParameter(name, `${name} must be an integer from ${info.min} to ${info.max}.`)
    case 'number':
      return invalidParameter(name, `${name} must be a number greater than 0.`)
    case 'timestamp':
      return invalidParameter(name, `${name} must be a Unix timestamp in milliseconds from 2009-01-01 up to one day ahead of now.`)
    case 'cursor':
      return invalidParameter(name, CURSOR_REFUSED)
  }
}

/**
 * Parse a query (REST names) against an endpoint's parameters. Unknown parameters are refused, so a typo is never
 * silently ignored; a repeated one too. Errors name the parameter and, where there is a list, the allowed values.
 */
export function parseParams<S extends z.ZodObject>(schema: S, query: Record<string, unknown>, env: ParamEnv): z.output<S> {
  const shape = schema.shape as Record<string, z.ZodType>
  const names = Object.keys(shape)
  // own keys only: `constructor`, `toString`, `__proto__` are names of every object's prototype, not parameters
  for (const key of Object.keys(query))
    if (!Object.hasOwn(shape, key))
      throw invalidParameter(
        clip(key),
        names.length ? `Unknown parameter "${clip(key)}". This endpoint takes: ${names.join(', ')}.` : `Unknown parameter "${clip(key)}". This endpoint takes no parameters.`,
        names,
      )
  const input: Record<string, unknown> = {}
  for (const name of names) {
    const info = paramInfo(shape[name]!)
    let raw = query[name]
    if (raw === null || raw === '') raw = undefined
    if (raw !== undefined && typeof raw !== 'string' && !(typeof raw === 'number' && Number.isFinite(raw)))
      throw invalidParameter(name, `${name} must be given once, as a single value.`, allowedValues(info, env))
    input[name] = normalize(info, raw)
  }
  scope = env
  let result: ReturnType<S['safeParse']>
  try {
    result = schema.safeParse(input) as ReturnType<S['safeParse']>
  } finally {
    scope = null
  }
  if (result.success) {
    if (env.cursors) CURSOR_SCOPES.set(result.data, env.cursors)
    return result.data as z.output<S>
  }
  const issue = result.error.issues[0]!
  const name = String(issue.path[0])
  if (issue.code === 'custom' && issue.params?.rule) throw invalidParameter(name, issue.message, issue.params.allowed as readonly string[] | undefined)
  throw valueError(name, paramInfo(shape[name]!), query[name] === '' || query[name] === null ? undefined : query[name], env)
}

/** why a cursor is refused: the same words whether it was altered, made up, or issued for other parameters */
export const CURSOR_REFUSED = 'cursor is not one this endpoint issued for these parameters: pass meta.next of the previous page unchanged, with the same parameters (only limit may change).'

/** a rule across parameters, reported on `name` with the values that would pass */
export const ruleIssue = (name: string, message: string, allowed?: readonly string[]) => ({ code: 'custom' as const, path: [name], message, params: { rule: true, allowed } })

// parameters several endpoints share
export const lookbackParam = () => enumParam(Lookback, { description: 'how far back the window reaches from `end`', default: '24h' })
export const marketTypeParam = () => enumParam(MarketTypeName, { description: 'perp or spot', default: 'perp' })
export const endParam = () => timestampParam('Unix ms where the window ends (default now), to read imported history', EXAMPLE_END_MS)
