// graphql-codegen: typed documents for every stored REST operation (schema/operations/v1/*.graphql),
// generated from the committed SDL. `npm run codegen` must leave the tree unchanged (checked in CI).
import type { CodegenConfig } from '@graphql-codegen/cli'

const config: CodegenConfig = {
  schema: 'schema/schema.graphql',
  documents: ['schema/operations/**/*.graphql'],
  generates: {
    'src/graphql/operations.generated.ts': {
      plugins: ['typescript-operations', 'typed-document-node'],
      config: {
        scalars: { Timestamp: 'number', JSON: 'unknown' },
        enumsAsTypes: true,
        avoidOptionals: true,
        useTypeImports: true,
        skipTypename: true,
      },
    },
  },
  hooks: {},
}

export default config
