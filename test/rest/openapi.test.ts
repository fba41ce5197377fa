// /openapi.json is a valid OpenAPI 3.1 document, and the service answers every path in it as it says:
// 401 without a key, 400 naming the parameter for each bad enum value and each missing required parameter,
// x-credits charged exactly once on a 200 whose body validates against the documented schema, and 503
// only where the document itself says the path is not available.
import { Validator } from '@seriousme/openapi-schema-validator'
// Ajv is what @seriousme/openapi-schema-validator validates with (its own dependency, hoisted); it does not
// re-export it, so the response bodies are checked with the same Ajv build through its 2020-12 entry point.
import * as ajv2020 from 'ajv/dist/2020.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENDPOINTS as ROUTES } from '../../src/endpoints/index.js'
import type { Endpoint as AnalyticsRoute } from '../../src/endpoints/define.js'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { expectProblem, startTestService, type TestService } from '../helpers/service.js'

type Json = Record<string, any>
type ValidateFunction = ((data: unknown) => boolean) & { errors?: unknown }
interface JsonSchemaValidator {
  addSchema(schema: object, key: string): unknown
  getSchema(key: string): ValidateFunction | undefined
  compile(schema: object): ValidateFunction
  errorsText(errors: unknown, options?: { separator?: string }): string
}
// a CommonJS module: its class is module.exports (the ESM default), whatever the typings say
const Ajv = ((ajv2020 as unknown as { default?: unknown }).default ?? ajv2020) as new (options: Record<string, unknown>) => JsonSchemaValidator

interface Parameter {
  name: string
  in: string
  required: boolean
  example?: unknown
  description?: string
  schema: { type?: string; enum?: string[]; default?: unknown; description?: string; examples?: string[] }
}

/** the values a parameter takes, when the document lists them: an enum, or "one of A, B (case-insensitive)" */
function listed(p: Parameter): string[] | null {
  if (p.schema.enum) return p.schema.enum
  const m = /^one of (.+?) \(case-insensitive\)$/.exec(p.schema.description ?? '')
  return m ? m[1]!.split(', ') : null
}

