// Reading many rows at once: through a binary COPY where the store offers one (Sql.selectBinary: the embedded
// store, whose own row parsing costs several times the query), else through query(). Same rows either way.
import { readCopyBinary, type CopyColumnType } from './copy-binary.js'
import type { Sql } from './database.js'

/**
 * The rows of `text` (a SELECT whose output columns are exactly `columns`, in order) with $1.. bound to `params`.
 * Parameters are numbers only: a COPY takes no placeholders, so they are written into the statement.
 */
export async function selectRows<T>(sql: Sql, text: string, params: readonly number[], columns: readonly (readonly [name: string, type: CopyColumnType])[]): Promise<T[]> {
  if (!sql.selectBinary) return sql.query<T>(text, [...params])
  const inlined = text.replace(/\$(\d+)/g, (_, i: string) => {
    const n = params[Number(i) - 1]
    if (n === undefined || !Number.isFinite(n)) throw new RangeError(`selectRows: parameter $${i} is ${String(n)}`)
    return String(n)
  })
  return readCopyBinary<T>(await sql.selectBinary(inlined), columns)
}
