// What POST /v1/alerts accepts (issue 31): a body whose keys are names of Object.prototype, or a name or url with a NUL
// character, is a 400 naming the field, never a 500; an address the sender would refuse is refused at creation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { refusedAddress } from '../../src/accounts/webhook-address.js'
import { expectProblem, startTestService, type TestService } from '../helpers/service.js'

let t: TestService
let key = ''
beforeAll(async () => {
  t = await startTestService()
  key = (await t.signup()).apiKey
})
afterAll(() => t.close())

const post = (body: string) => t.fetch('/v1/alerts', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body })
const rule = { coin: 'BTC', condition: { type: 'price_above', value: 1 }, url: 'https://example.com/hook' }

describe('POST /v1/alerts: bodies that used to answer 500', () => {
  it.each(['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf'])('a top-level key named %s is an unknown field (400)', async (name) => {
    const body = JSON.stringify(rule).replace(/^\{/, `{"${name}":1,`)
    const problem = await expectProblem(await post(body), 400, 'invalid_parameter')
    expect(problem.parameter).toBe(name)
    // and inside the condition too
    const inner = JSON.stringify(rule).replace('{"type"', `{"${name}":{},"type"`)
    expect((await expectProblem(await post(inner), 400, 'invalid_parameter')).parameter).toBe(`condition.${name}`)
  })

  it.each([
    ['name', { ...rule, name: 'a\u0000b' }],
    ['url', { ...rule, url: 'https://example.com/a\u0000b' }],
    ['name', { ...rule, name: 'line\nbreak' }],
  ])('a control character in %s is refused naming it', async (field, body) => {
    expect((await expectProblem(await post(JSON.stringify(body)), 400, 'invalid_parameter')).parameter).toBe(field)
  })
})

// The IANA IPv4 and IPv6 Special-Purpose Address Registries (https://www.iana.org/assignments/iana-ipv4-special-registry,
// https://www.iana.org/assignments/iana-ipv6-special-registry): one address inside every block that is not globally
// reachable, plus multicast and the blocks that would reach an IPv4 address through IPv6
const REFUSED = [
  '0.0.0.0', '0.1.2.3', '10.0.0.1', '100.64.0.1', '100.127.255.254', '169.254.169.254', '172.16.5.4', '172.31.255.1',
  '192.0.0.8', '192.0.0.170', '192.0.2.1', '192.0.2.255', '192.88.99.1', '192.168.1.1', '198.18.0.1', '198.19.255.254',
  '198.51.100.7', '203.0.113.9', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255',
  '::', '::127.0.0.2', '::ffff:10.0.0.1', '::ffff:c000:201', '64:ff9b::a00:1', '64:ff9b:1::1', '100::1', '2001::1', '2001:2::1',
  '2001:db8::1', '2002:a00:1::1', '3fff::1', '5f00::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fec0::1', 'ff02::1',
]
const PUBLIC = ['93.184.216.34', '1.1.1.1', '192.0.3.1', '198.17.255.1', '198.20.0.1', '203.0.114.1', '2606:4700:4700::1111', '2a00:1450:4001:81c::200e']

describe('the webhook address guard: IANA special-purpose blocks', () => {
  it.each(REFUSED)('refuses %s', (a) => expect(refusedAddress(a, true)).not.toBeNull())
  it.each(PUBLIC)('allows the public address %s', (a) => expect(refusedAddress(a, false)).toBeNull())
  it('loopback only when allowed', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) {
      expect(refusedAddress(a, false), a).not.toBeNull()
      expect(refusedAddress(a, true), a).toBeNull()
    }
  })
})

describe('POST /v1/alerts: a url naming a refused address is refused at creation', () => {
  it.each([
    'http://192.0.2.1/hook', 'https://198.51.100.7:8443/x', 'http://203.0.113.9/', 'http://198.19.0.1/', 'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data', 'http://[::ffff:10.0.0.1]/', 'http://[fd00::1]:9000/', 'http://[2001:db8::1]/',
    'http://0/', 'http://2130706433/', 'http://0x7f.1/', 'http://127.0.0.1:8080/', 'http://[::1]/', 'http://localhost:6379/', 'http://api.localhost/',
  ])('%s → 400 naming url, nothing stored', async (url) => {
    const problem = await expectProblem(await post(JSON.stringify({ ...rule, url })), 400, 'invalid_parameter')
    expect(problem.parameter).toBe('url')
    expect(String(problem.detail)).toMatch(/public address/)
    const [n] = await t.services.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM alert_rule WHERE url = $1', [url])
    expect(n!.n).toBe(0)
  })

  it('a public address or a name is accepted (a name is checked on every resolution, when a delivery is sent)', async () => {
    for (const url of ['http://93.184.216.34/hook', 'https://example.com/hook', 'https://[2606:4700:4700::1111]/x']) expect((await post(JSON.stringify({ ...rule, url }))).status, url).toBe(201)
  })
})

describe('the 100-rule limit on the embedded store', () => {
  it('holds under parallel creates (25 at 90 make exactly 100)', async () => {
    const { apiKey, accountId } = await t.signup()
    const create = () => t.fetch('/v1/alerts', { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(rule) })
    for (let i = 0; i < 90; i++) expect((await create()).status).toBe(201)
    const statuses = (await Promise.all(Array.from({ length: 25 }, create))).map((r) => r.status).sort()
    expect(statuses).toEqual([...Array(10).fill(201), ...Array(15).fill(409)])
    const [n] = await t.services.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM alert_rule WHERE account_id = $1', [accountId])
    expect(Number(n!.n)).toBe(100)
  })
})
