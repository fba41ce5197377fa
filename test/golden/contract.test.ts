// The public contract, pinned: on a fixed simulator seed and clock, the REST bodies (analytics, errors, account
// routes), the GraphQL results and the OpenAPI paths of every served endpoint, byte for byte. Values that are random
// by design (request ids, keys, account and key ids) are replaced by placeholders before comparing.
// After an intended change to the contract, rewrite the golden file with UPDATE_GOLDEN=1 and list the change in docs.
import fs from 'node:fs'
import path from 'node:path'
import Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedMarket, TEST_NOW } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'

const GOLDEN = path.join(import.meta.dirname, 'contract.golden.json')
const SECRET = 'whsec_golden'
const OPS = path.join(import.meta.dirname, '..', '..', 'schema', 'operations', 'v1')

/** REST calls of the analytics endpoints: defaults, every parameter, and the errors a caller meets */
const ANALYTICS: string[] = [
  '/v1/markets/exchanges',
  '/v1/markets/ticker',
  '/v1/markets/ticker?coin=btc&exchange=okx',
  '/v1/markets/ohlc?coin=BTC',
  '/v1/markets/ohlc?coin=ETH&exchange=binance&interval=5m&lookback=4h',
  '/v1/markets/ohlc?coin=BTC&interval=15m&lookback=1h&market_type=spot',
  `/v1/markets/ohlc?coin=BTC&interval=1m&lookback=1h&end=${TEST_NOW - 3_600_000}`,
  '/v1/structure/volume-profile?coin=BTC',
  '/v1/structure/volume-profile?coin=ETH&bins=10&lookback=4h&exchange=bybit',
  '/v1/structure/spread',
  '/v1/structure/spread?coin=ETH',
  '/v1/funding/weighted?coin=BTC',
  '/v1/flow/imbalance?coin=BTC',
  '/v1/flow/imbalance?coin=ETH&exchange=hyperliquid',
  '/v1/oi/changes?coin=BTC',
  '/v1/signals/divergence?coin=BTC',
  '/v1/signals/liquidation-cascade?coin=BTC&trigger_price=60000',
  '/v1/signals/snapshot',
  // errors
  '/v1/markets/ohlc',
  '/v1/markets/ohlc?coin=NOPE',
  '/v1/markets/ohlc?coin=BTC&interval=2h',
  '/v1/markets/ohlc?coin=BTC&interval=4h&lookback=1h',
  '/v1/markets/ohlc?coin=BTC&exchange=dydx&market_type=spot',
  '/v1/markets/ohlc?coin=BTC&end=12',
  '/v1/markets/ohlc?coin=BTC&extra=1',
  '/v1/markets/exchanges?x=1',
  '/v1/structure/volume-profile?coin=BTC&bins=0',
  '/v1/structure/volume-profile?coin=BTC&bins=2.5',
  '/v1/signals/liquidation-cascade?coin=BTC',
  '/v1/signals/liquidation-cascade?coin=BTC&trigger_price=-1',
  '/v1/flow/imbalance?exchange=kraken',
  '/v1/markets/ticker?coin=BTC&coin=ETH',
]

/** GraphQL: each stored operation with REST-equivalent variables, and the account fields */
// `as` is the key the result is pinned under: the variables as first written (REST values, before GraphQL took enums)
const GRAPHQL: { op: string; variables: Record<string, unknown>; as?: string }[] = [
  { op: 'exchanges', variables: {} },
  { op: 'ticker', variables: { coin: 'BTC' } },
  { op: 'ohlc', variables: { coin: 'BTC', interval: 'M15', lookback: 'H4' }, as: '{"coin":"BTC","interval":"15m","lookback":"4h"}' },
  { op: 'ohlc', variables: { coin: 'ETH', exchange: 'OKX', interval: 'H1', lookback: 'H24', marketType: 'SPOT' }, as: '{"coin":"ETH","exchange":"okx","interval":"1h","lookback":"24h","marketType":"spot"}' },
  { op: 'volume-profile', variables: { coin: 'BTC', bins: 20 } },
  { op: 'spread', variables: { coin: 'BTC' } },
  { op: 'weighted-funding', variables: {} },
  { op: 'imbalance', variables: { coin: 'ETH' } },
  { op: 'oi-changes', variables: {} },
  { op: 'divergence', variables: { coin: 'ETH' } },
  { op: 'liquidation-cascade', variables: { coin: 'ETH', triggerPrice: 2000 } },
  { op: 'snapshot', variables: {} },
  { op: 'ohlc', variables: { coin: 'BTC', interval: 'H4', lookback: 'H1' }, as: '{"coin":"BTC","interval":"4h","lookback":"1h"}' },
]
const ACCOUNT_QUERY = 'query { account { email credits } apiKeys { name revokedAt } usage(days: 7) { days totalCredits calls byEndpoint { endpoint calls credits } byDay { calls credits } recent { endpoint credits } } }'

const VOLATILE = ['request_id', 'requestId', 'api_key', 'apiKey', 'account_id', 'accountId', 'key_id', 'keyId', 'id', 'prefix', 'created_at', 'createdAt', 'last_used_at', 'lastUsedAt', 'revoked_at', 'revokedAt']
/**
 * The text with every fractional number cut to 12 significant digits: the simulator's floats differ in their last
 * digits between V8 versions (Math.exp/log), Node 20 against Node 24; everything else must match byte for byte.
 */
const lastDigits = (text: string) => text.replace(/-?\d+\.\d+(?:e[+-]?\d+)?/g, (n) => String(Number(Number(n).toPrecision(12))))

