// GraphQL arguments of an analytics field, generated from its endpoint's zod parameters (camelCase names, domain
// enums as GraphQL enums), and read back into the REST-named values the endpoint's use case takes.
import type { z } from 'zod'
import { camelToSnake, snakeToCamel } from '../domain/case.js'
import { paramInfo, parseParams } from '../domain/params.js'
import type { builder } from './builder.js'
import type { RequestContext } from './context.js'
import { enumRef, enumValueName } from './enums.js'

type ArgBuilder = Parameters<Parameters<typeof builder.queryField>[1]>[0]['arg']

const shapeOf = (params: z.ZodObject) => params.shape as Record<string, z.ZodType>

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function argsOf(arg: ArgBuilder, params: z.ZodObject): Record<string, any> {
  return Object.fromEntries(
    Object.entries(shapeOf(params)).map(([name, schema]) => {
      const p = paramInfo(schema)
      const common = { required: p.required, description: p.description }
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const withDefault: { defaultValue?: any } = p.default !== undefined ? { defaultValue: p.default } : {}
      switch (p.kind) {
        case 'int':
          return [snakeToCamel(name), arg.int({ ...common, ...withDefault })]
        case 'number':
          return [snakeToCamel(name), arg.float(common)]
        case 'timestamp':
          // epoch ms do not fit GraphQL's 32-bit Int
          return [snakeToCamel(name), arg({ type: 'Timestamp', ...common })]
        case 'enum':
        case 'exchange':
          // eslint-disable-next-line @typescript-eslint/no-explicit-any
          return [snakeToCamel(name), arg({ type: enumRef(p.enumOf!) as any, ...common, ...withDefault })]
        case 'coin':
        case 'cursor':
          return [snakeToCamel(name), arg.string(common)]
      }
    }),
  )
}

/**
 * The endpoint's parameters from a field's GraphQL arguments: the values the REST shim parsed when it runs the field
 * (parsed once), else the arguments parsed by the same schema, with the same invalid_parameter errors.
 */
export function paramsOf<S extends z.ZodObject>(field: string, params: S, args: Record<string, unknown>, ctx: RequestContext): z.output<S> {
  const parsed = ctx.parsedParams?.get(field)
  if (parsed) return parsed as z.output<S>
  const query: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(args)) if (v !== undefined && v !== null) query[camelToSnake(k)] = v
  return parseParams(params, query, { coins: ctx.services.market.coins(), now: ctx.now, cursors: { mac: ctx.services.cursorMac, endpoint: field } })
}

/** REST-named parsed values as the stored operation's variables (camelCase; enum values by their GraphQL names) */
export function variablesOf(params: z.ZodObject, values: Record<string, unknown>): Record<string, unknown> {
  const shape = shapeOf(params)
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined) continue
    const kind = paramInfo(shape[k]!).kind
    out[snakeToCamel(k)] = (kind === 'enum' || kind === 'exchange') && typeof v === 'string' ? enumValueName(v) : v
  }
  return out
}
