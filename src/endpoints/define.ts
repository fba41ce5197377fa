// What an endpoint is: its REST path and credit cost, its parameters as one zod object (REST names), and the GraphQL
// root field built from the same schema, whose resolver is the use case (load → pure analytics). The registry
// (./index.ts) lists the endpoints; REST, OpenAPI, metering and the schema are all derived from it.
import type { FieldNullability, MaybePromise, ShapeFromTypeParam, TypeParam } from '@pothos/core'
import type { z } from 'zod'
import { argsOf, paramsOf } from '../graphql/args.js'
import { builder } from '../graphql/builder.js'
import type { RequestContext } from '../graphql/context.js'
import { tickView } from '../read/tick-views.js'
import type { Services } from '../services.js'

type QueryFieldBuilder = Parameters<Parameters<typeof builder.queryField>[1]>[0]
type FieldRef = ReturnType<Parameters<typeof builder.queryField>[1]>

export interface FieldParts<S extends z.ZodObject> {
  /** the GraphQL arguments generated from the parameters */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  args: Record<string, any>
  /** the field's description, with its cost and REST path */
  description: string
  /** the parameters of a call, parsed once (by the REST shim, else from the GraphQL arguments) */
  params: (args: Record<string, unknown>, ctx: RequestContext) => z.output<S>
}

export interface Endpoint<S extends z.ZodObject = z.ZodObject> {
  /** REST: GET <path> */
  path: string
  /** GraphQL root field */
  field: string
  /** stored operation the REST shim runs: schema/operations/v1/<operation>.graphql */
  operation: string
  /** credits per successful call */
  cost: number
  summary: string
  params: S
  /** the estimated rows of work of a call with these parameters at `now` (./work.ts); 0 for a cheap endpoint */
  work(values: z.output<S>, now: number): number
  /** what the REST body leaves out of the GraphQL field (src/rest/stored-operations.ts); absent: every field */
  rest?: RestSelection
  /**
   * the version of the data its answers are computed from, for an endpoint whose REST answers are kept and served
   * again while it holds (src/rest/shim.ts, at most ANSWER_MAX_AGE_MS); absent: every call is computed
   */
  answerVersion?: (services: Services) => string | number
  /** adds the GraphQL root field to the schema */
  register(): void
}

/** fields of the root field's type (dotted paths, e.g. `exchanges.points.delta`) the stored REST operation leaves out, and why */
export interface RestSelection {
  omit: readonly string[]
  why: string
}

/** what every endpoint states: its REST path, root field, stored operation, cost, texts and parameters */
interface EndpointSpec<S extends z.ZodObject> {
  path: string
  field: string
  operation: string
  cost: number
  summary: string
  description: string
  params: S
  /** the estimated rows of work of a call (./work.ts): omitted for an endpoint whose calls are all cheap */
  work?: (values: z.output<S>, now: number) => number
  rest?: RestSelection
  answerVersion?: (services: Services) => string | number
}

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never

/**
 * An endpoint: its output type and the use case, `resolve(parameters, ctx)` — the parameters parsed once (by the
 * REST shim, else from the GraphQL arguments). The GraphQL field, its arguments and its description (with the cost
 * and REST path) are built from the rest. `graphql` instead of `type` + `resolve` builds the field by hand: the
 * exchanges endpoint's prismaField, the one endpoint read through Prisma.
 */
export function defineEndpoint<S extends z.ZodObject, Type extends TypeParam<Types>, Nullable extends FieldNullability<Type> = false>(
  e: EndpointSpec<S> & {
    type: Type
    nullable?: Nullable
    resolve: (values: z.output<S>, ctx: RequestContext) => MaybePromise<ShapeFromTypeParam<Types, Type, Nullable>>
  },
): Endpoint<S>
export function defineEndpoint<S extends z.ZodObject>(e: EndpointSpec<S> & { graphql: (t: QueryFieldBuilder, parts: FieldParts<S>) => FieldRef }): Endpoint<S>
export function defineEndpoint<S extends z.ZodObject>(
  e: EndpointSpec<S> & {
    type?: unknown
    nullable?: boolean
    resolve?: (values: z.output<S>, ctx: RequestContext) => unknown
    graphql?: (t: QueryFieldBuilder, parts: FieldParts<S>) => FieldRef
  },
): Endpoint<S> {
  const { graphql, description, work, type, nullable, resolve, ...rest } = e
  return {
    ...rest,
    work: work ?? (() => 0),
    register() {
      builder.queryField(e.field, (t) => {
        const parts: FieldParts<S> = {
          args: argsOf(t.arg, e.params),
          description: `${description} Costs ${e.cost} credit${e.cost > 1 ? 's' : ''} (GET ${e.path}).`,
          params: (args, ctx) => paramsOf(e.field, e.params, args, ctx),
        }
        if (graphql) return graphql(t, parts)
        // the signature above ties resolve's result to the type; Pothos's own generics cannot follow it through here
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        return t.field({ type, nullable, description: parts.description, args: parts.args, resolve: (_root: unknown, args: Record<string, unknown>, ctx: RequestContext) => resolve!(parts.params(args, ctx), ctx) } as any)
      })
    },
  }
}

/** the coins a per-coin endpoint covers: the one asked for, or all of them */
/** the coin asked for, else "all coins": every coin but those delisted from the universe (their history stays readable by name) */
export const coinsOf = (v: { coin?: string }, ctx: RequestContext): string[] => (v.coin ? [v.coin] : [...ctx.services.market.listedCoins()])

/**
 * Per-coin results taken from the view of every coin that is precomputed on the data tick
 * (src/read/tick-views.ts), so a request only serialises; a coin outside the view is computed alone.
 */
export async function fromAllCoinsView<R>(
  ctx: RequestContext,
  name: string,
  coins: readonly string[],
  compute: (coins: readonly string[], now: number) => Promise<Map<string, R>>,
): Promise<R[]> {
  const { market } = ctx.services
  const view = await tickView(market, name, market.clock(), (now) => compute([...market.listedCoins()], now))
  const missing = coins.filter((c) => !view.has(c))
  const alone = missing.length ? await compute(missing, ctx.now) : new Map<string, R>()
  return coins.map((c) => view.get(c) ?? alone.get(c)!)
}
