// Shared checks for the REST contract tests of the structure and signal endpoints (volume-profile,
// liquidation-cascade, divergence, snapshot). Not a test file: the *.test.ts files in this folder import it.
// The envelope/charge checks (callOk, callBad) come from ../markets/helpers.ts and are reused, not copied.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Kind, parse, type OperationDefinitionNode, type SelectionSetNode } from 'graphql'
import { expect } from 'vitest'
import { expectProblem, type TestService } from '../../helpers/service.js'
import { balance, sortedKeys, type Json } from '../markets/helpers.js'

export type Acct = { apiKey: string; accountId: string }

const OPERATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'schema', 'operations', 'v1')

/** the stored GraphQL operation REST runs for a path (schema/operations/v1/<name>.graphql), as text */
const operationText = (name: string) => fs.readFileSync(path.join(OPERATIONS, `${name}.graphql`), 'utf8')

/** GraphQL camelCase → REST snake_case, written here independently of src/: a digit run starts a word (oiChange24hPct → oi_change_24h_pct) */
const toSnake = (s: string) =>
  s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([a-zA-Z])(\d)/g, '$1_$2')
    .toLowerCase()

export function snakeDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(snakeDeep)
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [toSnake(k), snakeDeep(x)]))
  return v
}

/** the selection tree of the stored operation's root field, in REST (snake_case) names: {key: subtree | null (leaf)} */
export type Tree = { [k: string]: Tree | null }
export function operationTree(name: string): Tree {
  const doc = parse(operationText(name))
  const op = doc.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!
  const walk = (set: SelectionSetNode): Tree => {
    const out: Tree = {}
    for (const sel of set.selections) if (sel.kind === Kind.FIELD) out[toSnake(sel.name.value)] = sel.selectionSet ? walk(sel.selectionSet) : null
    return out
  }
  const root = op.selectionSet.selections[0]
  if (!root || root.kind !== Kind.FIELD || !root.selectionSet) throw new Error(`${name}: no root field selection`)
  return walk(root.selectionSet)
}

/** the REST payload has exactly the keys the stored operation selects, at every depth (null objects allowed) */
export function expectMatchesTree(v: unknown, tree: Tree, where = 'data'): void {
  if (Array.isArray(v)) return v.forEach((x, i) => expectMatchesTree(x, tree, `${where}[${i}]`))
  if (v === null) return
  expect(typeof v, `${where} is an object`).toBe('object')
  expect(sortedKeys(v as Json), `${where} keys = the stored operation's selection`).toEqual(Object.keys(tree).sort())
  for (const [k, sub] of Object.entries(tree)) if (sub) expectMatchesTree((v as Json)[k], sub, `${where}.${k}`)
}

/**
 * A refused call with any status: RFC 9457 problem+json with `code`, nothing charged (balance unchanged,
 * X-Credits-Charged 0), X-Request-Id = request_id.
 */
export async function callFail(t: TestService, acct: Acct, p: string, status: number, code: string): Promise<Json> {
  const before = await balance(t, acct.accountId)
  const res = await t.get(p, acct.apiKey)
  const problem = (await expectProblem(res, status, code)) as Json
  expect(problem.status).toBe(status)
  expect(typeof problem.detail).toBe('string')
  expect(problem.detail.length).toBeGreaterThan(10)
  expect(res.headers.get('x-credits-charged')).toBe('0')
  expect(res.headers.get('x-credits-remaining')).toBe(String(before))
  expect(res.headers.get('x-request-id')).toBe(problem.request_id)
  expect(await balance(t, acct.accountId), `${p} charged nothing`).toBe(before)
  return problem
}

/**
 * POST /graphql with a stored operation and variables; checks 200, no errors, and that exactly `cost`
 * credits were charged (balance and extensions.credits). Returns the root field's data (camelCase).
 */
export async function graphqlOp(t: TestService, acct: Acct, name: string, field: string, variables: Record<string, unknown>, cost: number): Promise<Json> {
  const before = await balance(t, acct.accountId)
  const res = await t.fetch(`/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${acct.apiKey}` },
    body: JSON.stringify({ query: operationText(name), variables }),
  })
  const text = await res.text()
  expect(res.status, text.slice(0, 500)).toBe(200)
  const body = JSON.parse(text) as Json
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined()
  expect(body.extensions?.credits?.charged).toBe(cost)
  expect(before - (await balance(t, acct.accountId)), `GraphQL ${field} charges ${cost}`).toBe(cost)
  return body.data[field] as Json
}

export const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length
export const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0)
export const floorTo = (t: number, step: number) => Math.floor(t / step) * step
