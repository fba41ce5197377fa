// The operations GraphiQL opens with: every stored REST operation, so an analyst can run any of them.
import fs from 'node:fs'
import { ROUTES } from '../rest/routes.js'
import { operationPath } from '../rest/shim.js'

export function graphiqlDefaultQuery(): string {
  const docs = ROUTES.filter((r) => fs.existsSync(operationPath(r))).map((r) => fs.readFileSync(operationPath(r), 'utf8').trim())
  return [
    '# Send your key in the Headers tab: {"Authorization": "Bearer <your API key>"}',
    '# Each analytics field costs what its REST path costs (shown above each operation). Pick one with the ▶ menu.',
    '',
    ...docs,
    '',
    '# Free: your account, keys and usage',
    'query Account {\n  account { accountId email credits createdAt }\n  apiKeys { id name prefix createdAt lastUsedAt revokedAt }\n}',
  ].join('\n\n')
}
