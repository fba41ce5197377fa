// Declarative parameter rules: one spec per query parameter drives REST validation, the GraphQL
// resolvers' validation (same errors), and the OpenAPI document.
import { z } from 'zod'
import { EXCHANGE_IDS } from '../domain/exchanges.js'
import { invalidParameter } from '../errors.js'

export interface ParamEnv {
  /** the coin universe right now (imports can add coins) */
  coins: readonly string[]
  now: number
}

interface Base {
  name: string
  description: string
  required?: boolean
}
export type ParamSpec =
  | (Base & { kind: 'enum'; values: readonly string[]; default?: string })
  | (Base & { kind: 'coin' })
  | (Base & { kind: 'exchange' })
  | (Base & { kind: 'int'; min: number; max: number; default?: number })
  | (Base & { kind: 'positive-number' })
  | (Base & { kind: 'timestamp' })

export type ParamValues = Record<string, string | number | undefined>

const INT = /^[+]?\d{1,15}$/
// a plain decimal (no hex, no exponent tricks beyond e-notation, no Infinity/NaN)
const DECIMAL = /^[+]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?$/

const numberSchema = z.string().trim().regex(DECIMAL).transform(Number).pipe(z.number().finite())
const intSchema = z.string().trim().regex(INT).transform(Number).pipe(z.number().int().safe())

/** allowed values, for the error body and the OpenAPI enum */
export function allowedValues(spec: ParamSpec, env: ParamEnv): readonly string[] | undefined {
  if (spec.kind === 'enum') return spec.values
  if (spec.kind === 'coin') return env.coins
  if (spec.kind === 'exchange') return EXCHANGE_IDS
  return undefined
}

export function parseParam(spec: ParamSpec, raw: unknown, env: ParamEnv): string | number | undefined {
  if (raw === undefined || raw === null || raw === '') {
    if (spec.required) throw invalidParameter(spec.name, `${spec.name} is required: ${spec.description}`, allowedValues(spec, env))
    return 'default' in spec ? spec.default : undefined
  }
  if (typeof raw !== 'string') {
    if (typeof raw === 'number' && Number.isFinite(raw)) raw = String(raw)
    else throw invalidParameter(spec.name, `${spec.name} must be given once, as a single value.`, allowedValues(spec, env))
  }
  const value = raw as string
  switch (spec.kind) {
    case 'enum': {
      const v = spec.values.find((a) => a === value.trim().toLowerCase() || a === value.trim())
      if (v === undefined) throw invalidParameter(spec.name, `${spec.name} must be one of: ${spec.values.join(', ')}.`, spec.values)
      return v
    }
    case 'coin': {
      const v = value.trim().toUpperCase()
      if (!env.coins.includes(v)) throw invalidParameter(spec.name, `Unknown coin "${clip(value)}". Supported coins: ${env.coins.join(', ')}.`, env.coins)
      return v
    }
    case 'exchange': {
      const v = value.trim().toLowerCase()
      if (!(EXCHANGE_IDS as readonly string[]).includes(v))
        throw invalidParameter(spec.name, `Unknown exchange "${clip(value)}". Supported exchanges: ${EXCHANGE_IDS.join(', ')}.`, EXCHANGE_IDS)
      return v
    }
    case 'int': {
      const r = intSchema.safeParse(value)
      if (!r.success || r.data < spec.min || r.data > spec.max)
        throw invalidParameter(spec.name, `${spec.name} must be an integer from ${spec.min} to ${spec.max}.`)
      return r.data
    }
    case 'positive-number': {
      const r = numberSchema.safeParse(value)
      if (!r.success || !(r.data > 0)) throw invalidParameter(spec.name, `${spec.name} must be a number greater than 0.`)
      return r.data
    }
    case 'timestamp': {
      const r = intSchema.safeParse(value)
      // from 2009 (before any crypto exchange) to one day ahead of now
      if (!r.success || r.data < 1_230_768_000_000 || r.data > env.now + 86_400_000)
        throw invalidParameter(spec.name, `${spec.name} must be a Unix timestamp in milliseconds from 2009-01-01 up to one day ahead of now.`)
      return r.data
    }
  }
}

const clip = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s)

/** Parse a whole query object. Unknown parameters are refused, so a typo is never silently ignored. */
export function parseParams(specs: readonly ParamSpec[], query: Record<string, unknown>, env: ParamEnv): ParamValues {
  const known = new Set(specs.map((s) => s.name))
  for (const key of Object.keys(query))
    if (!known.has(key))
      throw invalidParameter(
        clip(key),
        specs.length ? `Unknown parameter "${clip(key)}". This endpoint takes: ${specs.map((s) => s.name).join(', ')}.` : `Unknown parameter "${clip(key)}". This endpoint takes no parameters.`,
        specs.map((s) => s.name),
      )
  const out: ParamValues = {}
  for (const spec of specs) out[spec.name] = parseParam(spec, query[spec.name], env)
  return out
}

export const snakeToCamel = (s: string) => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())
/** GraphQL camelCase → REST snake_case; a digit run starts a word: rate8h → rate_8h, oiChange24hPct → oi_change_24h_pct */
export const camelToSnake = (s: string) =>
  s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([a-zA-Z])(\d)/g, '$1_$2')
    .toLowerCase()
