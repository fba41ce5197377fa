// Pieces of the OpenAPI document shared by the generated analytics paths and the account routes' own descriptions.
export type JsonSchema = Record<string, unknown>

export const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } }) as never

export const envelope = (data: JsonSchema) => ({
  type: 'object',
  required: ['data', 'meta'],
  properties: { data, meta: { $ref: '#/components/schemas/Meta' } },
})

export const json = (s: JsonSchema) => ({ content: { 'application/json': { schema: s } } })
