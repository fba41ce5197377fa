// npm run schema:print — write the GraphQL SDL to schema/schema.graphql (the committed snapshot).
import fs from 'node:fs'
import path from 'node:path'
import { lexicographicSortSchema, printSchema } from 'graphql'
import { schema } from '../endpoints/index.js'
import { ROOT } from '../paths.js'

export const SCHEMA_FILE = path.join(ROOT, 'schema', 'schema.graphql')
export const printedSchema = () => `${printSchema(lexicographicSortSchema(schema))}\n`

if (import.meta.url === `file://${process.argv[1]}`) {
  fs.writeFileSync(SCHEMA_FILE, printedSchema())
  console.log(`wrote ${path.relative(process.cwd(), SCHEMA_FILE)}`)
}
