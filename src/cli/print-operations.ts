// npm run operations:print — write the stored REST operations (schema/operations/v1/*.graphql), generated from the
// endpoints' output types (src/rest/stored-operations.ts). Run it after changing an output type, then npm run codegen.
import fs from 'node:fs'
import path from 'node:path'
import { definitionOrderSchema, ENDPOINTS } from '../endpoints/index.js'
import { storedOperationText } from '../rest/stored-operations.js'
import { operationPath } from '../rest/shim.js'

const schema = definitionOrderSchema()
let changed = 0
for (const route of ENDPOINTS) {
  const file = operationPath(route)
  const text = storedOperationText(route, schema, ENDPOINTS)
  if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === text) continue
  fs.writeFileSync(file, text)
  changed++
  console.log(`wrote ${path.relative(process.cwd(), file)}`)
}
console.log(changed ? `${changed} of ${ENDPOINTS.length} stored operations written` : `all ${ENDPOINTS.length} stored operations up to date`)
