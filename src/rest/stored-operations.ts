// The stored REST operations (schema/operations/v1/<operation>.graphql), generated: each selects every field of its
// root field, in the order the output types define them, less what the endpoint's file says REST leaves out
// (`rest.omit`, with its reason). `npm run operations:print` writes them; test/rest/stored-operations.test.ts fails
// when a committed file differs from what the schema generates, as CI checks codegen's output.
import { getNamedType, isInterfaceType, isObjectType, isScalarType, type GraphQLField, type GraphQLNamedType, type GraphQLObjectType, type GraphQLSchema } from 'graphql'
import type { Endpoint } from '../endpoints/define.js'

const article = (word: string) => (/^[AEIOU]/.test(word) ? 'an' : 'a')
const lowerFirst = (s: string) => s[0]!.toLowerCase() + s.slice(1)
const upperFirst = (s: string) => s[0]!.toUpperCase() + s.slice(1)

/** operation names: the operation file's name in PascalCase (funding-history → FundingHistory) */
const operationName = (route: Endpoint) => route.operation.split('-').map(upperFirst).join('')

/**
 * The type each argument name has on most root fields. GraphiQL shares one set of variables across the stored
 * operations, so an argument of another type under the same name (regime's HourlyInterval `interval`) gets a
 * variable named after its type instead.
 */
function usualArgTypes(schema: GraphQLSchema, routes: readonly Endpoint[]): Map<string, string> {
  const counts = new Map<string, Map<string, number>>()
  const fields = schema.getQueryType()!.getFields()
  for (const r of routes)
    for (const a of fields[r.field]?.args ?? []) {
      const byType = counts.get(a.name) ?? new Map<string, number>()
      const type = getNamedType(a.type).name
      byType.set(type, (byType.get(type) ?? 0) + 1)
      counts.set(a.name, byType)
    }
  return new Map([...counts].map(([name, byType]) => [name, [...byType].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))[0]![0]]))
}

/** every field below `type`, indented, recursively; `omit` holds dotted paths from the root field's type */
function selection(type: GraphQLNamedType, indent: string, at: string, omit: ReadonlySet<string>, used: Set<string>): string[] {
  if (!isObjectType(type) && !isInterfaceType(type)) return []
  const out: string[] = []
  // the paging cursor last: the REST shim moves it out of the body into meta.next
  const fields = (Object.values((type as GraphQLObjectType).getFields()) as GraphQLField<unknown, unknown>[]).sort((x, y) => Number(x.name === 'next') - Number(y.name === 'next'))
  for (const f of fields) {
    const where = at ? `${at}.${f.name}` : f.name
    if (omit.has(where)) {
      used.add(where)
      continue
    }
    const inner = getNamedType(f.type)
    if (isObjectType(inner) || isInterfaceType(inner)) out.push(`${indent}${f.name} {`, ...selection(inner, `${indent}  `, where, omit, used), `${indent}}`)
    else out.push(`${indent}${f.name}`)
  }
  return out
}

/**
 * The text of one stored operation. `schema` must keep the types' definition order (builder.toSchema({ sortSchema:
 * false })): the REST body's keys come in the order the operation selects them.
 */
export function storedOperationText(route: Endpoint, schema: GraphQLSchema, routes: readonly Endpoint[]): string {
  const field = schema.getQueryType()?.getFields()[route.field]
  if (!field) throw new Error(`the schema has no root field ${route.field}`)
  const usual = usualArgTypes(schema, routes)
  const notes: string[] = []
  const vars = field.args.map((a) => {
    const named = getNamedType(a.type)
    const type = named.name
    const usualType = usual.get(a.name)!
    // a number or a string fits a variable of another scalar type by the same name; an enum's values do not
    if (type === usualType || isScalarType(named)) return { arg: a.name, variable: a.name, type: String(a.type) }
    const variable = lowerFirst(type)
    notes.push(`# $${variable}, not $${a.name}: GraphiQL shares one set of variables across operations, and ${a.name} is ${article(usualType)} ${usualType} there`)
    return { arg: a.name, variable, type: String(a.type) }
  })
  const omit = new Set(route.rest?.omit ?? [])
  const used = new Set<string>()
  const body = selection(getNamedType(field.type), '    ', '', omit, used)
  const unknown = [...omit].filter((p) => !used.has(p))
  if (unknown.length) throw new Error(`${route.operation}: rest.omit names no field of ${route.field}: ${unknown.join(', ')}`)
  if (omit.size) notes.push(`# not in the REST body: ${[...omit].join(', ')} (${route.rest!.why})`)
  const declared = vars.length ? `(${vars.map((v) => `$${v.variable}: ${v.type}`).join(', ')})` : ''
  const passed = vars.length ? `(${vars.map((v) => `${v.arg}: $${v.variable}`).join(', ')})` : ''
  return [
    `# GET ${route.path} (${route.cost} credit${route.cost > 1 ? 's' : ''})`,
    ...notes,
    `query ${operationName(route)}${declared} {`,
    `  ${route.field}${passed} {`,
    ...body,
    '  }',
    '}',
    '',
  ].join('\n')
}