describe('/openapi.json', () => {
  let t: TestService
  let doc: Json
  let key: string
  let accountId: string
  let ajv: JsonSchemaValidator
  /** a current BTC price, for trigger_price */
  let btcPrice: number
  /** a second account, for the calls over every enum value */
  let enumKey: string

  beforeAll(async () => {
    t = await startTestService({ clock: () => TEST_NOW })
    await seedMarket(t)
    const res = await t.fetch(`/openapi.json`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    doc = (await res.json()) as Json
    ;({ apiKey: key, accountId } = await t.signup())
    // the whole document is one schema resource, so its $refs (#/components/...) resolve as written
    ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false })
    ajv.addSchema(doc, 'openapi.json')
    const ticker = (await (await t.get('/v1/markets/ticker?coin=BTC', key)).json()) as { data: { mark_price: number | null }[] }
    btcPrice = ticker.data.map((r) => r.mark_price).find((p): p is number => typeof p === 'number')!
    expect(btcPrice).toBeGreaterThan(0)
    // calls that are not this account's ledger: every enum value of every path
    const other = await t.signup()
    await t.setCredits(other.accountId, 1_000_000)
    enumKey = other.apiKey
  })
  afterAll(() => t?.close())

  const op = (path: string, method = 'get'): Json => doc.paths[path][method]
  const params = (path: string): Parameter[] => op(path).parameters ?? []

  /** a valid query for the path: every required parameter filled in */
  function validQuery(path: string, overrides: Record<string, string | undefined> = {}): string {
    const q = new URLSearchParams()
    for (const p of params(path)) {
      if (!p.required) continue
      if (p.name === 'coin') q.set('coin', 'BTC')
      else if (p.name === 'trigger_price') q.set('trigger_price', String(Math.round(btcPrice * 0.97)))
      else if (p.schema.default !== undefined) q.set(p.name, String(p.schema.default))
      else if (listed(p)) q.set(p.name, listed(p)![0]!)
      else throw new Error(`no example value for the required parameter ${p.name} of ${path}`)
    }
    for (const [k, v] of Object.entries(overrides)) if (v === undefined) q.delete(k)
    else q.set(k, v)
    const s = q.toString()
    return s ? `${path}?${s}` : path
  }

  /** validate a body against a schema of the document, by JSON pointer */
  function validate(pointer: string, body: unknown): string | null {
    const check = ajv.getSchema(`openapi.json#${pointer}`) ?? ajv.compile({ $ref: `openapi.json#${pointer}` })
    return check(body) ? null : ajv.errorsText(check.errors, { separator: '\n' })
  }
  const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1')
  const responsePointer = (path: string, method: string, status: string, type: string) => `/paths/${esc(path)}/${method}/responses/${status}/content/${esc(type)}/schema`

  async function balance(): Promise<number> {
    const res = await t.get('/v1/account', key)
    return ((await res.json()) as { data: { credits: number } }).data.credits
  }

  it('is a valid OpenAPI 3.1 document at version 1.0.0 (interface.md)', async () => {
    const result = await new Validator().validate(structuredClone(doc))
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(doc.openapi).toMatch(/^3\.1\./)
    expect(doc.info.version).toBe('1.0.0')
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
  })

  it('documents exactly the routes of the table, each with its cost as x-credits, and the free account paths at 0', () => {
    const analytics = Object.keys(doc.paths).filter((p) => Object.values(doc.paths[p] as Json).some((o: Json) => o['x-credits'] > 0))
    expect(analytics.sort()).toEqual(ROUTES.map((r) => r.path).sort())
    for (const r of ROUTES) {
      expect(op(r.path)['x-credits'], r.path).toBe(r.cost)
      expect(op(r.path).security).toEqual([{ bearerAuth: [] }])
      expect(params(r.path).map((p) => p.name)).toEqual(Object.keys(r.params.shape))
    }
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>))
      for (const [method, o] of Object.entries(item)) if (!ROUTES.some((r) => r.path === path)) expect(o['x-credits'], `${method} ${path}`).toBe(0)
  })

  it('every parameter of every operation carries an example of the right type (one it lists, where it lists values)', () => {
    let n = 0
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>))
      for (const [method, o] of Object.entries(item)) {
        for (const p of (o.parameters ?? []) as Parameter[]) {
          const where = `${method.toUpperCase()} ${path} ${p.name}`
          expect(p.example, where).toBeDefined()
          const type = p.schema.type
          if (type === 'integer') expect(Number.isInteger(p.example), where).toBe(true)
          else if (type === 'number') expect(typeof p.example, where).toBe('number')
          else expect(typeof p.example, where).toBe('string')
          if (listed(p)) expect(listed(p), where).toContain(p.example)
          n++
        }
      }
    expect(n).toBeGreaterThan(100)
  })

  it('documents the venue-truth fields: funding kind, mark quotes, book reach and per-band sources', () => {
    const data = (path: string) => doc.paths[path].get.responses['200'].content['application/json'].schema.properties.data
    const kind = { oneOf: [{ type: 'string', enum: ['predicted', 'settled'] }, { type: 'null' }] }
    expect(data('/v1/markets/ticker').items.properties.funding_kind).toMatchObject(kind)
    const funding = data('/v1/funding/weighted').items.properties
    expect(funding.funding_kind).toMatchObject(kind)
    expect(funding.exchanges.items.properties.funding_kind).toMatchObject(kind)
    const spread = data('/v1/structure/spread').items.properties
    expect(Object.keys(spread.prices.items.properties)).toEqual(['exchange', 'price', 'quote', 'ts', 'price_source', 'outlier', 'outlier_reason'])
    expect(spread.mixed_quotes).toMatchObject({ type: 'boolean' })
    const leg = data('/v1/funding/arbitrage').properties.opportunities.items.properties.long.properties
    expect(leg.funding_kind).toMatchObject({ type: 'string', enum: ['predicted', 'settled'] })
    expect(Object.keys(leg)).toEqual(expect.arrayContaining(['quote', 'price_source', 'price_outlier']))
    const imbalance = data('/v1/flow/imbalance').items.properties
    expect(imbalance.exchanges.items.properties.bid_reach_pct).toMatchObject({ oneOf: [{ type: 'number' }, { type: 'null' }] })
    expect(Object.keys(imbalance.exchanges.items.properties.bands.oneOf[0].items.properties)).toEqual(['band_pct', 'bid_depth_usd', 'ask_depth_usd', 'ratio', 'source', 'granularity_pct', 'note'])
    expect(Object.keys(imbalance.aggregate.properties.bands.oneOf[0].items.properties)).toEqual(['band_pct', 'bid_depth_usd', 'ask_depth_usd', 'ratio', 'exchanges', 'excluded', 'note'])
  })

  it('the response-schema check is not vacuous: a wrong body fails it', () => {
    const pointer = responsePointer('/v1/markets/exchanges', 'get', '200', 'application/json')
    const meta = { request_id: 'r', credits_charged: 1, credits_remaining: 1, as_of: 1 }
    const feed = { published: true, source: 'a stream', note: null }
    const liquidations = { ...feed, completeness: 'sample', price: 'average_fill', usd: 'ap × z', status: 'operational', status_reason: null, up_since: 1 }
    const good = { id: 'binance', name: 'Binance', type: 'CEX', status: 'operational', status_reason: null, last_update: 1, liquidations, positioning: feed, source: 'live' }
    expect(validate(pointer, { data: [good], meta })).toBeNull()
    expect(validate(pointer, { data: [{ ...good, extra: 1 }], meta })).toMatch(/additional/)
    expect(validate(pointer, { data: [{ ...good, name: 5 }], meta })).toMatch(/string/)
    expect(validate(pointer, { data: [good] })).toMatch(/meta/)
  })

  describe.each(ROUTES.map((r) => [r.path, r] as const))('GET %s', (path: string, route: AnalyticsRoute) => {
    it('401 without a key and with an unknown key, charging nothing', async () => {
      for (const auth of [null, `pa_${'x'.repeat(43)}`]) {
        const res = await t.get(validQuery(path), auth)
        const body = await expectProblem(res, 401, 'unauthorized')
        expect(validate('/components/schemas/Problem', body)).toBeNull()
        expect(Object.keys(op(path).responses)).toContain('401')
        expect(res.headers.get('x-credits-charged')).toBe('0')
      }
    })

    it('400 naming the parameter for each listed parameter given a bad value, and for each missing required one', async () => {
      const before = await balance()
      for (const p of params(path)) {
        const allowed = listed(p)
        if (allowed) {
          const res = await t.get(validQuery(path, { [p.name]: 'not-a-real-value' }), key)
          const body = await expectProblem(res, 400, 'invalid_parameter')
          expect(body.parameter, `${path} ${p.name}`).toBe(p.name)
          expect(String(body.detail)).toContain(p.name === 'coin' || p.name === 'exchange' ? 'not-a-real-value' : p.name)
          expect((body.allowed as string[]).map(String).sort()).toEqual([...allowed].sort())
          expect(validate('/components/schemas/Problem', body)).toBeNull()
        }
        if (p.required) {
          const body = await expectProblem(await t.get(validQuery(path, { [p.name]: undefined }), key), 400, 'invalid_parameter')
          expect(body.parameter).toBe(p.name)
        }
      }
      const body = await expectProblem(await t.get(validQuery(path, { no_such_parameter: '1' }), key), 400, 'invalid_parameter')
      expect(body.parameter).toBe('no_such_parameter')
      expect(await balance()).toBe(before)
    })

    it('every value an enumerated parameter lists, and every parameter\'s example, is accepted: no 400 naming that parameter', async () => {
      for (const p of params(path)) {
        // a cursor belongs to the parameters of the page it came from: its example shows the form, not a page of these
        const values = [...(p.schema.enum ?? []), ...(p.name === 'cursor' ? [] : [p.example])]
        for (const value of values) {
          const res = await t.get(validQuery(path, { [p.name]: String(value) }), enumKey)
          if (res.status === 400) expect(((await res.json()) as Json).parameter, `${path} ${p.name}=${value} is listed but refused`).not.toBe(p.name)
          else expect([200, 503], `${path} ${p.name}=${value}`).toContain(res.status)
        }
      }
    })

    it('a call with the required parameters charges x-credits once, and the body validates against the 200 schema', async () => {
      const o = op(path)
      const before = await balance()
      const res = await t.get(validQuery(path), key)
      if (res.status === 503) {
        // only where the document says so
        expect(o.description, `${path} answered 503 but its document does not say it is unavailable`).toMatch(/not available/i)
        await expectProblem(res, 503, 'unavailable')
        expect(res.headers.get('x-credits-charged')).toBe('0')
        expect(await balance()).toBe(before)
        return
      }
      expect(res.status, await res.clone().text()).toBe(200)
      expect(o.description).not.toMatch(/not available/i)
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      const body = (await res.json()) as { data: Json; meta: Json }
      expect(Number(res.headers.get('x-credits-charged'))).toBe(o['x-credits'])
      expect(body.meta.credits_charged).toBe(o['x-credits'])
      expect(Number(res.headers.get('x-credits-remaining'))).toBe(before - o['x-credits'])
      expect(body.meta.credits_remaining).toBe(before - o['x-credits'])
      expect(res.headers.get('x-request-id')).toBe(body.meta.request_id)
      expect(await balance()).toBe(before - o['x-credits'])
      expect(validate(responsePointer(path, 'get', '200', 'application/json'), body)).toBeNull()
      // documented defaults are the ones applied
      for (const p of params(path))
        if (p.schema.default !== undefined && body.data && typeof body.data === 'object' && !Array.isArray(body.data) && p.name in body.data)
          expect(body.data[p.name], `${path} default of ${p.name}`).toBe(p.schema.default)
      expect(route.cost).toBe(o['x-credits'])
    })
  })

  it('the ledger holds exactly one charge per successful analytics call of this account, at its x-credits', async () => {
    const rows = await t.services.db.sql.query<{ endpoint: string; delta: number }>(
      "SELECT endpoint, delta FROM credit_ledger WHERE account_id = $1 AND kind = 'charge' ORDER BY id",
      [accountId],
    )
    for (const r of rows) expect(-Number(r.delta), r.endpoint).toBe(op(r.endpoint)['x-credits'])
    // the ticker in beforeAll, then one success per route that is available
    const available = ROUTES.filter((r) => !/not available/i.test(op(r.path).description)).length
    expect(rows.length).toBe(1 + available)
  })

  describe('account paths', () => {
    const json = (body: unknown, auth?: string) => ({
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
      body: JSON.stringify(body),
    })

    it('POST /v1/auth/signup: 201 as documented, 400 for a bad email, 409 for a taken one', async () => {
      const email = `openapi-${Date.now()}@example.com`
      const res = await t.fetch(`/v1/auth/signup`, json({ email }))
      expect(res.status).toBe(201)
      expect(validate(responsePointer('/v1/auth/signup', 'post', '201', 'application/json'), await res.json())).toBeNull()
      expect((await expectProblem(await t.fetch(`/v1/auth/signup`, json({ email: 'nope' })), 400, 'invalid_parameter')).parameter).toBe('email')
      await expectProblem(await t.fetch(`/v1/auth/signup`, json({ email })), 409, 'conflict')
    })

    it('keys: create 201, list 200, revoke 200 as documented; 404 for an unknown key; 401 without a key', async () => {
      const { apiKey } = await t.signup()
      const created = await t.fetch(`/v1/auth/keys`, json({ name: 'openapi' }, apiKey))
      expect(created.status).toBe(201)
      const c = (await created.json()) as { data: { id: string } }
      expect(validate(responsePointer('/v1/auth/keys', 'post', '201', 'application/json'), c)).toBeNull()
      const list = await t.get('/v1/auth/keys', apiKey)
      expect(list.status).toBe(200)
      expect(validate(responsePointer('/v1/auth/keys', 'get', '200', 'application/json'), await list.json())).toBeNull()
      const del = await t.fetch(`/v1/auth/keys/${c.data.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${apiKey}` } })
      expect(del.status).toBe(200)
      expect(validate(responsePointer('/v1/auth/keys/{key_id}', 'delete', '200', 'application/json'), await del.json())).toBeNull()
      await expectProblem(await t.fetch(`/v1/auth/keys/00000000-0000-4000-8000-000000000000`, { method: 'DELETE', headers: { authorization: `Bearer ${apiKey}` } }), 404, 'not_found')
      await expectProblem(await t.get('/v1/auth/keys'), 401, 'unauthorized')
      await expectProblem(await t.fetch(`/v1/auth/keys`, json({ name: 'x' })), 401, 'unauthorized')
    })

    it('GET /v1/account and /v1/account/usage: 200 as documented, 400 for days out of range, 401 without a key', async () => {
      const account = await t.get('/v1/account', key)
      expect(account.status).toBe(200)
      expect(validate(responsePointer('/v1/account', 'get', '200', 'application/json'), await account.json())).toBeNull()
      const usage = await t.get('/v1/account/usage?days=30', key)
      expect(usage.status).toBe(200)
      expect(validate(responsePointer('/v1/account/usage', 'get', '200', 'application/json'), await usage.json())).toBeNull()
      for (const days of ['0', '91', 'x'])
        expect((await expectProblem(await t.get(`/v1/account/usage?days=${days}`, key), 400, 'invalid_parameter')).parameter).toBe('days')
      await expectProblem(await t.get('/v1/account'), 401, 'unauthorized')
      await expectProblem(await t.get('/v1/account/usage'), 401, 'unauthorized')
    })

    it('POST /v1/billing/webhook answers one of its documented statuses without a valid signature, and never 2xx', async () => {
      const res = await t.fetch(`/v1/billing/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' }, body: '{}' })
      expect(Object.keys(op('/v1/billing/webhook', 'post').responses)).toContain(String(res.status))
      expect(res.status).toBeGreaterThanOrEqual(400)
      expect(validate('/components/schemas/Problem', await res.json())).toBeNull()
    })
  })
})
