import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { SCHEMA_FILE, printedSchema } from '../../src/cli/print-schema.js'

describe('GraphQL schema snapshot', () => {
  it('schema/schema.graphql is the printed schema (run `npm run schema:print` after an intended change)', () => {
    expect(printedSchema()).toBe(fs.readFileSync(SCHEMA_FILE, 'utf8'))
  })
})
