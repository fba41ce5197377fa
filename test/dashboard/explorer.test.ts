// GraphiQL's default document (src/graphql/explorer.ts): every stored operation, each under a header with
// its REST path and credit cost, no named fragments (GraphiQL sends the chosen operation with all of the
// document's fragments, which would fail validation as unused), and each operation, sent the way GraphiQL
// sends it (the whole document plus operationName), runs and is charged what its REST path costs.
import fs from 'node:fs'
import path from 'node:path'
import { Kind, parse, print, validate, type OperationDefinitionNode } from 'graphql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { graphiqlDefaultQuery, graphiqlDefaultVariables } from '../../src/dashboard/explorer.js'
import { schema } from '../../src/endpoints/index.js'
import { ENDPOINTS as ROUTES } from '../../src/endpoints/index.js'
import { operationPath } from '../../src/rest/shim.js'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'

const OPERATIONS_DIR = path.dirname(operationPath(ROUTES[0]!))
const storedNames = () =>
  fs
    .readdirSync(OPERATIONS_DIR)
    .filter((f) => f.endsWith('.graphql'))
    .flatMap((f) => parse(fs.readFileSync(path.join(OPERATIONS_DIR, f), 'utf8')).definitions)
    .filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
    .map((d) => d.name!.value)

describe('GraphiQL default document', () => {
  const text = graphiqlDefaultQuery()
  const doc = parse(text)
  const operations = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)

  it('holds every stored operation of schema/operations/v1 plus the free Account query, and validates', () => {
    expect(operations.map((o) => o.name?.value).sort()).toEqual([...storedNames(), 'Account'].sort())
    expect(validate(schema, doc)).toEqual([])
    expect(doc.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION)).toEqual([])
  })

  it('puts each analytics operation under a header naming its REST path and credit cost', () => {
    for (const r of ROUTES) {
      const header = `# ── ${r.path} · ${r.cost} credit${r.cost === 1 ? '' : 's'} `
      expect(text, r.path).toContain(header)
      // the operation that follows the header selects that route's field
      const after = text.slice(text.indexOf(header))
      const op = parse(after.slice(after.indexOf('query ')).split(/\n\n/)[0]!).definitions[0] as OperationDefinitionNode
      expect(op.selectionSet.selections.map((s) => (s.kind === Kind.FIELD ? s.name.value : ''))).toEqual([r.field])
    }
    expect(text).toMatch(/Authorization/)
    expect(text).toMatch(/^# Perp analytics/)
  })

  it('keeps its comment lines short enough for the editor pane', () => {
    const long = text.split('\n').filter((l) => l.startsWith('#') && l.length > 72)
    expect(long).toEqual([])
  })

  it('offers example variables that every operation can share', () => {
    const vars = JSON.parse(graphiqlDefaultVariables()) as Record<string, unknown>
    expect(vars).toEqual({ coin: 'BTC', interval: 'H1', lookback: 'H24', marketType: 'PERP', bins: 50 })
    // each variable is declared by some operation, with the type it has there
    const declared = new Map(operations.flatMap((o) => (o.variableDefinitions ?? []).map((v) => [v.variable.name.value, print(v.type).replace('!', '')] as const)))
    for (const [name, value] of Object.entries(vars)) expect(declared.get(name), name).toBe(typeof value === 'number' ? 'Int' : ({ interval: 'Interval', lookback: 'Lookback', marketType: 'MarketType' } as Record<string, string>)[name] ?? 'String')
  })

  describe('run as GraphiQL sends it', () => {
    let t: TestService
    let key: string
    let price: number
    beforeAll(async () => {
      t = await startTestService({ clock: () => TEST_NOW })
      await seedMarket(t, { hours: 3 })
      key = (await t.signup()).apiKey
      const ticker = (await (await t.get('/v1/markets/ticker?coin=BTC', key)).json()) as { data: { mark_price: number }[] }
      price = ticker.data[0]!.mark_price
    })
    afterAll(() => t?.close())

    it.each(ROUTES.map((r) => [r.path, r] as const))('%s: its operation answers without errors, charged its REST cost', async (_path, route) => {
      const op = operations.find((o) => o.selectionSet.selections.some((s) => s.kind === Kind.FIELD && s.name.value === route.field))!
      const variables = { ...(JSON.parse(graphiqlDefaultVariables()) as object), triggerPrice: Math.round(price * 0.97) }
      const res = await t.fetch(`/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query: text, operationName: op.name!.value, variables }),
      })
      const body = (await res.json()) as { data?: Record<string, unknown>; errors?: unknown[] }
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined()
      expect(res.status).toBe(200)
      expect(body.data?.[route.field]).toBeDefined()
      expect(res.headers.get('x-credits-charged')).toBe(String(route.cost))
    })

    it('the Account operation is free', async () => {
      const res = await t.fetch(`/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query: text, operationName: 'Account' }),
      })
      const body = (await res.json()) as { data: { account: { credits: number } }; errors?: unknown[] }
      expect(body.errors).toBeUndefined()
      expect(res.headers.get('x-credits-charged')).toBe('0')
      expect(body.data.account.credits).toBe(1000 - 1 - ROUTES.reduce((s, r) => s + r.cost, 0))
    })
  })
})
