// GraphQL arguments of an analytics field, derived from its REST route's parameter specs, and validated by
// the same rules (same invalid_parameter errors, naming the REST parameter).
import { camelToSnake, parseParams, snakeToCamel, type ParamSpec, type ParamValues } from '../rest/params.js'
import { routeByField } from '../rest/routes.js'
import type { builder } from './builder.js'
import type { RequestContext } from './context.js'

type ArgBuilder = Parameters<Parameters<typeof builder.queryField>[1]>[0]['arg']

function argFor(arg: ArgBuilder, spec: ParamSpec) {
  const description = spec.description
  const required = !!spec.required
  switch (spec.kind) {
    case 'int':
      return arg.int({ required, description, ...(spec.default !== undefined ? { defaultValue: spec.default } : {}) })
    case 'positive-number':
      return arg.float({ required, description })
    case 'timestamp':
      // epoch ms do not fit GraphQL's 32-bit Int
      return arg({ type: 'Timestamp', required, description })
    case 'enum':
      return arg.string({ required, description: `${description}: ${spec.values.join(', ')}`, ...(spec.default ? { defaultValue: spec.default } : {}) })
    default:
      return arg.string({ required, description })
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function routeArgs(arg: ArgBuilder, field: string): Record<string, any> {
  const route = routeByField.get(field)!
  return Object.fromEntries(route.params.map((p) => [snakeToCamel(p.name), argFor(arg, p)]))
}

/** GraphQL args (camelCase) → validated REST-named values; throws the same invalid_parameter as REST */
export function parseRouteArgs(field: string, args: Record<string, unknown>, ctx: RequestContext): ParamValues {
  const route = routeByField.get(field)!
  const query: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(args)) if (v !== undefined && v !== null) query[camelToSnake(k)] = typeof v === 'number' ? String(v) : v
  const values = parseParams(route.params, query, { coins: ctx.services.market.coins(), now: ctx.now })
  route.check?.(values)
  return values
}

/** the coins a per-coin field covers: the one asked for, or all of them */
export const coinsOf = (values: ParamValues, ctx: RequestContext): string[] => (values.coin ? [values.coin as string] : [...ctx.services.market.coins()])
