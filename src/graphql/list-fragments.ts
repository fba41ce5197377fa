// Long lists written once (REST): a list field resolved through `fragmentList` lets the REST shim reuse, for a source
// array it has already written under the same selection, the JSON it wrote then, instead of running the selection
// over every item again and serialising the result again (a 30-day series at 1h is thousands of objects per answer).
// The JSON kept is what executing the stored operation produced for that very array, so REST still says exactly
// what GraphQL says. Sound because the lists given here are never changed once built (a cache builds a new array
// when its data moves) and their items' fields are pure functions of the item. GraphQL callers are not affected.
import { randomUUID } from 'node:crypto'
import type { FieldNode, GraphQLResolveInfo } from 'graphql'

/** shorter lists are cheaper to execute than to track */
const MIN_ITEMS = 24

/** source array → the JSON written for it (UTF-8), per selection (the stored operation's field node: one per operation) */
const written = new WeakMap<object, WeakMap<FieldNode, Buffer>>()

/** stands for a list in the data until the JSON is spliced in; the random part keeps it from meaning anything else */
const TOKEN = `list-${randomUUID()}-`
const TOKEN_JSON = new RegExp(`"${TOKEN}(\\d+)"`)

interface Entry {
  path: readonly (string | number)[]
  /** the JSON written before for this array and selection; null: written by this execution */
  json: Buffer | null
  items: readonly unknown[]
  node: FieldNode
}

const pathOf = (p: GraphQLResolveInfo['path'] | undefined): (string | number)[] => {
  const out: (string | number)[] = []
  for (let q = p; q; q = q.prev) out.push(q.key)
  return out.reverse()
}

/** one REST execution's long lists */
export class ListFragments {
  private readonly entries: Entry[] = []
  private sealed: Buffer[] | null = null

  /** `serialise`: how the REST answer writes a value (its key case), so a fragment reads as the rest of the body */
  constructor(private readonly serialise: (value: unknown) => string) {}

  /** the resolver's side: the list itself, or an empty one standing for the JSON already written for it */
  take<T>(items: readonly T[], info: GraphQLResolveInfo): readonly T[] {
    if (items.length < MIN_ITEMS || info.fieldNodes.length !== 1) return items
    const node = info.fieldNodes[0]!
    const json = written.get(items)?.get(node)
    this.entries.push({ path: pathOf(info.path), json: json ?? null, items, node })
    return json === undefined ? items : []
  }

  /**
   * After execution: each list taken is replaced in `data` (the execution's data) by a token; the lists executed
   * now are serialised and kept for their array. Returns false when a list is not where it was resolved (an error
   * nulled its parent): then `data` is left as it is.
   */
  seal(data: Record<string, unknown>): boolean {
    const located = this.entries.map((e) => {
      let parent: unknown = data
      for (const k of e.path.slice(0, -1)) parent = parent && typeof parent === 'object' ? (parent as Record<string | number, unknown>)[k] : undefined
      return parent && typeof parent === 'object' ? (parent as Record<string | number, unknown>) : null
    })
    if (located.some((p) => p === null)) return false
    this.sealed = this.entries.map((e, i) => {
      const parent = located[i]!
      const key = e.path.at(-1)!
      let json = e.json
      if (json === null) {
        json = Buffer.from(this.serialise(parent[key]))
        let byNode = written.get(e.items)
        if (!byNode) written.set(e.items, (byNode = new WeakMap()))
        byNode.set(e.node, json)
      }
      parent[key] = `${TOKEN}${i}`
      return json
    })
    return true
  }

  /**
   * The serialised body in pieces, each token replaced by its list's JSON: the text between lists as strings, the
   * lists as the bytes encoded once (never measured or encoded again per answer; REST may also compress them once:
   * src/rest/gzip-pieces.ts).
   */
  pieces(body: string): (string | Buffer)[] {
    const lists = this.sealed
    if (!lists?.length) return [body]
    // split() with a capturing group: text, list index, text, list index, …, text
    return body.split(TOKEN_JSON).map((part, i) => (i % 2 === 0 ? part : lists[Number(part)]!))
  }
}

/** a list field's resolver that lets REST reuse the JSON of a list it has written (see above) */
export const fragmentList =
  <P, L extends readonly unknown[] | null>(list: (parent: P) => L) =>
  (parent: P, _args: unknown, ctx: { readonly fragments?: ListFragments }, info: GraphQLResolveInfo): L => {
    const items = list(parent)
    return items && ctx.fragments ? (ctx.fragments.take(items, info) as L) : items
  }
