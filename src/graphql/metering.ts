// Credits for GraphQL operations — and for REST, which runs the same stored operations through here.
// Each analytics root field costs what its REST path costs (aliases counted separately). The whole
// operation is refused up front when the balance cannot cover it; afterwards only the fields that
// resolved without error are charged, in one atomic statement. A failed charge discards the result.
import {
  Kind,
  getArgumentValues,
  getVariableValues,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql'
import { balance } from '../accounts/credits.js'
import { ApiError, insufficientCredits, unauthorized } from '../errors.js'
import type { RequestContext } from './context.js'
import { toGraphQLError } from './errors.js'
import { HEAVY_WORK_ROWS } from './heavy-calls.js'

export interface CostTable {
  /** GraphQL root field → credits */
  cost: ReadonlyMap<string, number>
  /** GraphQL root field → REST path, used as the ledger's endpoint label */
  label: ReadonlyMap<string, string>
  /** the estimated rows of work of a root field with these arguments (src/endpoints/work.ts); 0 when cheap */
  work?: (field: string, args: Record<string, unknown>, ctx: RequestContext) => number
}

interface OperationCost {
  total: number
  /** response key → root field, for the analytics fields that cost credits */
  fields: Map<string, string>
  /** response key → the field's node (its arguments) */
  nodes: Map<string, FieldNode>
  introspectionOnly: boolean
}

export function operationOf(document: DocumentNode, operationName?: string | null): OperationDefinitionNode | undefined {
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
  return operationName ? ops.find((o) => o.name?.value === operationName) : ops.length === 1 ? ops[0] : undefined
}

/** root fields of the operation, through fragments; skip/include are not evaluated (a skipped field is not charged after execution) */
function operationCost(document: DocumentNode, operationName: string | null | undefined, table: CostTable): OperationCost {
  const op = operationOf(document, operationName)
  const fragments = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]),
  )
  const fields = new Map<string, string>()
  const nodes = new Map<string, FieldNode>()
  let introspectionOnly = true
  const visit = (set: SelectionSetNode, seen: Set<string>) => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        const name = sel.name.value
        if (!name.startsWith('__')) introspectionOnly = false
        if (op?.operation === 'query' && table.cost.has(name)) {
          fields.set(sel.alias?.value ?? name, name)
          nodes.set(sel.alias?.value ?? name, sel)
        }
      } else if (sel.kind === Kind.INLINE_FRAGMENT) visit(sel.selectionSet, seen)
      else if (sel.kind === Kind.FRAGMENT_SPREAD && !seen.has(sel.name.value)) {
        const f = fragments.get(sel.name.value)
        if (f) visit(f.selectionSet, new Set([...seen, sel.name.value]))
      }
    }
  }
  if (op) visit(op.selectionSet, new Set())
  let total = 0
  for (const field of fields.values()) total += table.cost.get(field)!
  return { total, fields, nodes, introspectionOnly: op ? introspectionOnly : false }
}

/** the operation's estimated rows of work: the sum over its analytics fields (a field whose arguments do not parse: 0) */
function operationWork(args: ExecutionArgs, cost: OperationCost, table: CostTable, ctx: RequestContext): number {
  const op = operationOf(args.document, args.operationName)
  const fields = args.schema.getQueryType()?.getFields()
  if (!table.work || !op || !fields || !cost.nodes.size) return 0
  const variables = getVariableValues(args.schema, op.variableDefinitions ?? [], args.variableValues ?? {})
  if (!variables.coerced) return 0
  let rows = 0
  for (const node of cost.nodes.values()) {
    const def = fields[node.name.value]
    if (!def) continue
    try {
      rows += table.work(node.name.value, getArgumentValues(def, node, variables.coerced), ctx)
    } catch {
      // refused by its own parameters when it runs, before any work
    }
  }
  return rows
}

export interface Metered {
  result: ExecutionResult
  charged: number
  remaining: number | null
}

/** Run an operation under the credit rules. `execute` is graphql-js's execute (or yoga's wrapped one). */
export async function executeMetered(
  ctx: RequestContext,
  args: ExecutionArgs,
  table: CostTable,
  execute: (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult,
): Promise<Metered> {
  const cost = operationCost(args.document, args.operationName, table)
  const refuse = (e: unknown): Metered => ({ result: { errors: [toGraphQLError(e, { httpStatus: true })] }, charged: 0, remaining: ctx.principal?.credits ?? null })
  if (cost.introspectionOnly) return { result: await execute(args), charged: 0, remaining: null }
  let principal
  try {
    principal = await ctx.requirePrincipal()
  } catch (e) {
    return refuse(e)
  }
  if (cost.total > principal.credits) {
    // the principal may come from a short-lived cache: refuse only on the stored balance
    try {
      principal.credits = await balance(ctx.services.db.sql, principal.accountId)
    } catch (e) {
      return refuse(e)
    }
    if (cost.total > principal.credits) return refuse(insufficientCredits(cost.total, principal.credits))
  }

  // a heavy operation waits its turn per key and per node, or is refused (429, nothing charged): ./heavy-calls.ts
  let result: ExecutionResult
  try {
    result = operationWork(args, cost, table, ctx) >= HEAVY_WORK_ROWS ? await ctx.services.heavy.run(principal.keyId, async () => execute(args)) : await execute(args)
  } catch (e) {
    if (e instanceof ApiError && e.code === 'rate_limited') return refuse(e)
    throw e
  }
  const failed = new Set((result.errors ?? []).map((e) => e.path?.[0]).filter((k) => k !== undefined))
  const data = result.data as Record<string, unknown> | null | undefined
  let due = 0
  const paid: string[] = []
  for (const [key, field] of cost.fields)
    if (!failed.has(key) && data && data[key] !== undefined && data[key] !== null) {
      due += table.cost.get(field)!
      paid.push(field)
    }
  if (due === 0) return { result, charged: 0, remaining: principal.credits }

  const endpoint = paid.length === 1 ? table.label.get(paid[0]!)! : `graphql:${[...new Set(paid)].sort().join(',')}`
  let outcome
  try {
    outcome = await ctx.services.charges.charge({ accountId: principal.accountId, keyId: principal.keyId, cost: due, endpoint, requestId: ctx.requestId })
  } catch (e) {
    return refuse(e) // the store failed: nothing was charged, and the result is not given away
  }
  if (!outcome.ok && outcome.reason === 'revoked') {
    ctx.services.auth.forgetKey(principal.keyId)
    return refuse(unauthorized('The API key has been revoked.'))
  }
  if (!outcome.ok) return { ...refuse(insufficientCredits(due, outcome.remaining)), remaining: outcome.remaining }
  principal.credits = outcome.remaining
  ctx.services.auth.noteBalance(principal.keyId, outcome.remaining)
  return { result, charged: due, remaining: outcome.remaining }
}

