// What GraphiQL opens with: one commented document holding every stored REST operation
// (schema/operations/v1/*.graphql), each under a header with its REST path, credit cost and parameters,
// followed by the free account query; plus example variables that every operation can share.
import fs from 'node:fs'
import path from 'node:path'
import {
  getNamedType, isInterfaceType, isObjectType, Kind, parse, print,
  type DefinitionNode, type FragmentDefinitionNode, type GraphQLNamedType, type GraphQLSchema, type InlineFragmentNode,
  type OperationDefinitionNode, type SelectionNode, type SelectionSetNode,
} from 'graphql'
import type { z } from 'zod'
import { snakeToCamel } from '../domain/case.js'
import { paramInfo, type ParamInfo } from '../domain/params.js'
import type { Endpoint } from '../endpoints/define.js'
import { ENDPOINTS as ROUTES, schema as appSchema } from '../endpoints/index.js'
import { enumValueName } from '../graphql/enums.js'
import { operationPath } from '../rest/shim.js'

/** a parameter as the explorer describes it: its name and what the domain says of it */
type ParamSpec = ParamInfo & { name: string }
/** an endpoint's parameters, in order, as the explorer describes them */
const paramsOf = (route: Endpoint): ParamSpec[] =>
  Object.entries(route.params.shape as Record<string, z.ZodType>).map(([name, schema]) => ({ name, ...paramInfo(schema) }))

const credits = (n: number) => `${n} credit${n === 1 ? '' : 's'}`

/** example values for the shared Variables pane (extra variables are ignored by operations that do not declare them) */
const EXAMPLE_VARIABLES: Record<string, unknown> = {
  coin: 'BTC',
  interval: 'H1',
  lookback: 'H24',
  marketType: 'PERP',
  bins: 50,
}

/** GraphiQL's query pane shows about 58 columns on a 1440 px wide screen */
const WIDTH = 58

/** "# text" lines of at most WIDTH characters; continuation lines get `indent` */
function comment(text: string, first = '# ', indent = first): string[] {
  const lines: string[] = []
  let line = first
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line.length + word.length > WIDTH && line.trim() !== '#' && line !== first) {
      lines.push(line.trimEnd())
      line = indent
    }
    line += `${word} `
  }
  lines.push(line.trimEnd())
  return lines
}

function describeParam(p: ParamSpec): string[] {
  const kind =
    p.kind === 'enum' || p.kind === 'exchange' ? p.values!.map(enumValueName).join(' | ')
    : p.kind === 'int' ? `Int ${p.min}..${p.max}`
    : p.kind === 'number' ? 'Float > 0'
    : p.kind === 'timestamp' ? 'Unix ms'
    : 'String'
  const shown = typeof p.default === 'string' ? enumValueName(p.default) : p.default
  const dflt = p.default !== undefined ? `; default ${shown}` : ''
  // a long list of values wraps like the descriptions do
  return [...comment(`$${snakeToCamel(p.name)}${p.required ? ' (required)' : ''}: ${kind}${dflt}`, '#   ', '#       '), ...comment(p.description, '#       ')]
}

function header(route: Endpoint): string {
  const title = `# ── ${route.path} · ${credits(route.cost)} `
  const params = paramsOf(route)
  const example = params.filter((p) => p.required || p.name === 'coin').map((p) => `${p.name}=${p.kind === 'number' ? '…' : 'BTC'}`)
  return [
    title + '─'.repeat(Math.max(3, WIDTH - title.length)),
    ...comment(`${route.summary}.`),
    `# REST: GET ${route.path}${example.length ? `?${example.join('&')}` : ''}`,
    ...(params.length ? ['# Variables:', ...params.flatMap(describeParam)] : ['# No variables.']),
    ...(params.some((p) => p.kind === 'number') ? comment('Add "triggerPrice" to the Variables pane first, e.g. a price 3 % below the current one (see Ticker).') : []),
  ].join('\n')
}

/**
 * The operations with every fragment spread written out in place. GraphiQL sends the chosen operation with
 * all of the document's fragments, so a fragment another operation uses would fail validation as unused.
 */