/** usage is recorded at the store's time, not the service clock */
const USAGE_TIMES = ['ts', 'day']
/** the body text with random-by-design values replaced, key order and number formatting untouched */
function normalize(text: string, extra: readonly string[] = []): string {
  let out = text
  for (const k of [...VOLATILE, ...extra]) out = out.replace(new RegExp(`"${k}":("(?:[^"\\\\]|\\\\.)*"|\\d+)`, 'g'), `"${k}":"<${k}>"`)
  return out
}

describe('golden contract (fixed seed and clock)', () => {
  let t: TestService
  const actual: Record<string, string> = {}

  beforeAll(async () => {
    t = await startTestService({ clock: () => TEST_NOW, env: { STRIPE_WEBHOOK_SECRET: SECRET } })
    await seedMarket(t, { hours: 6, coins: ['BTC', 'ETH'] })
  })
  afterAll(async () => {
    await t?.close()
  })

  const call = async (method: string, p: string, opts: { key?: string; body?: string; headers?: Record<string, string>; volatile?: string[] } = {}) => {
    const res = await t.fetch(`${p}`, {
      method,
      headers: { ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}), ...(opts.body ? { 'content-type': 'application/json' } : {}), ...opts.headers },
      body: opts.body,
    })
    return `${res.status} ${res.headers.get('content-type') ?? ''} credits=${res.headers.get('x-credits-charged') ?? ''}\n${normalize(await res.text(), opts.volatile)}`
  }

  it('REST, GraphQL and OpenAPI answer as pinned', async () => {
    const signup = await t.fetch(`/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'Golden+Tag@Example.com' }) })
    const s = (await signup.clone().json()) as { data: { api_key: string; account_id: string } }
    actual['POST /v1/auth/signup'] = `${signup.status}\n${normalize(await signup.text())}`
    const key = s.data.api_key

    for (const p of ANALYTICS) actual[`GET ${p}`] = await call('GET', p, { key })
    actual['GET /v1/markets/ticker (no key)'] = await call('GET', '/v1/markets/ticker')
    actual['GET /v1/markets/ticker (bad key)'] = await call('GET', '/v1/markets/ticker', { key: 'pk_live_nope' })

    for (const { op, variables, as } of GRAPHQL) {
      const query = fs.readFileSync(path.join(OPS, `${op}.graphql`), 'utf8')
      actual[`graphql ${op} ${as ?? JSON.stringify(variables)}`] = await call('POST', '/graphql', { key, body: JSON.stringify({ query, variables }) })
    }

    // account routes (free)
    actual['POST /v1/auth/keys'] = await call('POST', '/v1/auth/keys', { key, body: JSON.stringify({ name: 'bot' }) })
    actual['POST /v1/auth/keys (no name)'] = await call('POST', '/v1/auth/keys', { key, body: '{}' })
    const list = (await (await t.fetch(`/v1/auth/keys`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { id: string; name: string }[] }
    actual['GET /v1/auth/keys'] = await call('GET', '/v1/auth/keys', { key })
    actual['DELETE /v1/auth/keys/:id'] = await call('DELETE', `/v1/auth/keys/${list.data.find((k) => k.name === 'bot')!.id}`, { key })
    actual['DELETE /v1/auth/keys/unknown'] = await call('DELETE', '/v1/auth/keys/00000000-0000-0000-0000-000000000000', { key })
    actual['GET /v1/account'] = await call('GET', '/v1/account', { key })
    actual['GET /v1/account/usage?days=7'] = await call('GET', '/v1/account/usage?days=7', { key, volatile: USAGE_TIMES })
    actual['GET /v1/account/usage?days=0'] = await call('GET', '/v1/account/usage?days=0', { key })
    actual['graphql account'] = await call('POST', '/graphql', { key, body: JSON.stringify({ query: ACCOUNT_QUERY }), volatile: USAGE_TIMES })
    const payload = JSON.stringify({ id: 'evt_golden', type: 'checkout.session.completed', data: { object: { metadata: { account_id: s.data.account_id, credits: '250' } } } })
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: Math.floor(TEST_NOW / 1000) })
    actual['POST /v1/billing/webhook'] = await call('POST', '/v1/billing/webhook', { body: payload, headers: { 'stripe-signature': header } })
    actual['POST /v1/billing/webhook (bad signature)'] = await call('POST', '/v1/billing/webhook', { body: payload, headers: { 'stripe-signature': 't=1,v1=00' } })
    actual['GET /v1/markets/exchanges (out of credits)'] = await (async () => {
      await t.setCredits(s.data.account_id, 0)
      return call('GET', '/v1/markets/exchanges', { key })
    })()

    const openapi = (await (await t.fetch(`/openapi.json`)).json()) as { paths: Record<string, unknown> }
    actual['openapi paths'] = JSON.stringify(openapi.paths, null, 1)

    if (process.env.GOLDEN_OUT) fs.writeFileSync(process.env.GOLDEN_OUT, JSON.stringify(actual, null, 1))
    if (process.env.UPDATE_GOLDEN === '1') fs.writeFileSync(GOLDEN, `${JSON.stringify(actual, null, 1)}\n`)
    const golden = JSON.parse(fs.readFileSync(GOLDEN, 'utf8')) as Record<string, string>
    expect(Object.keys(actual)).toEqual(Object.keys(golden))
    for (const k of Object.keys(golden)) expect(lastDigits(actual[k]!), k).toBe(lastDigits(golden[k]!))
  })
})
