// Prisma CLI configuration. The CLI wants a native schema engine before it will generate; none can be
// downloaded here and none is needed: generate never runs it, and migrations go through src/store/migrations.ts.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'prisma/config'

const here = path.dirname(fileURLToPath(import.meta.url))
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(here, '..', 'scripts', 'no-native-schema-engine.sh')

export default defineConfig({
  schema: path.join(here, 'schema.prisma'),
  migrations: { path: path.join(here, 'migrations') },
})