function withoutFragments(definitions: readonly DefinitionNode[], schema: GraphQLSchema): OperationDefinitionNode[] {
  const fragments = new Map(definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]))
  const expand = (set: SelectionSetNode, parent: GraphQLNamedType | undefined, seen: ReadonlySet<string>): SelectionSetNode => ({
    ...set,
    selections: set.selections.flatMap((sel): SelectionNode[] => {
      if (sel.kind === Kind.FIELD) {
        if (!sel.selectionSet) return [sel]
        const field = parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[sel.name.value] : undefined
        return [{ ...sel, selectionSet: expand(sel.selectionSet, field ? getNamedType(field.type) : undefined, seen) }]
      }
      if (sel.kind === Kind.INLINE_FRAGMENT) {
        const type = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : parent
        return [{ ...sel, selectionSet: expand(sel.selectionSet, type ?? undefined, seen) }]
      }
      const fragment = fragments.get(sel.name.value)
      if (!fragment || seen.has(sel.name.value)) return [sel]
      const condition = fragment.typeCondition.name.value
      const inner = expand(fragment.selectionSet, schema.getType(condition) ?? undefined, new Set([...seen, sel.name.value]))
      // on the same type and without directives, the fields go straight in; otherwise as an inline fragment
      if (!sel.directives?.length && parent?.name === condition) return [...inner.selections]
      const inline: InlineFragmentNode = { kind: Kind.INLINE_FRAGMENT, typeCondition: fragment.typeCondition, directives: sel.directives ?? [], selectionSet: inner }
      return [inline]
    }),
  })
  return definitions
    .filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
    .map((op) => ({ ...op, selectionSet: expand(op.selectionSet, schema.getRootType(op.operation) ?? undefined, new Set()) }))
}

interface StoredOperation {
  route: Endpoint | null
  name: string
  definitions: DefinitionNode[]
}

/** every .graphql file of schema/operations/v1, in route-table order first, then any file the table does not name */
function storedOperations(): StoredOperation[] {
  const dir = ROUTES[0] ? path.dirname(operationPath(ROUTES[0])) : ''
  const files = dir && fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.graphql')).sort() : []
  const byFile = new Map(ROUTES.map((r) => [`${r.operation}.graphql`, r]))
  const ordered = [...ROUTES.map((r) => `${r.operation}.graphql`).filter((f) => files.includes(f)), ...files.filter((f) => !byFile.has(f))]
  return ordered.map((f) => ({ route: byFile.get(f) ?? null, name: f.replace(/\.graphql$/, ''), definitions: [...parse(fs.readFileSync(path.join(dir, f), 'utf8')).definitions] }))
}

/**
 * The default GraphiQL document. Operations whose field the schema does not have yet are left out
 * (and named in a comment), so the document always validates.
 */
export function graphiqlDefaultQuery(schema: GraphQLSchema = appSchema): string {
  const fields = schema.getQueryType()?.getFields()
  const ops = storedOperations()
  const available = ops.filter((o) => !fields || !o.route || fields[o.route.field])
  const missing = ops.filter((o) => !available.includes(o))

  const blocks = available.map((op) =>
    [op.route ? header(op.route) : `# ── stored operation ${op.name} ──`, ...withoutFragments(op.definitions, schema).map((d) => print(d))].join('\n'),
  )

  const total = available.reduce((sum, o) => sum + (o.route?.cost ?? 0), 0)
  const intro = [
    '# Perp analytics · GraphQL explorer',
    '#',
    '# 1. Put your key in the Headers pane below:',
    '#    {"Authorization": "Bearer pa_…"}',
    ...comment('No key yet? Sign up at /dashboard (trial credits included).', '#    '),
    ...comment("2. Run one operation: press ▶ and pick it from the menu, or put the cursor inside it and press Ctrl+Enter (⌘+Enter).", '# ', '#    '),
    ...comment(`Only the operation you run is charged: each analytics field costs what its REST path costs (shown in its header below; ${credits(total)} for all of them), and only when it succeeds. Aliases count separately.`, '#    '),
    ...comment('3. The Variables pane is shared: an operation ignores the variables it does not declare. For example:', '# ', '#    '),
    ...comment(JSON.stringify(EXAMPLE_VARIABLES).replace(/,/g, ', ').replace(/":/g, '": '), '#    ', '#     '),
    ...comment('Drop "coin" to get every coin where it is optional.', '#    '),
    '#',
    ...comment('Fields are the camelCase of the REST JSON (which is snake_case); the REST contract is /openapi.json.'),
    ...(missing.length ? ['#', ...comment(`Not available in this deployment yet: ${missing.map((o) => o.route?.path ?? o.name).join(', ')}.`)] : []),
  ]
  return [
    intro.join('\n'),
    ...blocks,
    [
      `# ── Free: your account, keys and usage ${'─'.repeat(Math.max(3, WIDTH - 40))}`,
      print(parse('query Account { account { accountId email credits createdAt } apiKeys { id name prefix createdAt lastUsedAt revokedAt } usage(days: 30) { totalCredits calls byEndpoint { endpoint calls credits } } }')),
    ].join('\n'),
  ].join('\n\n') + '\n'
}

/**
 * The example Variables pane, as GraphiQL wants it (a JSON string). yoga's GraphiQLOptions type does not
 * list it, but render-graphiql hands a `variables` option to GraphiQL as its initialVariables.
 */
export function graphiqlDefaultVariables(): string {
  return JSON.stringify(EXAMPLE_VARIABLES, null, 2)
}
