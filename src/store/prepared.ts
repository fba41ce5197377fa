// Named prepared statements on the embedded store. PGlite's query() parses, analyses and plans its statement on
// every call (six protocol round trips into the WebAssembly backend); for a statement that runs hundreds of times
// a second — the credit charge — that is most of its cost. Here a statement is parsed once under a name, and each
// call is one Bind/Describe/Execute/Sync message, run under PGlite's exclusive locks (never inside another
// caller's transaction). Parameters travel in PostgreSQL's text format (arrays as array literals).
import { parse as pgParse, protocol, type PGlite } from '@electric-sql/pglite'

/** one parameter in PostgreSQL's text input format; arrays as array literals (any depth), null as SQL NULL */
export function textParam(v: unknown): string | null {
  if (v === null || v === undefined) return null
  if (Array.isArray(v)) return arrayLiteral(v)
  return scalarText(v)
}

function scalarText(v: unknown): string {
  if (typeof v === 'string') {
    if (v.includes('\u0000')) throw new RangeError('text parameters cannot contain NUL characters')
    return v
  }
  if (typeof v === 'number' || typeof v === 'bigint') return String(v)
  if (typeof v === 'boolean') return v ? 't' : 'f'
  if (v instanceof Date) return v.toISOString()
  throw new TypeError(`unsupported parameter type: ${typeof v}`)
}

function arrayLiteral(items: readonly unknown[]): string {
  const parts = items.map((x) => {
    if (x === null || x === undefined) return 'NULL'
    if (Array.isArray(x)) return arrayLiteral(x)
    // every element quoted: commas, braces, spaces and the word NULL are then plain data
    return `"${scalarText(x).replace(/[\\"]/g, '\\$&')}"`
  })
  return `{${parts.join(',')}}`
}

/** a `prepared(name, text, params)` function for one PGlite instance */
export function pglitePrepared(pg: PGlite) {
  const s = protocol.serialize
  const known = new Map<string, string>()
  return async function prepared<T>(name: string, text: string, params: readonly unknown[]): Promise<T[]> {
    const values = params.map(textParam)
    // query() waits for an open transaction to end; runExclusive() alone does not (it holds only the per-statement
    // lock, free between a transaction's statements), so both locks are taken, in query()'s order
    return pg._runExclusiveTransaction(() => pg.runExclusive(async () => {
      const prev = known.get(name)
      if (prev !== text) {
        if (prev !== undefined) await pg.execProtocol(Buffer.concat([s.close({ type: 'S', name }), s.sync()]))
        await pg.execProtocol(Buffer.concat([s.parse({ name, text, types: [] }), s.sync()]))
        known.set(name, text)
      }
      const { messages } = await pg.execProtocol(Buffer.concat([s.bind({ statement: name, values }), s.describe({ type: 'P' }), s.execute({}), s.sync()]))
      return (pgParse.parseResults(messages, pg.parsers)[0]?.rows ?? []) as T[]
    }))
  }
}
