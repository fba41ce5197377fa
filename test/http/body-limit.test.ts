// docs/operations.md "Caps and bounds" says what each route's body may weigh (issue 31: the docs gave 16 kB for
// every route while /graphql took 64 kB). The caps are read from the document and sent: a body of the documented
// size passes the cap, one byte more is refused with 413.
import fs from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectProblem, startTestService, type TestService } from '../helpers/service.js'

const DOC = path.resolve(import.meta.dirname, '..', '..', 'docs', 'operations.md')

/** the byte count a row of the section's table gives for `what`, e.g. "(65,536 bytes)" */
async function documentedBytes(what: string): Promise<number> {
  const text = await fs.readFile(DOC, 'utf8')
  const section = text.slice(text.indexOf('## Caps and bounds'))
  expect(section.length, 'docs/operations.md has a "Caps and bounds" section').toBeGreaterThan(20)
  const row = section.split('\n').find((l) => l.startsWith(`| ${what} |`))
  expect(row, `a row for ${what}`).toBeDefined()
  return Number(/\(([\d,]+) bytes\)/.exec(row!)![1]!.replaceAll(',', ''))
}

let t: TestService
let key = ''
beforeAll(async () => {
  t = await startTestService({ env: { STRIPE_WEBHOOK_SECRET: 'whsec_caps' } })
  key = (await t.signup()).apiKey
})
afterAll(() => t.close())

/** a JSON object of exactly `bytes` bytes: {"name":"…"} padded */
const bodyOf = (bytes: number, field = 'name') => {
  const shell = JSON.stringify({ [field]: '' })
  return JSON.stringify({ [field]: 'x'.repeat(bytes - shell.length) })
}
const post = (route: string, body: string, headers: Record<string, string> = {}) =>
  t.fetch(route, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers }, body })

describe('the documented body caps are the enforced ones', () => {
  it.each([
    ['request body, every route but two', '/v1/auth/keys'],
    ['request body, `POST /graphql`', '/graphql'],
    ['request body, `POST /v1/billing/webhook`', '/v1/billing/webhook'],
  ])('%s', async (what, route) => {
    const limit = await documentedBytes(what)
    const at = await post(route, bodyOf(limit, route === '/graphql' ? 'query' : 'name'), { 'stripe-signature': 't=1,v1=00' })
    expect(at.status, `${route} with a body of ${limit} bytes`).not.toBe(413)
    const over = await expectProblem(await post(route, bodyOf(limit + 1, route === '/graphql' ? 'query' : 'name'), { 'stripe-signature': 't=1,v1=00' }), 413, 'payload_too_large')
    expect(over.limit_bytes).toBe(limit)
  })

  it('/graphql takes bodies the other routes refuse', async () => {
    const body = bodyOf(40_000, 'query')
    expect((await post('/graphql', body)).status).not.toBe(413)
    await expectProblem(await post('/v1/auth/keys', body), 413, 'payload_too_large')
  })
})
