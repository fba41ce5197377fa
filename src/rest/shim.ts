// The REST shim: each /v1 analytics GET path runs its stored GraphQL operation against the same schema,
// under the same credit rules (executeMetered), so REST and GraphQL cannot disagree.
import fs from 'node:fs'
import path from 'node:path'
import type { Request, RequestHandler, Response } from 'express'
import { execute, parse, validate, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql'
import { compileQuery, isCompiledQuery } from 'graphql-jit'
import { parseParams } from '../domain/params.js'
import type { Endpoint } from '../endpoints/define.js'
import { COST_TABLE, ENDPOINTS } from '../endpoints/index.js'
import { toApiError, unavailable } from '../errors.js'
import { variablesOf } from '../graphql/args.js'
import { createContext } from '../graphql/context.js'
import { apiErrorOf } from '../graphql/errors.js'
import { ListFragments } from '../graphql/list-fragments.js'
import { executeMetered } from '../graphql/metering.js'
import type { Services } from '../services.js'
import { restJson, sendData, sendProblem } from './envelope.js'
import { ROOT } from '../paths.js'
import { cacheOf } from '../read/versioned-cache.js'

const OPERATIONS_DIR = path.join(ROOT, 'schema', 'operations', 'v1')

export function operationPath(route: Endpoint): string {
  return path.join(OPERATIONS_DIR, `${route.operation}.graphql`)
}

/** The stored operation of a route, parsed and validated once; null while the schema has no such field yet. */
export function loadOperation(route: Endpoint, schema: GraphQLSchema): DocumentNode | null {
  if (!schema.getQueryType()?.getFields()[route.field]) return null
  const document = parse(fs.readFileSync(operationPath(route), 'utf8'))
  const errors = validate(schema, document)
  if (errors.length) throw new Error(`stored operation ${route.operation}.graphql is invalid: ${errors.map((e) => e.message).join('; ')}`)
  return document
}

type Execute = (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult

/**
 * The stored operation compiled once (graphql-jit), at its first call rather than at start-up (compiling all of them
 * is a quarter of a second of a start); graphql-js's execute when it cannot be compiled.
 */
function compiledExecutor(schema: GraphQLSchema, document: DocumentNode): Execute {
  let run: Execute | null = null
  return (args) => {
    if (!run) {
      const compiled = compileQuery(schema, document)
      run = isCompiledQuery(compiled) ? (a) => compiled.query(a.rootValue, a.contextValue, a.variableValues ?? {}) as Promise<ExecutionResult> | ExecutionResult : (execute as Execute)
    }
    return run(args)
  }
}

/**
 * The analytics routes as one middleware: the path is looked up in a table (Express's router would try each
 * route's pattern in turn). Matching follows Express's defaults: case-insensitive, an optional trailing slash.
 * GET and HEAD (headers only: nothing runs, nothing is charged); anything else falls through to the 405/404 handlers.
 */
export function analyticsRouter(services: Services, schema: GraphQLSchema): RequestHandler {
  const table = new Map<string, (req: Request, res: Response) => void>()
  for (const route of ENDPOINTS) {
    const document = loadOperation(route, schema)
    const run = document ? compiledExecutor(schema, document) : null
    table.set(route.path.toLowerCase(), (req, res) => {
      res.locals.route = route.path
      void handle(route, document, run, req, res)
    })
  }
  const dispatch: RequestHandler = (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next()
    const path = req.path.length > 1 && req.path.endsWith('/') ? req.path.slice(0, -1) : req.path
    const handler = table.get(path) ?? table.get(path.toLowerCase())
    if (!handler) return next()
    handler(req, res)
  }

  async function handle(route: Endpoint, document: DocumentNode | null, run: Execute | null, req: Request, res: Response) {
    const requestId = res.locals.requestId as string
    res.set('X-Credits-Charged', '0')
    try {
      // a GET's charge re-checks the key in the store; a HEAD charges nothing, so it reads the key from the store itself
      const principal = await services.auth.authenticate(req.headers.authorization, { fresh: req.method === 'HEAD' })
      res.set('X-Credits-Remaining', String(principal.credits))
      // parsed once, against the request's clock: the resolver takes these values as they are
      const parsed = new Map<string, unknown>()
      // long lists already written for the same source array are spliced in as JSON (src/graphql/list-fragments.ts)
      const fragments = new ListFragments(restJson)
      const ctx = createContext(services, { requestId, authorization: req.headers.authorization, principal, parsedParams: parsed, fragments })
      const values = parseParams(route.params, req.query as Record<string, unknown>, { coins: services.market.coins(), now: ctx.now, cursors: { mac: services.cursorMac, endpoint: route.field } })
      parsed.set(route.field, values)
      if (!document || !run) throw unavailable(`${route.path} is not available yet: its market data is not being collected by this deployment. Nothing was charged.`)
      // HEAD: the headers a GET would get (key and parameters checked), without running the query or charging
      if (req.method === 'HEAD') {
        res.status(200).set('Content-Type', 'application/json; charset=utf-8').end()
        return
      }
      const variableValues = variablesOf(route.params, values)
      // the answer: written from this execution, or kept from an earlier one at the same data version
      let answer: Answer | undefined
      const version = route.answerVersion?.(services)
      const execute: Execute =
        version === undefined
          ? run
          : async (a) => {
              const kept = keptAnswers(services).get(`${route.field}?${queryOf(req)}`, version, async () => {
                const result = await run(a)
                // only a whole answer is kept: one with an error is answered to its caller(s) and forgotten
                if (result.errors?.length) throw new NotKept(result)
                return answerOf(route, result, fragments, ctx.now)
              })
              try {
                answer = await kept
                return answer.result
              } catch (e) {
                if (e instanceof NotKept) return e.result
                throw e
              }
            }
      const metered = await executeMetered(ctx, { schema, document, variableValues, contextValue: ctx }, COST_TABLE, execute)
      if (metered.remaining !== null) res.set('X-Credits-Remaining', String(metered.remaining))
      const errors = metered.result.errors
      if (errors?.length) throw apiErrorOf(errors[0]!)
      answer ??= answerOf(route, metered.result, fragments, ctx.now)
      res.set('X-Credits-Charged', String(metered.charged))
      const { json, asOf, next, fragments: lists } = answer
      sendData(res, 200, json, { requestId, creditsCharged: metered.charged, creditsRemaining: metered.remaining, asOf, next }, { pieces: (body) => lists.pieces(body) })
    } catch (e) {
      const err = toApiError(e)
      if (err.status >= 500) services.logger.error({ err: e, requestId, path: route.path }, 'analytics request failed')
      sendProblem(res, err, requestId)
    }
  }
  return dispatch
}

/** an answer's data as REST writes it, with what its envelope takes from it */
interface Answer {
  result: ExecutionResult
  /** the data, written (snake_case JSON; long lists as tokens that `fragments` replaces) */
  json: string
  asOf: number
  /** a paged answer's cursor (docs/contract.md#paging); undefined when the endpoint does not page */
  next: string | null | undefined
  fragments: ListFragments
}

/** the data of a successful execution written once: long lists sealed, the cursor moved to the meta */
function answerOf(route: Endpoint, result: ExecutionResult, fragments: ListFragments, now: number): Answer {
  if (!fragments.seal(result.data as Record<string, unknown>)) throw new Error(`${route.path}: a list taken as a fragment is missing from the result`)
  let data = (result.data as Record<string, unknown>)[route.field]
  const asOf = data && typeof data === 'object' && 'asOf' in data && typeof data.asOf === 'number' ? data.asOf : now
  // a paged answer's cursor is in the meta, not in the data (docs/contract.md#paging)
  let next: string | null | undefined
  if (data && typeof data === 'object' && !Array.isArray(data) && 'next' in data) {
    const { next: cursor, ...rest } = data as { next: string | null }
    next = cursor
    data = rest
  }
  return { result, json: restJson(data), asOf, next, fragments }
}

/**
 * Kept answers (Endpoint.answerVersion): the written data of a route and query string, while the endpoint's data
 * version is unchanged and for at most ANSWER_MAX_AGE_MS of the service's clock — a later call with the same query
 * is authenticated, charged and enveloped, nothing else (docs/performance.md, eighth round). The age bound keeps what
 * depends on the clock as well as on the data (a venue's freshness, `as_of`) within that much of the call's time.
 */
export const ANSWER_MAX_AGE_MS = 1000
/** queries kept per node (the oldest go first): the cheap endpoints' handful of coin and venue filters, with room */
const KEPT_ANSWERS = 512

const keptAnswers = (services: Services) => cacheOf<Promise<Answer>>(services.market, 'rest-answers', { maxEntries: KEPT_ANSWERS, refreshMs: ANSWER_MAX_AGE_MS, clock: services.clock })

/** an execution with errors: its result, given to every caller that shared it, and nothing kept */
class NotKept extends Error {
  constructor(readonly result: ExecutionResult) {
    super('not kept')
  }
}

/** the request's query string as sent (the parameters were parsed from it, so the same string is the same question) */
const queryOf = (req: Request): string => {
  const at = req.originalUrl.indexOf('?')
  return at < 0 ? '' : req.originalUrl.slice(at + 1)
}
